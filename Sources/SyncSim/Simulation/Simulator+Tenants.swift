/// Tenants in the simulator (seed 004 §1.1, seed 000's user change): the harness partitions the
/// server side — one server instance per tenant, made when first needed, never sharing data — and
/// routes each client's traffic to the server of the tenant it is in (a switch closes the
/// connection first, so a connection always belongs to the tenant its client was in when it
/// opened). The client side follows the strategy's `Tenancy`.
///
/// Only runs whose schedule has tenant actions (`tenancyOn`) reach any of this; the others keep
/// one server in `server` and never branch here beyond a flag test.
extension Simulator {
    /// A tenant's server while another tenant's is in `server`, with its timer generations.
    @usableFromInline struct ParkedServer {
        @usableFromInline var server: S.Server
        @usableFromInline var timerGen: TimerGenerations
        @inlinable init(server: S.Server, timerGen: TimerGenerations) { self.server = server; self.timerGen = timerGen }
    }

    /// Puts tenant `t`'s server in `server` (making it on first use), parking the current one.
    @inlinable
    mutating func enterTenantServer(_ t: TenantID) {
        guard t != activeServerTenant else { return }
        let incoming: ParkedServer
        if let p = parkedServers[t.index] {
            incoming = p
            parkedServers[t.index] = nil
        } else {
            incoming = ParkedServer(server: makeTenantServer(t), timerGen: TimerGenerations())
        }
        parkedServers[activeServerTenant.index] = ParkedServer(server: server, timerGen: serverTimerGen)
        server = incoming.server
        serverTimerGen = incoming.timerGen
        activeServerTenant = t
    }

    /// A new tenant's server: empty (the initial data is tenant 0's), with its own random stream.
    @inlinable
    func makeTenantServer(_ t: TenantID) -> S.Server {
        var context = ServerContext(schema: schedule.schema, clientCount: options.clients,
                                    random: root.fork(.custom(0x5445_4E00 | UInt64(t.raw))), options: options.strategy)
        context.tracesNotes = recorder.keepsLines
        return strategy.makeServer(context)
    }

    /// Tenant `t`'s server data (empty if no one ever used the tenant).
    @inlinable
    public func serverData(of t: TenantID) -> EntityStore { tenantData(t) }

    @inlinable
    func tenantData(_ t: TenantID) -> EntityStore {
        if !tenancyOn || t == activeServerTenant { return server.data }
        return parkedServers[t.index]?.server.data ?? EntityStore()
    }

    /// The tenant client `c` is in now (nil: logged out). Always tenant 0 without tenant actions.
    @inlinable
    public func tenant(of c: ClientID) -> TenantID? { tenancyOn ? tenantOf[c.index] : .initial }

    /// `isSettled` with tenants: each client against its tenant's server; a logged-out client's
    /// screens have no server to match.
    @inlinable
    func isSettledWithTenants() -> Bool {
        for i in 0..<options.clients {
            if clients[i].pendingWriteCount != 0 { return false }
            guard let t = tenantOf[i] else { continue }
            let data = tenantData(t)
            for (s, q) in activeSubs[i] {
                guard let r = clients[i].result(of: s), q.evaluates(data, to: r) else { return false }
            }
        }
        return true
    }

    /// A user action while logged out: nobody is there to act; told in the story and hashed,
    /// never handed to the client.
    @inlinable
    mutating func skipLoggedOut(_ c: ClientID, _ cmd: UserCommand) {
        recorder.begin(now, 0x82); recorder.hasher.combine(c.index)
        if recorder.keepsLines {
            recorder.line(now, .action, client: c, label: "skipped", "\(c) is logged out: \(cmd) does not happen")
        }
    }

    /// `switchTenant` (`to` set) or `logout` (`to` nil) on client `c`.
    @inlinable
    mutating func changeTenant(_ c: ClientID, to t: TenantID?) {
        let from = tenantOf[c.index]
        recorder.begin(now, 0x80); recorder.hasher.combine(c.index); recorder.hasher.combine(t.map { Int($0.raw) } ?? -1)
        guard from != t else {
            if recorder.keepsLines {
                recorder.line(now, .action, client: c, label: t == nil ? "logout" : "switch tenant", t.map { "\(c) is already in \($0)" } ?? "\(c) is already logged out")
            }
            return
        }
        if recorder.keepsLines {
            let what: String
            switch (from, t) {
            case (let f?, let t?): what = "\(c)'s user switches from \(f) to \(t)"
            case (nil, let t?): what = "\(c)'s user logs in to \(t)"
            case (let f?, nil): what = "\(c)'s user logs out of \(f), dropping its local data"
            case (nil, nil): what = ""
            }
            recorder.line(now, .action, client: c, label: t == nil ? "logout" : "switch tenant", what)
        }
        let before = withClient(c) { $0.pendingWrites }
        // The session ends: its connection closes (the old tenant's server hears of it first).
        var link = links[c.index]
        // What the client believes: a connection it has not yet noticed is gone counts too.
        let hadConnection = link.connection != .none || disconnectNoticePending[c.index]
        breakLink(c, &link)
        links[c.index] = link
        disconnectNoticePending[c.index] = false
        tenantOf[c.index] = t
        monitor.tenantChanging(c, to: t, at: now)
        var parked: [WriteID] = []
        switch strategy.tenancy {
        case .databasePerTenant:
            // Close this tenant's database as at a restart, keeping (switch) or dropping (logout)
            // its durable store; open the other's from its own.
            if let from {
                if t == nil {
                    tenantDurable[c.index][from.index] = nil
                } else {
                    let kept = durable[c.index]
                    tenantDurable[c.index][from.index] = kept
                    parked = strategy.makeClient(clientContext(c), restoring: kept).pendingWrites
                }
            }
            if let t {
                durable[c.index] = tenantDurable[c.index][t.index]
                tenantDurable[c.index][t.index] = nil
            } else {
                durable[c.index] = nil
            }
            relaunch(c, device: link.device)
        case .oneDatabase:
            if hadConnection && transport == .stream { clientInput(c, .disconnected) }
            clientInput(c, .user(t.map { .switchTenant($0) } ?? .logout))
        }
        let after = withClient(c) { $0.pendingWrites }
        // Withdrawn with the user's local data: a logout, or a one-database client's own clearing.
        let dropsData = t == nil || strategy.tenancy == .oneDatabase
        let discarded = dropsData ? before.filter { !after.contains($0) && !parked.contains($0) } : []
        _history.recordTenantChange(.init(time: now, client: c, from: from, to: t, pendingBefore: before,
                                          pendingAfter: after + parked, discarded: discarded))
    }

    /// Writes waiting in client `c`'s durable stores of tenants it is not in now.
    @inlinable
    func parkedPending(of c: ClientID) -> [WriteID] {
        guard tenancyOn, strategy.tenancy == .databasePerTenant else { return [] }
        var out: [WriteID] = []
        for (i, d) in tenantDurable[c.index].enumerated() where d != nil && tenantOf[c.index]?.index != i {
            out += strategy.makeClient(clientContext(c), restoring: d).pendingWrites
        }
        return out
    }

    /// Every tenant's server data in one store (ids are unique across tenants).
    @inlinable
    func allTenantsData() -> EntityStore {
        guard tenancyOn else { return server.data }
        var all = tenantData(.initial)
        for i in 1...ScheduleLimits.maxTenant {
            let t = TenantID(UInt8(i))
            guard t == activeServerTenant || parkedServers[i] != nil else { continue }
            for (e, r) in tenantData(t).entities where !all.contains(e) { all[e] = r }
        }
        return all
    }
}

/// The tenant-aware reads of `ObservedSystem` (the conformance is in `ObservedSystem.swift`).
extension Simulator {
    @inlinable func serverData(seenBy c: ClientID) -> EntityStore? {
        guard tenancyOn else { return server.data }
        return tenantOf[c.index].map { tenantData($0) }
    }
    @inlinable var everyTenantsData: EntityStore { allTenantsData() }
    @inlinable func parkedWrites(of c: ClientID) -> [WriteID] { parkedPending(of: c) }
}
