/// Which tenant owns each entity while a schedule compiles, so a schedule can never make one
/// tenant's user write another tenant's entity (`ScheduleError` with the action's path).
///
/// Why refuse instead of simulate: tenants have separate databases (seed 004 §1.1), so the same
/// id in two tenants would be two entities, and the oracles key everything by entity id. Entity
/// ids are therefore unique across tenants, and an entity belongs to the tenant its creator was
/// in (the initial data and admin writes: tenant 0). Inert, and free, until the schedule's first
/// tenant action: before it every client is in tenant 0 and owns everything.
struct TenantOwnership {
    private(set) var active = false
    private var clientTenant: [TenantID?]
    /// Owners other than tenant 0, by entity: a tenant's raw value, or -1 for an entity created
    /// while its client was logged out (the simulator skips that create; nobody owns it).
    private var owners: [EntityID: Int16] = [:]
    /// When each client's current typing burst ends: a switch inside it would split the burst
    /// across tenants.
    private var typingUntil: [Int64]

    init(clients: Int) {
        clientTenant = Array(repeating: .initial, count: clients)
        typingUntil = Array(repeating: -1, count: clients)
    }

    private func owner(_ e: EntityID) -> Int16 { owners[e] ?? 0 }

    private static func name(_ o: Int16) -> String { o < 0 ? "no tenant (it was created while its client was logged out)" : "tenant \(o)" }

    /// `e` is created by client `c` (nil: the admin writer, tenant 0).
    mutating func created(_ e: EntityID, by c: ClientID?) {
        guard active, let c else { return }
        if let t = clientTenant[c.index] {
            if t != .initial { owners[e] = Int16(t.raw) }
        } else {
            owners[e] = -1
        }
    }

    /// Client `c` (nil: the admin writer) names `e` in a write: it must be its tenant's. A
    /// logged-out client's writes are skipped by the simulator, so they name nothing.
    func check(_ e: EntityID, by c: ClientID?, path: String) throws {
        guard active else { return }
        let t: TenantID
        if let c {
            guard let ct = clientTenant[c.index] else { return }
            t = ct
        } else {
            t = .initial
        }
        let o = owner(e)
        guard o == Int16(t.raw) else {
            let who = c.map { "client \($0) is in \(t)" } ?? "admin writes go to tenant 0's server"
            throw ScheduleError(path: path, "entity \(e.raw) belongs to \(Self.name(o)), but \(who); tenants never share entities (use an entity created in \(t))")
        }
    }

    /// Client `c` types until `end`.
    mutating func typing(_ c: ClientID, until end: Int64) { typingUntil[c.index] = max(typingUntil[c.index], end) }

    /// Client `c` switches to `t` (nil: logs out) at `time`.
    mutating func switched(_ c: ClientID, to t: TenantID?, at time: Int64, path: String) throws {
        guard time > typingUntil[c.index] else {
            throw ScheduleError(path: path, "client \(c) is typing until \(typingUntil[c.index]) ms; switch tenant or log out after its burst")
        }
        active = true
        clientTenant[c.index] = t
    }
}
