/// `tenantIsolation` (seed 004 §1.1 "complete separation - no cross-tenant data access", its
/// testing matrix's "2 tenants A + B sync separately: no leak cross-tenant"; seed 000's user
/// change), judged from the history only: which tenant each client was in when it made each
/// intent, which tenant's server applied each transaction, what each client showed while in
/// which tenant. Entity ids are unique across tenants, so where a value came from is known from
/// the intents that wrote it (and the initial data, which is tenant 0's).
///
/// The ledger is inert (`active` false, nothing recorded, nothing judged) unless the schedule
/// has tenant actions, so runs without them judge and cost exactly as before.
struct TenantLedger: Sendable {
    var active = false
    /// Each client's tenant now; nil while logged out.
    var clientTenant: [TenantID?] = []
    /// The tenant each intent was made in, by index in `History.intents` (admin writes: tenant 0,
    /// whose server they are applied to).
    var intentTenant: [TenantID] = []
    /// Per entity: the tenants whose intents touched it (a bit per tenant).
    var entityTenants: [EntityID: UInt16] = [:]
    /// Per client: when its user last changed tenant (its queue then left the session, dropped
    /// or parked, so its own pending transactions may never be applied).
    var lastChangeAt: [Int64] = []

    mutating func activate(clients: Int) {
        active = true
        clientTenant = Array(repeating: .initial, count: clients)
        lastChangeAt = Array(repeating: -1, count: clients)
    }

    static func bit(_ t: TenantID) -> UInt16 { 1 << UInt16(t.raw) }
}

extension Monitor {
    /// The run has tenant actions: record and judge tenants from now on.
    @usableFromInline mutating func activateTenants(clients: Int) { tenants.activate(clients: clients) }

    /// Called by `intent`: the intent's tenant is its client's now.
    mutating func noteTenant(ofIntent i: Int32, _ w: UserWrite, client: ClientID?) {
        let t = client.flatMap { tenants.clientTenant[$0.index] } ?? .initial
        if Int(i) >= tenants.intentTenant.count {
            tenants.intentTenant.append(contentsOf: repeatElement(.initial, count: Int(i) - tenants.intentTenant.count + 1))
        }
        tenants.intentTenant[Int(i)] = t
        for op in w.ops {
            tenants.entityTenants[op.entity, default: 0] |= TenantLedger.bit(t)
            if case .link(_, _, let target) = op { tenants.entityTenants[target, default: 0] |= TenantLedger.bit(t) }
        }
    }

    /// A client's user changes tenant (`to` nil: logs out), before the client hears of it. What
    /// the monitor remembers of the client's cache was the old tenant's: forgotten (the new
    /// tenant's cache is judged from scratch; `cachedSubscriptionOffline` cannot ask a client to
    /// show, in one tenant, a result it cached in another).
    @usableFromInline mutating func tenantChanging(_ c: ClientID, to t: TenantID?, at time: Int64) {
        tenants.clientTenant[c.index] = t
        tenants.lastChangeAt[c.index] = time
        cachedQueries[c.index] = []
        cachedRoots[c.index] = []
        if refreshingCache?.client == c.index { refreshingCache = nil }
        yieldMemos[c.index] = []
    }

    /// `cachedSubscriptionOffline` excuses a missing cached root that the client's own
    /// transactions delete on the server, judged at the end; a tenant change after the yield
    /// took the client's queue out of the session (dropped or parked), so that evidence may
    /// never arrive: such a yield is not judged (a limit: a miss, never a false alarm).
    func tenantChangeHidesOwnDeletes(_ c: ClientID, after time: Int64) -> Bool {
        tenants.active && tenants.lastChangeAt[c.index] >= time
    }

    /// Whether tenant `t` may hold entity `e`: an intent made in `t` touched it, or it is tenant
    /// 0's initial data.
    func tenantMayHold(_ t: TenantID, _ e: EntityID) -> Bool {
        (tenants.entityTenants[e] ?? 0) & TenantLedger.bit(t) != 0 || (t == .initial && initialData.contains(e))
    }

    /// The tenant an intent was made in (tenant 0 for ones made before the ledger knew).
    func tenant(ofIntent i: Int32) -> TenantID {
        Int(i) < tenants.intentTenant.count ? tenants.intentTenant[Int(i)] : .initial
    }

    /// Server side: tenant `t`'s server applied `tx`. Every write it carries must have been made
    /// in `t`, and every entity it touches must be one `t` may hold.
    @usableFromInline mutating func appliedInTenant(_ tx: AppliedTransaction, _ t: TenantID, _ h: History, at time: Int64) {
        for w in tx.writes {
            guard let i = Self.get(intentOfWrite, w) else { continue }
            let made = tenant(ofIntent: i)
            if made != t {
                var v = Violation(.tenantIsolation, at: time, entity: h.intent(w)?.write.ops.first?.entity,
                                  "the server of \(t) applied \(w) (tx \(tx.txID) from \(tx.origin)), which was made in \(made)")
                v.culprit = "write of \(made) applied in \(t)"
                report(v)
                return
            }
        }
        for op in tx.ops where !tenantMayHold(t, op.entity) {
            var v = Violation(.tenantIsolation, at: time, entity: op.entity,
                              "the server of \(t) applied \(op) (tx \(tx.txID) from \(tx.origin)) to \(EntityRef(op.entity, op.namespace(in: schema))), which no intent made in \(t) touched")
            v.culprit = "foreign entity applied"
            report(v)
            return
        }
    }

    /// Client side, on a yield: a client in tenant `t` shows only entities `t` may hold, and no
    /// value that only other tenants' intents wrote (a value no intent wrote at all — a merge —
    /// is left to the other oracles). A logged-out client shows nothing.
    mutating func checkTenantYield<O: ObservedSystem>(_ c: ClientID, _ s: SubscriptionID, _ sim: O, at time: Int64) {
        guard let r = sim.shown(c, s) else { return }
        let t = tenants.clientTenant[c.index]
        let h = sim.history
        for entry in r.entries {
            let e = entry.id
            let ref = EntityRef(e, entry.record.namespace)
            guard let t else {
                var v = Violation(.tenantIsolation, at: time, client: c, entity: e,
                                  "\(c) is logged out but \(s) shows \(ref)")
                v.culprit = "shown while logged out"
                report(v)
                return
            }
            if !tenantMayHold(t, e) {
                var v = Violation(.tenantIsolation, at: time, client: c, entity: e,
                                  "\(c) is in \(t) but \(s) shows \(ref), which only another tenant's data holds")
                v.culprit = "foreign entity shown"
                report(v)
                return
            }
            for (fi, value) in entry.record.values.enumerated() {
                guard let value else { continue }
                let f = FieldID(UInt8(fi))
                if t == .initial, initialData[e]?[f] == value { continue }
                var ours = false, theirs: TenantID?
                for j in writersOf[Self.key(e, f)] where Self.value(of: h.intents[Int(j)], e, f) == value {
                    let made = tenant(ofIntent: j)
                    if made == t { ours = true; break }
                    theirs = made
                }
                if !ours, let theirs {
                    var v = Violation(.tenantIsolation, at: time, client: c, entity: e,
                                      "\(c) is in \(t) but \(s) shows \(ref).\(schema.name(of: f)) = \(value), which only writes made in \(theirs) wrote")
                    v.culprit = "foreign value shown"
                    report(v)
                    return
                }
            }
        }
    }
}
