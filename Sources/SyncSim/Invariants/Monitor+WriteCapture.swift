/// What `nestedSubscriptionReyields` needs to know of the results a client showed just before a
/// user's write, captured at `beforeCommand` and judged at `afterCommand`.
///
/// Why not the results themselves (as before): a result the monitor holds during the write is a
/// second reference to the client's storage, so the client's in-place patch of its view during
/// that very write copied the whole result (every entry retained), and releasing it after the
/// judgement freed the other copy: two walks of the result per write, growing with the store.
/// The verdict only needs, per subscription, the first step of the write that changes a child
/// (or, for a subscription including a link, a link) of the tree shown before: computed here,
/// from the same result, in the same order, so the reports are exactly those of the old checks.
/// (The subscriptions a client holds change only by the user's subscribe and unsubscribe, never
/// during a write, so the list read here is the one the old checks read afterwards.)
extension Monitor {
    /// The first step of the write that changes a child (not a root) of a subscription's tree
    /// shown before it: an update that assigns a value the child did not show, or a delete.
    struct NestedChange: Sendable {
        var subscription: SubscriptionID
        var entity: EntityID
        var namespace: NamespaceID
    }

    /// The first link or unlink of the write that changes a subscription's tree through the link
    /// its query includes (both ends shown before, and the link's state then the other way).
    struct NestedLinkChange: Sendable {
        var subscription: SubscriptionID
        var query: Query
        var entity: EntityID
        var target: EntityID
        var isLink: Bool
        var namespace: NamespaceID
    }

    /// Fills `nestedBefore` (and `nestedLinksBefore` when the schema has links) from what each of
    /// the client's subscriptions shows now, before write `w` is handled.
    mutating func captureNested<O: ObservedSystem>(_ c: ClientID, _ w: UserWrite, _ sim: O) {
        // (Asked first: `removeAll` of an empty list still calls into the runtime.)
        if !nestedBefore.isEmpty { nestedBefore.removeAll(keepingCapacity: true) }
        if !nestedLinksBefore.isEmpty { nestedLinksBefore.removeAll(keepingCapacity: true) }
        let links = schema.linkCount > 0
        let subs = sim.subscriptions(of: c)
        // By index, reading the ids alone: a `for (s, _) in subs` copied every query (a retain
        // and a release of each of its arrays) to read its id.
        for k in subs.indices {
            let s = subs[k].0
            guard let before = sim.shown(c, s) else { continue }
            if let x = Self.firstNestedChange(w, before) {
                nestedBefore.append(NestedChange(subscription: s, entity: x.entity, namespace: x.namespace))
            }
            // The query as the old check found it: the first subscription with this id.
            guard links else { continue }
            var f = 0
            while subs[f].0 != s { f += 1 }
            if let x = Self.firstLinkChange(w, subs[f].1, before) {
                nestedLinksBefore.append(NestedLinkChange(subscription: s, query: subs[f].1, entity: x.entity, target: x.target,
                                                          isLink: x.isLink, namespace: x.namespace))
            }
        }
    }

    /// The first step of `w` that changes a non-root entry of `before` (`checkNested`'s test).
    ///
    /// The steps and the entries are read where they lie (a `for op in w.ops` copied each step,
    /// and `before.entries[i].record` the record, per subscription per write).
    static func firstNestedChange(_ w: UserWrite, _ before: QueryResult) -> (entity: EntityID, namespace: NamespaceID)? {
        w.ops.withUnsafeBufferPointer { ops -> (entity: EntityID, namespace: NamespaceID)? in
            before.entries.withUnsafeBufferPointer { eb -> (entity: EntityID, namespace: NamespaceID)? in
                for k in 0..<ops.count {
                    let e = ops[k].entity
                    guard let i = before.index(of: e), !hasRoot(before, e) else { continue }
                    let changes: Bool
                    switch ops[k] {
                    case .update(_, _, let a): changes = a.contains { eb[i].record[$0.field] != $0.value }
                    case .delete: changes = true
                    default: changes = false
                    }
                    if changes { return (e, eb[i].record.namespace) }
                }
                return nil
            }
        }
    }

    /// The first link or unlink of `w` on the link `q` includes that changes `before`'s tree
    /// (`checkNestedLinks`'s test).
    static func firstLinkChange(_ w: UserWrite, _ q: Query, _ before: QueryResult)
        -> (entity: EntityID, target: EntityID, isLink: Bool, namespace: NamespaceID)? {
        let l: LinkID
        switch q.include {
        case .forward(let x)?, .reverse(let x)?: l = x
        case nil: return nil
        }
        for op in w.ops {
            let e: EntityID, target: EntityID, isLink: Bool
            switch op {
            case .link(let a, let b, let x) where b == l: (e, target, isLink) = (a, x, true)
            case .unlink(let a, let b, let x) where b == l: (e, target, isLink) = (a, x, false)
            default: continue
            }
            guard let i = before.index(of: e), before.contains(target),
                  before.entries[i].record.points(l, at: target) != isLink else { continue }
            return (e, target, isLink, before.entries[i].record.namespace)
        }
        return nil
    }
}
