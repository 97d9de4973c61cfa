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
        if let (e, ns, f, v) = valueNobodyKnew(in: last, client: c, h) {
            report(Violation(.queryOnceOfflineFails, at: t, client: c, entity: e,
                             "\(r) (\(q)) failed offline with a last known result showing \(EntityRef(e, ns)).\(f.name) = \(v), a value the server never held and \(c) never wrote: not a result \(c) knew"))
            return
        }
        guard let i = cachedQueries[c.index].firstIndex(of: q) else { return }
        let missing = rootsMissingWithoutCause(cachedRoots[c.index][i].value(h), now: last, q, client: c, h)
        if !missing.isEmpty {
            var u = UncachedRoots(client: c, entities: missing, time: t,
                                  text: "\(r) (\(q)) failed offline with a last known result without #",
                                  tail: ", which \(c)'s last result for that query had and nobody deleted or moved out of the query")
            u.invariant = .queryOnceOfflineFails
            uncachedRoots.append(u)
        }
    }
}
