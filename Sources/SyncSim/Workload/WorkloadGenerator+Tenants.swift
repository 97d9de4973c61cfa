extension WorkloadGenerator.Builder {
    /// Tenant switches and logouts (seed 004 §1.1, seed 000's user change): one to four, at
    /// times within the schedule, on clients and tenants drawn from the seed's own `tenants`
    /// stream and merged after the actions already at the same time; a logout is followed by a
    /// login half the time. Then every action that would make a user write another tenant's
    /// entity is dropped (`TenantOwnership`: tenants never share entities), as is a switch in
    /// the middle of its client's typing burst, so the schedule always compiles.
    mutating func addTenants(seed: UInt64, tenants: Int) {
        var s = SimRandom(seed: seed).fork(.custom(0x7465_6e61))
        let end = actions.last?.at ?? 0
        var drawn: [TimedAction] = []
        for _ in 0..<(1 + Int(s.below(4))) {
            let at = Int64(s.below(UInt64(end + 1)))
            let c = ClientID(Int(s.below(UInt64(clients))))
            if s.below(5) == 0 {
                drawn.append(TimedAction(at: at, .logout(c)))
                if s.below(2) == 0 {
                    let back = at + 1 + Int64(s.below(3_000))
                    drawn.append(TimedAction(at: back, .switchTenant(c, TenantID(UInt8(s.below(UInt64(tenants)))))))
                }
            } else {
                drawn.append(TimedAction(at: at, .switchTenant(c, TenantID(UInt8(s.below(UInt64(tenants)))))))
            }
        }
        mergeDrawn(drawn)
        let merged = actions
        // Keep what compiles under tenant ownership, in order.
        var owners = TenantOwnership(clients: clients)
        var kept: [TimedAction] = []
        kept.reserveCapacity(merged.count)
        for a in merged {
            do {
                switch a.action {
                case .switchTenant(let c, let t): try owners.switched(c, to: t, at: a.at, path: "")
                case .logout(let c): try owners.switched(c, to: nil, at: a.at, path: "")
                case .create(let c, let e, _, _): owners.created(e, by: c)
                case .serverCreate(let e, _, _): owners.created(e, by: nil)
                case .bulkCreate(let c, _, _, _, _): for e in a.action.entities { owners.created(e, by: c) }
                default:
                    for e in a.action.entities { try owners.check(e, by: a.action.client, path: "") }
                    if case .type(let c, _, _, let text, let every) = a.action {
                        owners.typing(c, until: a.at + Int64(max(0, text.count - 1)) * every)
                    }
                }
                kept.append(a)
            } catch {
                continue
            }
        }
        actions = kept
    }
}
