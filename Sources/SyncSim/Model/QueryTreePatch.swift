/// Bringing the result of a query with one level of includes up to date after a change by
/// patching it (`Query.patch` does the queries without includes).
///
/// Why: `posts with author` and `profiles with posts` are most of the subscriptions a workload
/// makes, and each write of a post or a profile evaluated them again over the whole store, on
/// the server for every subscriber and on every client for its view: the cost of one write grew
/// with the data. A one-level tree changes only through the entities a change touched and the
/// ones whose place in the tree hangs on them, and those are found from the touched ones:
///  - a root is a root by its own record: only touched entities enter or leave the roots;
///  - a reverse child (`profiles with posts`: a post whose `author` is a root) hangs on its own
///    links and on its targets being roots: touched entities, and the entities linking to a
///    touched entity that became or stopped being a root;
///  - a forward child (`posts with author`: a root's author) hangs on the roots and their links:
///    the targets, before and after, of the touched entities that are or were roots (and
///    itself being created or deleted: touched).
/// Each of those candidates is then placed exactly as `evaluate` would place it, reading the
/// store after the change; every other entry keeps its place and its record.
extension Query {
    /// `patch(_:touched:in:)`, also for queries with one level of includes (any number of
    /// sibling includes without children). Nil, leaving `result` alone, for a limit or a deeper
    /// tree. The same precondition: `result` is this query's result over the store as it was
    /// before a change that touched only the entities in `touched`.
    public func patchTree(_ result: inout QueryResult, touched: [EntityID], in store: EntityStore) -> Bool? {
        patchTree(&result, touched: touched, in: store, shared: false)
    }

    /// `patchTree(_:touched:in:)`; `shared` as for `patch(_:touched:in:shared:)`.
    public func patchTree(_ result: inout QueryResult, touched: [EntityID], in store: EntityStore, shared: Bool) -> Bool? {
        if includes.isEmpty { return patch(&result, touched: touched, in: store, shared: shared) }
        guard limit == nil else { return nil }
        for node in includes where !node.children.isEmpty { return nil }
        var digest = result._digest
        var changed = false
        // Before the first change, entries the caller says are shared are copied once, in
        // `unshareEntries`' loop, with room for the inserts (`QueryResult.ownEntries`).
        var own = false
        store.records.withUnsafeBufferPointer { rb in
            let n = rb.count
            // Roots first: a root is one by its own record.
            var candidates: [Int] = []
            candidates.reserveCapacity(touched.count * 2)
            var rootChanged: [Int] = []
            for e in touched {
                let x = Int(e.raw)
                candidates.append(x)
                let now = isRoot(x, rb)
                let k = Self.lowerBound(e, result._roots)
                let was = k < result._roots.count && result._roots[k] == e
                if was || now {
                    // The targets of its forward links, before (its entry in the old result: a
                    // root is always in it) and after: their place may hang on this root.
                    for node in includes {
                        guard case .forward(let l) = node.link else { continue }
                        if was, let j = result.index(of: e) { Self.appendTargets(of: l, result._entries[j].record, to: &candidates) }
                        if now { Self.appendTargets(of: l, rb[x]!, to: &candidates) }
                    }
                }
                if was == now { continue }
                if now {
                    result._roots.insert(e, at: k)
                    if digest != nil { digest! &+= QueryResult.rootTerm(e) }
                } else {
                    result._roots.remove(at: k)
                    if digest != nil { digest! &-= QueryResult.rootTerm(e) }
                }
                rootChanged.append(x)
                changed = true
            }
            // Entities linking to a new or former root: their place under a reverse include
            // may change without them being touched.
            if !rootChanged.isEmpty {
                for node in includes {
                    guard case .reverse(let l) = node.link else { continue }
                    for j in 0..<n where rb[j]?.namespace != nil {
                        var hit = false
                        Self.forEachTarget(of: l, rb, j) { t in if !hit && rootChanged.contains(Int(t.raw)) { hit = true } }
                        if hit { candidates.append(j) }
                    }
                }
            }
            candidates.sort()
            // Per slot, whether a root's forward link reaches it: marked once, on the first
            // candidate that needs it, in one pass over the roots.
            var reached: [Bool]? = nil
            var last = -1
            for x in candidates where x != last {
                last = x
                let e = EntityID(UInt32(truncatingIfNeeded: x))
                let inTree = x < n && rb[x]?.namespace != nil
                    && (isRoot(x, rb) || isChild(x, rb, roots: result._roots, reached: &reached))
                let k = Self.lowerBound(e, result._entries)
                let present = k < result._entries.count && result._entries[k].id == e
                if inTree {
                    if present {
                        if result._entries[k].record != rb[x]! {
                            if !own { result.ownEntries(shared: shared, extra: candidates.count); own = true }
                            if digest != nil {
                                digest! &-= QueryResult.entryTerm(e, result._entries[k].record)
                                digest! &+= QueryResult.entryTerm(e, rb[x]!)
                            }
                            result._entries[k].record = rb[x]!
                            changed = true
                        }
                    } else {
                        if !own { result.ownEntries(shared: shared, extra: candidates.count); own = true }
                        result._entries.insert(QueryResult.Entry(id: e, record: rb[x]!), at: k)
                        if digest != nil { digest! &+= QueryResult.entryTerm(e, rb[x]!) }
                        changed = true
                    }
                } else if present {
                    if !own { result.ownEntries(shared: shared, extra: candidates.count); own = true }
                    if digest != nil { digest! &-= QueryResult.entryTerm(e, result._entries[k].record) }
                    result._entries.remove(at: k)
                    changed = true
                }
            }
        }
        result._digest = digest
        assert(result == evaluate(store), "patchTree disagrees with evaluate for \(self)")
        return changed
    }

    /// Whether slot `x` holds a root: of the namespace, passing the `where` (what `withFlags`
    /// marks as a root when there is no limit). Read in place.
    @inline(__always)
    func isRoot(_ x: Int, _ rb: UnsafeBufferPointer<EntityRecord?>) -> Bool {
        guard x >= 0, x < rb.count, rb[x]?.namespace == namespace else { return false }
        if let f = filter, rb[x]?[f.field] != f.value { return false }
        if let c = condition, !c.matches(rb[x]!) { return false }
        return true
    }

    /// Whether the existing entity in slot `x` is one link away from a root (`roots`, the roots
    /// over the store after the change) through one of the includes, as `reach` decides it.
    /// `reached`: the slots the roots' forward links reach, marked on first use.
    func isChild(_ x: Int, _ rb: UnsafeBufferPointer<EntityRecord?>, roots: [EntityID], reached: inout [Bool]?) -> Bool {
        for node in includes {
            switch node.link {
            case .forward:
                if reached == nil {
                    var marks = [Bool](repeating: false, count: rb.count)
                    for node in includes {
                        guard case .forward(let l) = node.link else { continue }
                        for r in roots {
                            Self.forEachTarget(of: l, rb, Int(r.raw)) { t in
                                if Int(t.raw) < marks.count { marks[Int(t.raw)] = true }
                            }
                        }
                    }
                    reached = marks
                }
                if reached![x] { return true }
            case .reverse(let l):
                var hit = false
                Self.forEachTarget(of: l, rb, x) { t in if !hit && isRoot(Int(t.raw), rb) { hit = true } }
                if hit { return true }
            }
        }
        return false
    }

    /// Calls `body` with the targets of `l` in slot `i` as `reach` reads them: the one-link slot
    /// if set, else the has-many set. Read in place.
    @inline(__always)
    static func forEachTarget(of l: LinkID, _ rb: UnsafeBufferPointer<EntityRecord?>, _ i: Int, _ body: (EntityID) -> Void) {
        guard i >= 0, i < rb.count else { return }
        if let t = rb[i]?[l] { body(t); return }
        let li = Int(l.raw)
        let m = rb[i]?.manyLinks.count ?? 0
        guard li < m else { return }
        for k in 0..<(rb[i]?.manyLinks[li].count ?? 0) {
            if let t = rb[i]?.manyLinks[li][k] { body(t) }
        }
    }

    /// Appends the slots of `r`'s targets of `l` (as `reach` reads them).
    @inline(__always)
    static func appendTargets(of l: LinkID, _ r: EntityRecord, to out: inout [Int]) {
        if let t = r[l] { out.append(Int(t.raw)); return }
        let li = Int(l.raw)
        guard li < r.manyLinks.count else { return }
        for t in r.manyLinks[li] { out.append(Int(t.raw)) }
    }

    /// The first position in `ids` (ascending) not below `e`.
    @inline(__always)
    static func lowerBound(_ e: EntityID, _ ids: [EntityID]) -> Int {
        var lo = 0, hi = ids.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ids[mid] < e { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first position in `entries` (ascending ids) not below `e`.
    @inline(__always)
    static func lowerBound(_ e: EntityID, _ entries: [QueryResult.Entry]) -> Int {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].id < e { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
