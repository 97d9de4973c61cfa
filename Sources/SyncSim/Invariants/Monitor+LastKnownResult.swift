/// `queryOnceOfflineFails`, second half: the last known result a failed `queryOnce` carries
/// (seed 000 §4.1: "Swift may attach a last known result payload … callers must treat it as
/// stale") must be a result the client knew — what it showed for that query, or held in its
/// cache — not data it made up. Judged like an offline yield of a cached subscription
/// (`checkCachedYieldIsCache`): every value in it is one the server's data held or the
/// client's own user wrote, and it keeps every root the client's last connected result for that
/// query had, unless that entity was deleted, left the query's filter, or never reached the
/// server.
extension Monitor {
    mutating func checkLastKnownResult(_ c: ClientID, _ r: QueryRequestID, _ q: Query, _ last: QueryResult,
                                       _ h: History, at t: Int64) {
        func own(_ i: Int32) -> Bool { h.intents[Int(i)].origin == .client(c) }
        if let (e, ns, f, v) = valueNobodyKnew(in: last, client: c, h) {
            report(Violation(.queryOnceOfflineFails, at: t, client: c, entity: e,
                             "\(r) (\(q)) failed offline with a last known result showing \(EntityRef(e, ns)).\(f.name) = \(v), a value the server never held and \(c) never wrote: not a result \(c) knew"))
            return
        }
        guard let i = cachedQueries[c.index].firstIndex(of: q) else { return }
        var missing: [EntityID] = []
        for e in cachedRoots[c.index][i] where !last.roots.contains(e) {
            if deleteIntents.contains(e) || deletedOnServer.contains(e) || (!serverHad.contains(e) && !initialData.contains(e)) { continue }
            if let f = q.filter {
                let k = Self.key(e, f.field)
                if let v = initialData[e]?[f.field], v != f.value { continue }
                if versions.holdsOther(than: f.value, k) { continue }
                if (writersOf[k] ?? []).contains(where: { own($0) && Self.value(of: h.intents[Int($0)], e, f.field) != f.value }) { continue }
            }
            missing.append(e)
        }
        if !missing.isEmpty {
            var u = UncachedRoots(client: c, entities: missing, time: t,
                                  text: "\(r) (\(q)) failed offline with a last known result without #",
                                  tail: ", which \(c)'s last result for that query had and nobody deleted or moved out of the query")
            u.invariant = .queryOnceOfflineFails
            uncachedRoots.append(u)
        }
    }
}
