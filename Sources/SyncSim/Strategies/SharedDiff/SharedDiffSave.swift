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

    /// `tracked(ns)` without the ids `own` has (in any namespace), ascending: the ids a save of
    /// `own` deletes. Marks by id instead of gathering, sorting and searching: one pass over the
    /// answers and one over `own`, where `tracked` sorted every answer's ids on every save.
    ///
    /// The marks are sized once and written through their buffer: a write per entry through the array
    /// checked its uniqueness and bounds each time, about 40% of a save's cost here (seed 1, swarm,
    /// 3,000 actions: 3 million uniqueness checks).
    func tracked(_ ns: NamespaceID, notIn own: QueryResult) -> [EntityID] {
        // By index through the buffer: `for c in collections` copied every collection (a retain
        // and a release per array it and its overlay own) on every save.
        collections.withUnsafeBufferPointer { cb in
            // Sized by each answer's last id (entries ascend by id); an answer with a larger id
            // elsewhere (ids not ascending) sizes them by every id instead.
            var n = 0
            for ci in 0..<cb.count where !cb[ci].key.isOnce && cb[ci].server != nil {
                if let last = cb[ci].server!.entries.last { n = max(n, Int(last.id.raw) + 1) }
            }
            if n == 0 { return [] }
            var mark = [Bool](repeating: false, count: n)
            var marked = 0
            var overflow = false
            mark.withUnsafeMutableBufferPointer { m in
                for ci in 0..<cb.count where !cb[ci].key.isOnce && cb[ci].server != nil {
                    cb[ci].server!.entries.withUnsafeBufferPointer { b in
                        for k in 0..<b.count where b[k].record.namespace == ns {
                            let i = Int(b[k].id.raw)
                            guard i < n else { overflow = true; continue }
                            if !m[i] { m[i] = true; marked += 1 }
                        }
                    }
                }
                own.entries.withUnsafeBufferPointer { b in
                    for k in 0..<b.count {
                        let i = Int(b[k].id.raw)
                        if i < n && m[i] { m[i] = false; marked -= 1 }
                    }
                }
            }
            if overflow { return trackedSorted(ns, notIn: own) }
            var out: [EntityID] = []
            if marked == 0 { return out }
            out.reserveCapacity(marked)
            mark.withUnsafeBufferPointer { m in
                for i in 0..<n where m[i] { out.append(EntityID(UInt32(i))) }
            }
            return out
        }
    }

    /// `tracked(ns, notIn: own)` by sorting and searching, for answers whose ids do not ascend.
    func trackedSorted(_ ns: NamespaceID, notIn own: QueryResult) -> [EntityID] {
        let shown = Set(own.entries.map(\.id))
        return tracked(ns).filter { !shown.contains($0) }
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
    ///
    /// With `traverseKnown` (seed 001 Problem 3 steps 1–6), the closure of step 2 runs over every
    /// entity the client knows — the values of all its collections, the saving one first — so
    /// saving a post re-sends its author and the author's whole `posts` array (and on the blog,
    /// their comments and the comments' authors), with whatever values the client has for them.
    /// The seed does not say how its `traverse()` ends on a cycle ("could potentially create
    /// infinite loops", Unknown unknowns 3): a walk of embedded objects without a visited set
    /// would not end (post → author → posts → post …). Here each entity is sent once per save
    /// (a visited set), so a save is at most every known entity: large, but finite.
    func saveSteps(for c: Collection) -> (steps: [InstantStep], writes: [WriteID]) {
        var cache = SharedDiffStepCache()
        return saveSteps(for: c, cache: &cache)
    }

    /// `saveSteps(for:)`, taking each element's update step from `cache` when it was built from
    /// the same values (`SharedDiffStepCache`), and reading the collection's server answer in
    /// place, in step with the elements (both ascend by id), instead of searching it and copying
    /// the record per element.
    func saveSteps(for c: Collection, cache: inout SharedDiffStepCache) -> (steps: [InstantStep], writes: [WriteID]) {
        saveSteps(shown: c.shown, saveDue: c.saveDue, server: c.server, saveWrites: c.saveWrites, cache: &cache)
    }

    /// `saveSteps(for:cache:)` of the collection with these parts: the only ones a save reads,
    /// passed alone so `runSave` can read them where the collection lies (passing the whole
    /// collection copied it, a retain and a release per array it and its overlay own).
    func saveSteps(shown: QueryResult?, saveDue: [NamespaceID], server: QueryResult?, saveWrites: [WriteID],
                   cache: inout SharedDiffStepCache) -> (steps: [InstantStep], writes: [WriteID]) {
        guard let own = shown else { return ([], []) }
        let view = traverseKnown ? known(preferring: own) : own
        var deletes: [EntityID] = []
        var steps: [InstantStep] = []
        for ns in saveDue {
            for e in tracked(ns, notIn: own) {
                deletes.append(e)
                steps.append(InstantStep(.delete(e, ns), upsert: false))
            }
        }
        // Elements of the due namespaces, then the closure over links within the collection
        // (either direction: a post's author, that author's posts, …).
        // Without `traverseKnown` the view is `own`, so every entry is one of its elements: the
        // search of `own` per entry (a binary search through a copy of the result) is left out.
        let inSent = traverseKnown
            ? linkClosure(of: view) { id, r in saveDue.contains(r.namespace) && own.contains(id) }
            : linkClosure(of: view) { _, r in saveDue.contains(r.namespace) }
        var sent: [EntityID] = []
        var links: [InstantStep] = []
        // Reserved: a save sends about every element, and growing the arrays step by step
        // reallocated and copied them (a retain per step moved) several times per save.
        sent.reserveCapacity(view.entries.count)
        steps.reserveCapacity(steps.count + view.entries.count)
        // The entries sent, in id order, read where they are: looking each up again by id, and
        // building an array of each link's targets, cost a search and an allocation per link.
        let entries = view.entries
        let before = server?.entries ?? []
        let recordOffset = SharedDiffStepCache.recordOffset
        entries.withUnsafeBufferPointer { eb in
            before.withUnsafeBufferPointer { bb in
                // The server answer's entry for the element (`server?.record(e)`), found by
                // walking the answer alongside the elements.
                var j = 0
                for k in 0..<eb.count where inSent[k] {
                    let e = eb[k].id
                    sent.append(e)
                    steps.append(cache.updateStep(eb.baseAddress.unsafelyUnwrapped + k, recordOffset: recordOffset, schema: schema))
                    while j < bb.count && bb[j].id < e { j += 1 }
                    let had = j < bb.count && bb[j].id == e
                    for l in schema.links(of: eb[k].record.namespace) {
                        // What `r.targets(l)` lists: the cardinality-one target if set, else the set.
                        let i = Int(l.raw)
                        let one: EntityID? = i < eb[k].record.links.count ? eb[k].record.links[i] : nil
                        eb[k].record.forEachTarget(of: l) { t in
                            if view.contains(t) { links.append(InstantStep(.link(e, l, t), upsert: false)) }
                        }
                        let none = one == nil && !(i < eb[k].record.manyLinks.count && !eb[k].record.manyLinks[i].isEmpty)
                        // A cardinality-one link replaced by another needs no unlink (the link replaces it).
                        if !schema.isMany(l) && !none { continue }
                        guard had else { continue }
                        bb[j].record.forEachTarget(of: l) { t in
                            let kept = one.map { $0 == t } ?? (i < eb[k].record.manyLinks.count && eb[k].record.manyLinks[i].contains(t))
                            if !kept { links.append(InstantStep(.unlink(e, l, t), upsert: false)) }
                        }
                    }
                }
            }
        }
        steps.append(contentsOf: links)
        var writes: [WriteID] = []
        for w in saveWrites {
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
        linkClosure(of: view) { _, r in start(r) }
    }

    /// As above, starting from the entries whose id and record `start` accepts. The entries
    /// reached are those whose component (entries joined by a link inside the view, either way)
    /// holds an accepted one: found with a union-find over the links, in one pass and without
    /// an adjacency list per entry (an allocation per linked entry on every save).
    ///
    /// When every entry starts, or none does, that is the answer, told without the union-find:
    /// a save of a collection without includes starts from all its elements (the slot table and
    /// the walk over every link cost as much as the rest of the save).
    func linkClosure(of view: QueryResult, _ start: (EntityID, EntityRecord) -> Bool) -> [Bool] {
        view.entries.withUnsafeBufferPointer { b in
            let m = b.count
            guard m > 0 else { return [] }
            var starts = [Bool](repeating: false, count: m)
            var count = 0
            for k in 0..<m where start(b[k].id, b[k].record) { starts[k] = true; count += 1 }
            if count == 0 || count == m { return starts }
            var slot = [Int32](repeating: -1, count: Int(b[m - 1].id.raw) + 1)
            for k in 0..<m { slot[Int(b[k].id.raw)] = Int32(k) }
            var parent = [Int32](repeating: 0, count: m)
            for k in 0..<m { parent[k] = Int32(k) }
            func find(_ x: Int) -> Int {
                var x = x
                while Int(parent[x]) != x {
                    parent[x] = parent[Int(parent[x])]
                    x = Int(parent[x])
                }
                return x
            }
            for k in 0..<m {
                for l in schema.links(of: b[k].record.namespace) {
                    b[k].record.forEachTarget(of: l) { t in
                        let i = Int(t.raw)
                        guard i < slot.count, slot[i] >= 0 else { return }
                        let x = find(k), y = find(Int(slot[i]))
                        if x != y { parent[x] = Int32(y) }
                    }
                }
            }
            var hit = [Bool](repeating: false, count: m)
            for k in 0..<m where starts[k] { hit[find(k)] = true }
            var reached = [Bool](repeating: false, count: m)
            for k in 0..<m where hit[find(k)] { reached[k] = true }
            return reached
        }
    }

    /// Every entity the client's collections show, each once in id order, with the value of the
    /// first collection (`first`, then the others in order) that shows it: what the app's
    /// embedded objects can reach.
    func known(preferring first: QueryResult) -> QueryResult {
        var entries = first.entries
        for c in collections where !c.key.isOnce {
            guard let r = c.shown else { continue }
            for e in r.entries where !first.contains(e.id) { entries.append(e) }
        }
        entries.sort { $0.id < $1.id }
        var out: [QueryResult.Entry] = []
        out.reserveCapacity(entries.count)
        for e in entries where out.last?.id != e.id { out.append(e) }
        return QueryResult(roots: first.roots, entries: out)
    }

    /// The transactions one save sends: the whole save when saves are atomic; otherwise one per
    /// step (seed 001 Unknown unknowns 4: "operations that might partially succeed"), so one
    /// step can be refused (an upsert of an id the server holds in another namespace, a link to
    /// an entity deleted meanwhile) while the others apply. Each step carries the writes among
    /// `writes` with an operation it sends (a create or update of its entity for an update step,
    /// the same delete, link or unlink otherwise): a write is confirmed by a step that sent it,
    /// and rejected when every step that sent it failed, so what the user is told stays true
    /// per write. Steps no write asked for (traversed entities, diff deletes) carry none.
    func saveTransactions(_ steps: [InstantStep], _ writes: [WriteID]) -> [(steps: [InstantStep], writes: [WriteID])] {
        if atomicSaves || steps.count <= 1 { return [(steps, writes)] }
        func sends(_ s: Op, _ op: Op) -> Bool {
            switch (s, op) {
            case (.update(let e, _, _), .create(let x, _, _)), (.update(let e, _, _), .update(let x, _, _)): return e == x
            default: return s == op
            }
        }
        func ops(_ w: WriteID) -> [Op] { unsaved.first(where: { $0.write.id == w })?.write.ops ?? [] }
        var out: [(steps: [InstantStep], writes: [WriteID])] = steps.map { s in
            ([s], writes.filter { w in ops(w).contains { sends(s.op, $0) } })
        }
        // A write the save reflects but no step sends (a link to an entity the collection does
        // not show) goes with its entity's steps, as it does in an atomic save: told, not lost.
        for w in writes where !out.contains(where: { $0.writes.contains(w) }) {
            let es = ops(w).map(\.entity)
            var placed = false
            for k in out.indices where es.contains(out[k].steps[0].op.entity) { out[k].writes.append(w); placed = true }
            if !placed { out[0].writes.append(w) }
        }
        return out
    }

    /// The save timer of a collection fired: compute its transaction, queue it like a Reactor
    /// mutation, and send it if authenticated. An empty diff sends nothing.
    mutating func runSave(_ s: SubscriptionID, out: inout ClientOutbox<InstantUp>) {
        guard let i = collections.firstIndex(where: { $0.key == .subscription(s) }), !collections[i].saveDue.isEmpty else { return }
        // The collection's step cache, taken out while the save reads the collections.
        var cache = SharedDiffStepCache()
        swap(&cache, &collections[i].stepCache)
        // The collection's parts read through the buffer (`saveSteps(shown:...)`).
        let (steps, writes) = collections.withUnsafeBufferPointer { b in
            saveSteps(shown: b[i].shown, saveDue: b[i].saveDue, server: b[i].server, saveWrites: b[i].saveWrites, cache: &cache)
        }
        swap(&cache, &collections[i].stepCache)
        // Split before `settleOwed`, which may forget the writes whose entities it reads.
        let transactions = steps.isEmpty ? [] : saveTransactions(steps, writes)
        collections[i].saveDue = []
        collections[i].saveWrites = []
        settleOwed(by: s)
        if !steps.isEmpty {
            // Each transaction ordered after every pending one and the ones before it, and queued
            // at once: `pending`'s observer rebuilds `pendingWrites` on every change, so appending
            // one transaction at a time (a non-atomic save makes one per step) was quadratic.
            var made: [SaveMutation] = []
            var order = pending.map(\.order).max() ?? 0
            for t in transactions {
                order += 1
                made.append(SaveMutation(eventID: random.next(), order: order, writes: t.writes, steps: t.steps, txID: nil))
            }
            pending.append(contentsOf: made)
            pending.sort { ($0.order, $0.eventID) < ($1.order, $1.eventID) }
            persist(out: &out)
            if status == .authenticated && online { for m in made { send(m, out: &out) } }
        }
        refreshViews(out: &out)
    }
}
