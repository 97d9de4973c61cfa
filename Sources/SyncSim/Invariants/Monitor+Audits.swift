/// Audited gaps in older oracles (issue 10, item 9), each a widening of an existing invariant:
///  - `nestedSubscriptionReyields` on link changes: a local link or unlink that changes the tree
///    of a subscription that includes that link must make it yield, as an edit of a child does.
///  - `queryOnceOfflineFails` on stale answers: a `queryOnce` answered on the spot, with no
///    round trip, while the device is online but cannot reach the server presents a possibly
///    stale local result as a fresh answer.
///  - `cachedSubscriptionOffline` at relaunch: the subscriptions an app holds are made again
///    when it relaunches (`Simulator.restart`); offline, with persistence on, each must yield
///    its cached result at once, and the yield must show a result (not a yield of nothing).
///  - `cachedSubscriptionOffline` checks the yield *is* the cached result
///    (`checkCachedYieldIsCache`). Not strict equality with the last result shown for the
///    query: a client's local copy legitimately moves ahead through its other queries (a
///    delete, a filter field changed, learned elsewhere). Instead, from the record only:
///    (1) every root of the last result a connected yield showed for the query is still a root,
///    unless someone asked to delete it, the server deleted it, the client's own transactions
///    delete it during the run (its local copy dropped it: judged at the end, and whether that
///    was asked for is `noGhostDeletion`'s question), or (filtered queries) its filter field ever took a
///    value outside the filter on the server or by the client's own write; (2) every field value
///    shown is one the server's data held for that field (initial data included) or the
///    client's own user wrote there: a cache holds nothing else.
extension Monitor {
    /// A local link or unlink that changes the tree of a subscription including that link (both
    /// ends already in the result: the change is the client's to show) makes it yield. (Which
    /// link step changes which tree was found before the write: `captureNested`.)
    mutating func checkNestedLinks(_ c: ClientID, rejectedNow: Bool, at t: Int64) {
        if rejectedNow { return }
        for x in nestedLinksBefore {
            let s = x.subscription
            let yielded = toldDuringCommand.contains { if case .subscriptionYielded(s, _) = $0 { return true } else { return false } }
            if !yielded {
                report(Violation(.nestedSubscriptionReyields, at: t, client: c, entity: x.entity,
                                 "\(c) \(x.isLink ? "linked" : "unlinked") \(EntityRef(x.entity, x.namespace)) and #\(x.target.raw), which changes \(s)'s result tree (\(x.query)), and \(s) did not yield"))
                return
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
    /// The offline yield shows the cache: its roots, and only values that exist somewhere.
    mutating func checkCachedYieldIsCache(_ c: ClientID, _ s: SubscriptionID, _ q: Query, _ r: QueryResult,
                                          cached: [EntityID], _ h: History, at t: Int64) {
        let missing = rootsMissingWithoutCause(cached, now: r, q, client: c, h)
        if !missing.isEmpty {
            // Judged at the end: a client whose own transactions delete the entity on the server
            // (during the run, before or after this yield) deleted it from its local copy, and
            // the cache reflects that copy. Whether that delete was asked for is
            // `noGhostDeletion`'s question, not this invariant's.
            uncachedRoots.append(UncachedRoots(client: c, entities: missing, time: t,
                                               text: "\(s) (\(q)) yielded offline without #", tail: ", which its cached result had and nobody deleted or moved out of the query"))
        }
        if let (e, ns, f, v) = valueNobodyKnew(in: r, client: c, h) {
            report(Violation(.cachedSubscriptionOffline, at: t, client: c, entity: e,
                             "\(s) (\(q)) yielded offline \(EntityRef(e, ns)).\(f.name) = \(v), a value the server never held and \(c) never wrote: not a cached result"))
        }
    }

    /// The roots of a result client `c` knew (`known`) that `now` lacks with no cause the
    /// history shows: not deleted (asked for, or applied by the server), once on the server, and
    /// not moved out of the query's one-equality filter by a value the server held or `c` wrote.
    /// Shared by the offline-yield audit and a failed `queryOnce`'s last known result.
    func rootsMissingWithoutCause(_ known: [EntityID], now: QueryResult, _ q: Query, client c: ClientID, _ h: History) -> [EntityID] {
        func own(_ i: Int32) -> Bool { h.intents[Int(i)].origin == .client(c) }
        var missing: [EntityID] = []
        for e in known where !now.roots.contains(e) {
            // Deleted (asked for, or applied by the server: the client may have learned it), or
            // never on the server (a create of the client's that may be refused).
            if deleteIntents.contains(e) || deletedOnServer.contains(e) || (!serverHad[Self.entityKey(e)] && !initialData.contains(e)) { continue }
            // A limit moves roots out of the window without any change to them, and a
            // condition over several fields or values has no single "other value" to look for:
            // for those queries the roots are not judged (only the values below).
            if q.limit != nil || q.condition != nil { continue }
            if let f = q.filter {
                let k = Self.key(e, f.field)
                if let v = initialData[e]?[f.field], v != f.value { continue }
                if versions.holdsOther(than: f.value, k) { continue }
                if writersOf[k].contains(where: { own($0) && Self.value(of: h.intents[Int($0)], e, f.field) != f.value }) { continue }
            }
            missing.append(e)
        }
        return missing
    }

    /// The first value in `r` that neither the server's data ever held nor client `c` ever
    /// wrote: what a result `c` could have known (its cache, its last answer) cannot show.
    /// Shared by the offline-yield audit and the failed `queryOnce`'s last known result.
    func valueNobodyKnew(in r: QueryResult, client c: ClientID, _ h: History) -> (EntityID, NamespaceID, FieldID, FieldValue)? {
        func own(_ i: Int32) -> Bool { h.intents[Int(i)].origin == .client(c) }
        for entry in r.entries {
            let e = entry.id
            for (fi, value) in entry.record.values.enumerated() {
                guard let v = value else { continue }
                let f = FieldID(UInt8(fi))
                let k = Self.key(e, f)
                if versions.range(of: v, k, initial: initialData[e]?[f]) != nil { continue }
                if writersOf[k].contains(where: { own($0) && Self.value(of: h.intents[Int($0)], e, f) == v }) { continue }
                return (e, entry.record.namespace, f, v)
            }
        }
        return nil
    }
}

extension Monitor {
    /// Roots an offline yield lacked, waiting for the end of the run (`finishCachedRoots`).
    struct UncachedRoots: Sendable {
        var client: ClientID
        var entities: [EntityID]
        var time: Int64
        var text: String
        var tail: String
        /// The invariant they break (a failed queryOnce's last known result: `Monitor+LastKnownResult`).
        var invariant: InvariantID = .cachedSubscriptionOffline
    }

    /// Reports the missing cached roots no delete by the client's own transactions explains.
    mutating func finishCachedRoots() {
        for u in uncachedRoots {
            guard let e = u.entities.first(where: { !deletedByClient[u.client.index].contains($0) }),
                  !tenantChangeHidesOwnDeletes(u.client, after: u.time) else { continue }
            report(Violation(u.invariant, at: u.time, client: u.client, entity: e, u.text + "\(e.raw)" + u.tail))
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
