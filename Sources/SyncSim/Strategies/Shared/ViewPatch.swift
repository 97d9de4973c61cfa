/// Bringing a client's subscription result up to date after its local view changed, by patching
/// the result where the change can reach instead of evaluating the query over the whole view.
///
/// Why: the `reference` and `pushPull` clients re-evaluated every affected subscription over the
/// whole local view after each write and each pull, so the cost of one event grew with the data
/// (x4 per event from 200 to 3,000 actions). `Query.patch` covers queries without an include;
/// this adds the one-level include (`posts with author`, `profiles with posts`) that the default
/// workload subscribes to, with the help of a reverse link index the caller keeps (which rows
/// link to an entity), and falls back to `Query.patch` or a full evaluation for the rest.
///
/// Exactness (the result must equal `query.evaluate(store)`, byte for byte, or a story would
/// change): `result` is the query's result over the view as it was before a change that touched
/// only the entities in `touched`; an entity's membership or record can change only if it is
/// a candidate:
///  - forward include (`posts` → `author`): every touched entity, and the link targets of every
///    touched root before (its record in `result`) and after. An entity that is none of these
///    kept its record, its root status, and the set of roots linking to it;
///  - reverse include (`profiles` ← `posts`): every touched entity, and the rows linking to a
///    touched entity whose root status changed. Any other row kept its record and its links,
///    and every target of its links kept its root status.
/// Each candidate's membership after the change is decided from the view alone: a root if it
/// matches; a child if it exists and a root's link (forward: found among its referrers) or its
/// own link (reverse) reaches it, read exactly as `Query.evaluate` reads links.
enum ViewPatch {
    /// Makes `result` equal to `query.evaluate(store)` (see the type's comment for what `result`
    /// and `touched` must be) and returns whether it changed; returns nil, leaving `result`
    /// alone, when the query is not one this patch handles or the change is so wide that one
    /// evaluation is cheaper (the caller then evaluates). `referrers(t)` must list at least
    /// every entity whose record in `store` links to `t` (by any link). The entries are edited
    /// in place: a caller that holds `result` once (the clients take it out of its
    /// `SubscriptionGroups` group) pays for what changed, not for a copy of the result.
    static func patch(_ query: Query, _ result: inout QueryResult, touched: [EntityID], in store: EntityStore,
                      schema: Schema, referrers: (EntityID) -> [EntityID]) -> Bool? {
        if touched.isEmpty { return false }
        // A wide change (a first pull, a reset) moves many entries: one pass over the store wins.
        if touched.count > 16 && touched.count * 8 > store.records.count { return nil }
        guard let include = query.include else {
            // `Query.patch` changes only the touched entities' entries (a query without an
            // include has no entry but its roots).
            return query.patch(&result, touched: touched, in: store)
        }
        guard query.isBasic else { return nil }
        let link: LinkID, forward: Bool
        switch include {
        case .forward(let l): link = l; forward = true
        case .reverse(let l): link = l; forward = false
        }
        guard schema.contains(link) else { return nil }
        return store.records.withUnsafeBufferPointer { rb -> Bool? in
            // Records are read in place (`rb[i]?.…`, `rb[i]!…`): binding one would copy it.
            func isRoot(_ j: Int) -> Bool {
                guard j < rb.count, rb[j]?.namespace == query.namespace else { return false }
                if let f = query.filter { return rb[j]![f.field] == f.value }
                return true
            }
            var candidates = touched
            for e in touched {
                let i = Int(e.raw)
                let wasRoot = Self.contains(result.roots, e)
                if forward {
                    if wasRoot {
                        let k = Self.lowerBound(result.entries.count) { result.entries[$0].id < e }
                        if k < result.entries.count && result.entries[k].id == e {
                            result.entries[k].record.forEachTarget(of: link) { candidates.append($0) }
                        }
                    }
                    if isRoot(i) { rb[i]!.forEachTarget(of: link) { candidates.append($0) } }
                } else if wasRoot != isRoot(i) {
                    candidates.append(contentsOf: referrers(e))
                }
            }
            if candidates.count > 16 && candidates.count * 8 > rb.count { return nil }
            candidates.sort()
            var roots: [EntityID] = []
            var entries: [QueryResult.Entry] = []
            // Taken out of `result` so that they are uniquely held and patched in place (and the
            // result is rebuilt through its initialiser, whatever it derives from them).
            swap(&roots, &result.roots)
            swap(&entries, &result.entries)
            var changed = false
            var last: EntityID?
            for e in candidates where e != last {
                last = e
                let j = Int(e.raw)
                let root = isRoot(j)
                var member = root
                if !member, j < rb.count, rb[j]?.namespace != nil {
                    if forward {
                        for r in referrers(e) where !member {
                            let i = Int(r.raw)
                            guard isRoot(i) else { continue }
                            rb[i]!.forEachTarget(of: link) { t in if t == e { member = true } }
                        }
                    } else {
                        rb[j]!.forEachTarget(of: link) { t in if !member && isRoot(Int(t.raw)) { member = true } }
                    }
                }
                var k = Self.lowerBound(entries.count) { entries[$0].id < e }
                let present = k < entries.count && entries[k].id == e
                if member {
                    if !present {
                        entries.insert(Self.entry(e, rb[j]!, like: entries.first), at: k)
                        changed = true
                    } else if entries[k].record != rb[j]! {
                        entries[k].record = rb[j]!
                        changed = true
                    }
                } else if present {
                    entries.remove(at: k)
                    changed = true
                }
                k = Self.lowerBound(roots.count) { roots[$0] < e }
                let rootPresent = k < roots.count && roots[k] == e
                if root != rootPresent {
                    if root { roots.insert(e, at: k) } else { roots.remove(at: k) }
                    changed = true
                }
            }
            result = QueryResult(roots: roots, entries: entries)
            return changed
        }
    }

    /// An entry of `e` with `record`. `QueryResult.Entry` has no public initialiser (and the
    /// built-in strategies use only the public API, as a user's strategy must): an existing
    /// entry is copied and rewritten, or, in an empty result, one is made by evaluating the
    /// namespace's query over a store of this record alone.
    static func entry(_ e: EntityID, _ record: EntityRecord, like template: QueryResult.Entry?) -> QueryResult.Entry {
        var x = template ?? Query(record.namespace).evaluate(EntityStore(slots: [record])).entries[0]
        x.id = e
        x.record = record
        return x
    }

    /// The first index in `0..<count` for which `before` is false (`before` is true on a prefix).
    @inline(__always) static func lowerBound(_ count: Int, _ before: (Int) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let m = (lo + hi) / 2
            if before(m) { lo = m + 1 } else { hi = m }
        }
        return lo
    }

    /// Whether the ascending `ids` holds `e` (binary search).
    @inline(__always) static func contains(_ ids: [EntityID], _ e: EntityID) -> Bool {
        let k = lowerBound(ids.count) { ids[$0] < e }
        return k < ids.count && ids[k] == e
    }
}
