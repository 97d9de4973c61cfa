/// Audited gaps in older oracles (issue 10, item 9), each a widening of an existing invariant:
///  - `nestedSubscriptionReyields` on link changes: a local link or unlink that changes the tree
///    of a subscription that includes that link must make it yield, as an edit of a child does.
///  - `queryOnceOfflineFails` on stale answers: a `queryOnce` answered on the spot, with no
///    round trip, while the device is online but cannot reach the server presents a possibly
///    stale local result as a fresh answer.
///  - `cachedSubscriptionOffline` at relaunch: the subscriptions an app holds are made again
///    when it relaunches (`Simulator.restart`); offline, with persistence on, each must yield
///    its cached result at once, and the yield must show a result (not a yield of nothing).
extension Monitor {
    /// A local link or unlink that changes the tree of a subscription including that link (both
    /// ends already in the result: the change is the client's to show) makes it yield.
    mutating func checkNestedLinks(_ c: ClientID, _ w: UserWrite, _ subs: [(SubscriptionID, Query)], rejectedNow: Bool, at t: Int64) {
        if rejectedNow { return }
        for (s, before) in beforeResults {
            guard let before, let q = subs.first(where: { $0.0 == s })?.1 else { continue }
            let l: LinkID
            switch q.include {
            case .forward(let x)?, .reverse(let x)?: l = x
            case nil: continue
            }
            for op in w.ops {
                let e: EntityID, target: EntityID, isLink: Bool
                switch op {
                case .link(let a, let b, let x) where b == l: (e, target, isLink) = (a, x, true)
                case .unlink(let a, let b, let x) where b == l: (e, target, isLink) = (a, x, false)
                default: continue
                }
                guard let rec = before.record(e), before.record(target) != nil, rec.points(l, at: target) != isLink else { continue }
                let yielded = toldDuringCommand.contains { if case .subscriptionYielded(s, _) = $0 { return true } else { return false } }
                if !yielded {
                    report(Violation(.nestedSubscriptionReyields, at: t, client: c, entity: e,
                                     "\(c) \(isLink ? "linked" : "unlinked") \(EntityRef(e, rec.namespace)) and #\(target.raw), which changes \(s)'s result tree (\(q)), and \(s) did not yield"))
                    return
                }
            }
        }
    }

    /// queryOnce answered at once while the server is unreachable (the device online).
    mutating func checkQueryOnceFresh(_ c: ClientID, _ r: QueryRequestID, unreachable: Bool, at t: Int64) {
        guard unreachable else { return }
        let answered = toldDuringCommand.contains { if case .queryOnceResult(r) = $0 { return true } else { return false } }
        if answered {
            report(Violation(.queryOnceOfflineFails, at: t, client: c,
                             "\(r) returned a result at once while \(c) could not reach the server: a possibly stale local result presented as fresh"))
        }
    }

    /// The subscription just made offline with persistence on and a cached result must show one.
    mutating func checkCachedYieldShows(_ c: ClientID, _ s: SubscriptionID, _ q: Query, shown: QueryResult?, at t: Int64) {
        if shown == nil {
            report(Violation(.cachedSubscriptionOffline, at: t, client: c,
                             "\(s) (\(q)) yielded while \(c) was offline, but shows no result, though one was cached"))
        }
    }
}

extension Monitor {
    /// The culprit of a violation an applied step caused: who (admin or a client) and what kind
    /// of step (`Violation.culprit`). Clients are not named: renumbering clients (the shrinker
    /// drops clients) keeps the same reason.
    static func culprit(_ origin: Origin, _ op: Op) -> String {
        let who: String
        switch origin {
        case .admin: who = "admin"
        case .client: who = "client"
        }
        let kind: String
        switch op {
        case .create: kind = "create"
        case .update: kind = "update"
        case .delete: kind = "delete"
        case .link: kind = "link"
        case .unlink: kind = "unlink"
        }
        return "\(who) \(kind)"
    }
}
