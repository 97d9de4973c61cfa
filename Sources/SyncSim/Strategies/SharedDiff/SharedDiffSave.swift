/// `save()`: a collection's value turned into a transaction by diffing it against what the client
/// believes the server has (seed 001 §"Problem 1", §"Problem 2", §"Problem 3").
extension SharedDiffClient {
    /// The tracked server id set of a namespace, shared by every collection of the client
    /// (SharingInstant's `StateTracker`): the ids of `ns` in the collections' latest server
    /// answers, cached ones included, ascending.
    func tracked(_ ns: NamespaceID) -> [EntityID] {
        var ids: [EntityID] = []
        for c in collections where !c.key.isOnce {
            guard let r = c.server else { continue }
            ids.append(contentsOf: r.ids(in: ns))
        }
        ids.sort()
        var out: [EntityID] = []
        for id in ids where out.last != id { out.append(id) }
        return out
    }

    /// The save transaction for a collection's current value:
    ///  1. for each due namespace N, every tracked id of N the collection does not show is deleted;
    ///  2. every shown element of N, and everything linked to it inside the collection (a post's
    ///     author, that author's posts, …), is sent as a full entity with the collection's values
    ///     (instaml `update`, which upserts), then its link as an id; a link the collection's
    ///     server answer has and its current value lacks is sent as an unlink (the element's link
    ///     field is nil, or a has-many array lost a member);
    ///  3. it carries the user writes (of those that scheduled this save) whose entities it sends
    ///     or deletes; a delete no user asked for carries no write.
    func saveSteps(for c: Collection) -> (steps: [InstantStep], writes: [WriteID]) {
        guard let view = c.shown else { return ([], []) }
        var deletes: [EntityID] = []
        var steps: [InstantStep] = []
        for ns in c.saveDue {
            for e in tracked(ns) where !view.contains(e) {
                deletes.append(e)
                steps.append(InstantStep(.delete(e, ns), upsert: false))
            }
        }
        // Elements of the due namespaces, then the closure over links within the collection
        // (either direction: a post's author, that author's posts, …).
        let inSent = linkClosure(of: view) { c.saveDue.contains($0.namespace) }
        var sent: [EntityID] = []
        for (k, e) in view.entries.enumerated() where inSent[k] { sent.append(e.id) }
        var links: [InstantStep] = []
        for e in sent {
            guard let r = view.record(e) else { continue }
            var fields: [FieldAssignment] = []
            for f in schema.fields(of: r.namespace) { if let v = r[f] { fields.append(FieldAssignment(f, v)) } }
            steps.append(InstantStep(.update(e, r.namespace, fields), upsert: true))
            let before = c.server?.record(e)
            for l in schema.links(of: r.namespace) {
                let now = r.targets(l)
                for t in now where view.contains(t) { links.append(InstantStep(.link(e, l, t), upsert: false)) }
                // A cardinality-one link replaced by another needs no unlink (the link replaces it).
                if !schema.isMany(l) && !now.isEmpty { continue }
                before?.forEachTarget(of: l) { t in
                    if !now.contains(t) { links.append(InstantStep(.unlink(e, l, t), upsert: false)) }
                }
            }
        }
        steps.append(contentsOf: links)
        var writes: [WriteID] = []
        for w in c.saveWrites {
            guard let u = unsaved.first(where: { $0.write.id == w }) else { continue }
            let reflected = u.write.ops.contains { op in
                op.isDelete ? deletes.contains(op.entity) : sent.contains(op.entity)
            }
            if reflected && !writes.contains(w) { writes.append(w) }
        }
        return (steps, writes)
    }

    /// Per entry of `view`: whether it is reachable from an entry `start` accepts by links inside
    /// the view, followed either way. A set (the order of discovery cannot matter), computed with
    /// an adjacency list in O(entries + links) instead of a scan of the view per element.
    func linkClosure(of view: QueryResult, _ start: (EntityRecord) -> Bool) -> [Bool] {
        let entries = view.entries
        let m = entries.count
        var slot = [Int32](repeating: -1, count: (entries.last.map { Int($0.id.raw) } ?? -1) + 1)
        for k in 0..<m { slot[Int(entries[k].id.raw)] = Int32(k) }
        var adjacent = [[Int32]](repeating: [], count: m)
        for k in 0..<m {
            let r = entries[k].record
            for l in schema.links(of: r.namespace) {
                r.forEachTarget(of: l) { t in
                    let i = Int(t.raw)
                    guard i < slot.count, slot[i] >= 0 else { return }
                    adjacent[k].append(slot[i])
                    adjacent[Int(slot[i])].append(Int32(k))
                }
            }
        }
        var reached = [Bool](repeating: false, count: m)
        var frontier: [Int32] = []
        for k in 0..<m where start(entries[k].record) { reached[k] = true; frontier.append(Int32(k)) }
        while let k = frontier.popLast() {
            for j in adjacent[Int(k)] where !reached[Int(j)] { reached[Int(j)] = true; frontier.append(j) }
        }
        return reached
    }

    /// The save timer of a collection fired: compute its transaction, queue it like a Reactor
    /// mutation, and send it if authenticated. An empty diff sends nothing.
    mutating func runSave(_ s: SubscriptionID, out: inout ClientOutbox<InstantUp>) {
        guard let i = collections.firstIndex(where: { $0.key == .subscription(s) }), !collections[i].saveDue.isEmpty else { return }
        let (steps, writes) = saveSteps(for: collections[i])
        collections[i].saveDue = []
        collections[i].saveWrites = []
        settleOwed(by: s)
        if !steps.isEmpty {
            let order = (pending.map(\.order).max() ?? 0) + 1
            let m = SaveMutation(eventID: random.next(), order: order, writes: writes, steps: steps, txID: nil)
            pending.append(m)
            pending.sort { ($0.order, $0.eventID) < ($1.order, $1.eventID) }
            persist(out: &out)
            if status == .authenticated && online { send(m, out: &out) }
        }
        refreshViews(out: &out)
    }
}
