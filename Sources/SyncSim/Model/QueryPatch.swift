/// Bringing a query's result up to date after a change by patching it, instead of evaluating
/// the query over the whole store again.
///
/// Why: a view over a namespace that grows (every todo) changes on most writes, so skipping
/// (`Query.mayChange`) does not help it, and evaluating it again walks every record of the store
/// and rebuilds every entry: the cost of one write grew with the data. Without an include, a
/// result is just the matching records in id order, so only the touched entities' entries can
/// change, each found by binary search.
extension Query {
    /// Makes `result`, this query's result over the store as it was before a change that touched
    /// only the entities in `touched` (`EntityStore.touched(by:)`), equal to `evaluate(store)`
    /// over the store after it, and returns whether it changed. Only for queries without an
    /// include (a child's membership depends on other records) and without a limit (a root
    /// that leaves lets an untouched one into the window); returns nil, leaving `result` alone,
    /// for the others. A `condition` is patched like the equality filter: membership of a root
    /// depends on its own record only.
    public func patch(_ result: inout QueryResult, touched: [EntityID], in store: EntityStore) -> Bool? {
        patch(&result, touched: touched, in: store, shared: false)
    }

    /// `patch(_:touched:in:)`; `shared`: the caller knows `result`'s entries are shared with
    /// another value (a server patching a copy of a result it keeps and has sent), so the first
    /// change copies them in a specialised loop (`QueryResult.unshareEntries()`) instead of
    /// through the standard library's generic copy on write (`QueryResult.ownEntries`).
    public func patch(_ result: inout QueryResult, touched: [EntityID], in store: EntityStore, shared: Bool) -> Bool? {
        guard includes.isEmpty, limit == nil else { return nil }
        var changed = false
        // Before the first change, entries the caller says are shared are copied once, in
        // `unshareEntries`' loop, with room for the inserts (`QueryResult.ownEntries`).
        var own = false
        // The digest, if known, is kept up to date term by term (`QueryResultDigest.swift`); the
        // entries are written through the storage, which does not forget it.
        var digest = result._digest
        store.records.withUnsafeBufferPointer { rb in
            for e in touched {
                let i = Int(e.raw)
                var matches = i < rb.count && rb[i]?.namespace == namespace
                if matches { matches = passes(rb[i]!) }
                // Lower bound of `e` in the entries (roots and entries are the same ids here).
                var lo = 0, hi = result._entries.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if result._entries[mid].id < e { lo = mid + 1 } else { hi = mid }
                }
                let present = lo < result._entries.count && result._entries[lo].id == e
                if matches {
                    if present {
                        if result._entries[lo].record != rb[i]! {
                            if !own { result.ownEntries(shared: shared, extra: touched.count); own = true }
                            if digest != nil {
                                digest! &-= QueryResult.entryTerm(e, result._entries[lo].record)
                                digest! &+= QueryResult.entryTerm(e, rb[i]!)
                            }
                            result._entries[lo].record = rb[i]!
                            changed = true
                        }
                    } else {
                        if !own { result.ownEntries(shared: shared, extra: touched.count); own = true }
                        result._entries.insert(QueryResult.Entry(id: e, record: rb[i]!), at: lo)
                        result._roots.insert(e, at: lo)
                        if digest != nil { digest! &+= QueryResult.entryTerm(e, rb[i]!) &+ QueryResult.rootTerm(e) }
                        changed = true
                    }
                } else if present {
                    if !own { result.ownEntries(shared: shared, extra: touched.count); own = true }
                    if digest != nil {
                        digest! &-= QueryResult.entryTerm(e, result._entries[lo].record) &+ QueryResult.rootTerm(result._roots[lo])
                    }
                    result._entries.remove(at: lo)
                    result._roots.remove(at: lo)
                    changed = true
                }
            }
        }
        result._digest = digest
        return changed
    }
}
