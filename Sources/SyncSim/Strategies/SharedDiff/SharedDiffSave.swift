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
    ///     (instaml `update`, which upserts), then its link as an id;
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
        // Elements of the due namespaces, then the closure over links within the collection.
        var sent: [EntityID] = view.entries.filter { c.saveDue.contains($0.record.namespace) }.map(\.id)
        var frontier = sent
        while let e = frontier.popLast() {
            guard let r = view.record(e) else { continue }
            var next: [EntityID] = []
            for l in schema.links(of: r.namespace) { for t in r.targets(l) where view.contains(t) { next.append(t) } }
            for entry in view.entries {
                for l in schema.links(of: entry.record.namespace) where entry.record.points(l, at: e) { next.append(entry.id) }
            }
            for n in next where !sent.contains(n) {
                sent.append(n)
                frontier.append(n)
            }
        }
        sent.sort()
        var links: [InstantStep] = []
        for e in sent {
            guard let r = view.record(e) else { continue }
            var fields: [FieldAssignment] = []
            for f in schema.fields(of: r.namespace) { if let v = r[f] { fields.append(FieldAssignment(f, v)) } }
            steps.append(InstantStep(.update(e, r.namespace, fields), upsert: true))
            for l in schema.links(of: r.namespace) { for t in r.targets(l) where view.contains(t) { links.append(InstantStep(.link(e, l, t), upsert: false)) } }
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
