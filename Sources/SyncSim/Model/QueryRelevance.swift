/// Which entities a change touched, and whether a query's result can have changed because of it.
///
/// Why: evaluating a query walks the whole store, so a server that re-evaluates its
/// subscriptions after every transaction (and a client that re-evaluates every view after every
/// write) pays for the whole store per event: a run's cost per event grew with its data. A
/// transaction touches a handful of entities; when none of them can be in the query's result
/// before or after, the result is the previous one and nothing needs evaluating. The test is
/// conservative (it may say "may change" when the result does not, never the reverse), so
/// skipping is always exact.

extension EntityStore {
    /// The entities whose slots the changes `undo` logged touched (changed, created or deleted,
    /// including the records whose links a delete cleared), in the order first touched, then
    /// the slots the changes appended. Read before `rollBack(_:)`.
    public func touched(by undo: UndoLog) -> [EntityID] {
        var out: [EntityID] = []
        out.reserveCapacity(undo.saved.count + max(0, records.count - max(0, undo.slots)))
        for k in 0..<undo.saved.count { out.append(EntityID(UInt32(undo.saved[k].index))) }
        if undo.slots >= 0 && records.count > undo.slots {
            for i in undo.slots..<records.count { out.append(EntityID(UInt32(i))) }
        }
        return out
    }
}

extension Query {
    /// Whether `evaluate(store)` can differ from `last`, given that `last` was this query's result
    /// over the store as it was before a change that touched only the entities in `touched`
    /// (`EntityStore.touched(by:)`). False means the result is exactly `last`.
    ///
    /// A result changes only through an entity that is in it before (it changed or left) or in
    /// it after (it joined). After the change, a touched entity is in the result as a root if it
    /// matches; as the child of a reverse include if its link points at a root (a root that is
    /// not touched was a root before, so is in `last`; a touched root is caught as a root). A
    /// forward include's child joins only when a root's link changed (the root is touched) or
    /// the child was created; since a store keeps no link to a missing entity that is rare, any
    /// touched entity of the included namespace counts as "may change" (conservative).
    ///
    /// The richer forms (`condition`, `limit`, an include tree deeper or wider than one level)
    /// take a coarser test, still exact-or-conservative: membership of the tree after the change
    /// is decided by the records' fields and links, and a link is stored in the record it starts
    /// from, so any entity that joins or leaves any level, or whose level changes, goes through
    /// a touched entity that was in `last` (it changed, left, or its links moved) or that could
    /// be in the result after (a root that passes the `where`, or any entity of a namespace
    /// the tree reaches). A limit only moves roots in or out through such an entity too: a root
    /// enters the window only when one in it left (in `last`) or a touched one now passes.
    public func mayChange(_ last: QueryResult, touched: [EntityID], in store: EntityStore, schema: Schema) -> Bool {
        if touched.isEmpty { return false }
        if !isBasic { return mayChangeRich(last, touched: touched, in: store, schema: schema) }
        let children = includedNamespace(in: schema)
        if include != nil, children == nil { return true }
        return store.records.withUnsafeBufferPointer { rb in
            for e in touched {
                if last.contains(e) { return true }
                let i = Int(e.raw)
                guard i < rb.count, let ns = rb[i]?.namespace else { continue }
                if ns == namespace {
                    if let f = filter { if rb[i]![f.field] == f.value { return true } } else { return true }
                }
                switch include {
                case .forward?:
                    if ns == children { return true }
                case .reverse(let l)?:
                    guard ns == children else { continue }
                    var hit = false
                    rb[i]!.forEachTarget(of: l) { t in
                        if hit { return }
                        let j = Int(t.raw)
                        guard j < rb.count, rb[j]?.namespace == namespace else { return }
                        if let f = filter { if rb[j]![f.field] == f.value { hit = true } } else { hit = true }
                    }
                    if hit { return true }
                case nil:
                    break
                }
            }
            return false
        }
    }
}

extension Query {
    /// `mayChange` for the richer forms (see there).
    func mayChangeRich(_ last: QueryResult, touched: [EntityID], in store: EntityStore, schema: Schema) -> Bool {
        for n in includes where !Self.valid(n, from: namespace, in: schema) { return true }
        let reached = reachedNamespaces(in: schema)
        return store.records.withUnsafeBufferPointer { rb in
            for e in touched {
                if last.contains(e) { return true }
                let i = Int(e.raw)
                guard i < rb.count, let ns = rb[i]?.namespace else { continue }
                if ns == namespace && passes(rb[i]!) { return true }
                if reached.contains(ns) { return true }
            }
            return false
        }
    }

    /// Whether every link of the subtree starts at the namespace its parent level reaches.
    static func valid(_ n: IncludeNode, from ns: NamespaceID, in schema: Schema) -> Bool {
        guard let to = n.reached(from: ns, in: schema) else { return false }
        return n.children.allSatisfy { valid($0, from: to, in: schema) }
    }
}
