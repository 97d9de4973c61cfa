/// What each `@Shared` collection holds, and how a user write changes it.
///
/// A collection's value is its last server answer, with every save transaction the server has not
/// yet reflected in that answer and every write not yet saved laid over it (the Reactor's
/// optimistic overlay, semantics §5), evaluated through the collection's query. So a partial
/// collection (filtered, or profiles reached through `posts with author`) shows only its part.
extension SharedDiffClient {
    /// The namespaces an op touches: a link changes its source and its target's reverse view.
    static func namespaces(of op: Op, in schema: Schema) -> [NamespaceID] {
        switch op {
        case .link(_, let l, _), .unlink(_, let l, _): return [schema.source(of: l), schema.target(of: l)]
        default: return [op.namespace(in: schema)]
        }
    }

    /// The entity as the user sees it in any collection (first in subscription order).
    func seen(_ e: EntityID) -> EntityRecord? { Self.seen(e, in: collections) }

    static func seen(_ e: EntityID, in collections: [Collection]) -> EntityRecord? {
        // Through the buffers, searching each value's entries where they are: reading
        // `collections[i].shown` copied the result (a retain and a release per array it owns)
        // for every collection asked, and so did `shown?.record(e)`.
        collections.withUnsafeBufferPointer { b in
            for i in 0..<b.count where !b[i].key.isOnce && b[i].shown != nil {
                let found: EntityRecord? = b[i].shown!.entries.withUnsafeBufferPointer { eb in
                    // `QueryResult.record`'s binary search (entries ascend by id).
                    var lo = 0, hi = eb.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if eb[mid].id == e { return eb[mid].record }
                        if eb[mid].id < e { lo = mid + 1 } else { hi = mid }
                    }
                    return nil
                }
                if let found { return found }
            }
            return nil
        }
    }

    /// `body` of the entry `seen(e, in: collections)` finds, read where it is (nil: no collection
    /// shows `e`).
    @inline(__always)
    static func withSeen<R>(_ e: EntityID, in collections: [Collection], _ body: (UnsafePointer<QueryResult.Entry>?) -> R) -> R {
        collections.withUnsafeBufferPointer { b in
            for i in 0..<b.count where !b[i].key.isOnce && b[i].shown != nil {
                let found: R? = b[i].shown!.entries.withUnsafeBufferPointer { eb in
                    var lo = 0, hi = eb.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if eb[mid].id == e { return body(eb.baseAddress! + mid) }
                        if eb[mid].id < e { lo = mid + 1 } else { hi = mid }
                    }
                    return nil
                }
                if let found { return found }
            }
            return body(nil)
        }
    }

    /// `@Shared` can only change an element of a collection the app holds: an update, delete or
    /// link needs the entity (and a link its target) in some collection; a create needs a
    /// collection whose roots are of its namespace. Returns what is missing, if anything.
    func unheld(_ w: UserWrite) -> String? {
        for op in w.ops {
            switch op {
            case .create(_, let ns, _):
                if !hasCollection(of: ns) { return "no \(ns.name) collection to insert into" }
            case .update(let e, let ns, _), .delete(let e, let ns):
                if seen(e) == nil { return "no collection holds \(EntityRef(e, ns))" }
            case .link(let e, let l, let t), .unlink(let e, let l, let t):
                guard schema.contains(l) else { return "link \(l.raw) is not in the schema" }
                if seen(e) == nil { return "no collection holds \(EntityRef(e, schema.source(of: l)))" }
                if seen(t) == nil { return "no collection holds \(EntityRef(t, schema.target(of: l)))" }
            }
        }
        return nil
    }

    /// Whether a subscribed collection with a value has roots of namespace `ns`. Read through
    /// the buffer: filtering the collections first copied every one (a retain and a release per
    /// array it and its overlay own) on every write.
    func hasCollection(of ns: NamespaceID) -> Bool {
        collections.withUnsafeBufferPointer { b in
            for i in 0..<b.count where !b[i].key.isOnce && b[i].shown != nil && b[i].query.namespace == ns { return true }
            return false
        }
    }

    /// A user write: mutate the collections (optimistically), then schedule `save()` for every
    /// collection that holds a namespace the write touches, each on its own short timer.
    mutating func write(_ w: UserWrite, out: inout ClientOutbox<InstantUp>) {
        if let why = unheld(w) {
            out(.event(.writeRejected(w.id, .invalid(why))))
            return
        }
        var touched: [NamespaceID] = []
        for op in w.ops { for ns in Self.namespaces(of: op, in: schema) where !touched.contains(ns) { touched.append(ns) } }
        var owedBy: [SubscriptionID] = []
        for i in collections.indices {
            guard let s = collections[i].subscription, collections[i].shown != nil else { continue }
            let due = touched.filter { collections[i].holds($0, in: schema) }
            if due.isEmpty { continue }
            owedBy.append(s)
            if collections[i].saveDue.isEmpty {
                out(.setTimer(Self.saveTimer(s), afterMs: Int64(random.int(in: saveDelayMs))))
            }
            for ns in due where !collections[i].saveDue.contains(ns) { collections[i].saveDue.append(ns) }
            collections[i].saveDue.sort()
            collections[i].saveWrites.append(w.id)
        }
        // `unheld` found a collection for every op, so some collection owes this write a save.
        unsaved.append(UnsavedWrite(write: w, owedBy: owedBy))
        var mixed = false
        for op in w.ops where claims.claim(op) { mixed = true }
        if mixed { claimsMixed() }
        refreshViews(out: &out)
    }

    /// Recomputes every subscribed collection and yields the ones that changed (a change anywhere
    /// in the result tree, children included, re-yields: seed 000 §3.5).
    ///
    /// The collections are moved out of the client for the loop and the views computed by static
    /// functions over the pieces they read: a non-mutating method called from here copied the
    /// whole client (a retain and a release per field) for every collection on every refresh.
    /// Each view still sees the collections before it already refreshed (`seen`), as before. The
    /// views are laid over each collection's cached overlay (`SharedDiffOverlay`): the same
    /// results, without re-applying every visible save on every refresh, without evaluating a
    /// view whose inputs did not move (`versions`), and judging the others only where the
    /// store changed.
    mutating func refreshViews(out: inout ClientOutbox<InstantUp>) {
        var cols: [Collection] = []
        swap(&cols, &collections)
        for i in cols.indices where !cols[i].key.isOnce {
            guard cols[i].server != nil else { continue }
            // The overlay changed where it is, in its box (`OverlaySlot`), taken for this
            // collection alone first if a copy of it shares the box.
            if !isKnownUniquelyReferenced(&cols[i].slot) { cols[i].slot = OverlaySlot(cols[i].slot.overlay) }
            let slot = cols[i].slot
            slot.overlay?.changedWithin = nil
            // Through the buffer: reading `cols[i]` as an argument copied the collection.
            let fresh = cols.withUnsafeBufferPointer { b in
                Self.view(server: b[i].server, processedTxID: b[i].processedTxID, query: b[i].query, overlay: &slot.overlay,
                          shownVersion: shownVersion, changes: seenChanges,
                          versions: (pendingVersion, unsavedVersion), unlessEqualTo: b[i].shown,
                          collections: cols, pending: pending, unsaved: unsaved, schema: schema, claims: claims)
            }
            // The slots the view can differ at, when the refresh knows them (a patched view of a
            // query without include or limit).
            let within = slot.overlay?.changedWithin.take()
            if let view = fresh {
                shownVersion &+= 1
                if let within {
                    seenChanges.note(from: cols[i].shown, to: view, at: shownVersion, within: within)
                } else {
                    seenChanges.note(from: cols[i].shown, to: view, at: shownVersion)
                }
                cols[i].shown = view
                out(.event(.subscriptionYielded(SubscriptionID(UInt32(cols[i].key.raw)), fromCache: cols[i].fromCache)))
            }
        }
        swap(&cols, &collections)
    }

    /// Server answer + save transactions not yet reflected in it + unsaved writes, through the
    /// query. Entities a write needs but the answer lacks (a link target, an element edited in
    /// another collection) are taken from the collection that shows them.
    func view(of c: Collection) -> QueryResult {
        Self.view(of: c, unlessEqualTo: nil, collections: collections, pending: pending, unsaved: unsaved, schema: schema)!
    }

    /// `view(of: c)` over the given state, or nil when that equals `shown` (told without building
    /// the result).
    static func view(of c: Collection, unlessEqualTo shown: QueryResult?, collections: [Collection],
                     pending: [SaveMutation], unsaved: [UnsavedWrite], schema: Schema) -> QueryResult? {
        guard let base = c.server else { return shown == .empty ? nil : .empty }
        let visible = pending.filter { $0.txID.map { $0 > c.processedTxID } ?? true }
        if visible.isEmpty && unsaved.isEmpty { return shown == base ? nil : base }
        var store = EntityStore(entriesOf: base)
        for m in visible { for s in m.steps { apply(s.op, to: &store, collections: collections, schema: schema) } }
        for u in unsaved { for op in u.write.ops { apply(op, to: &store, collections: collections, schema: schema) } }
        return c.query.evaluate(store, unlessEqualTo: shown)
    }

    /// Applies one step optimistically (upsert; a step that cannot apply is skipped, as the
    /// Reactor's optimistic store does).
    func apply(_ op: Op, to store: inout EntityStore) {
        Self.apply(op, to: &store, collections: collections, schema: schema)
    }

    static func apply(_ op: Op, to store: inout EntityStore, collections: [Collection], schema: Schema) {
        switch op {
        case .update(let e, _, _), .unlink(let e, _, _):
            if !store.contains(e), let r = seen(e, in: collections) { store[e] = r }
        case .link(let e, _, let t):
            if !store.contains(e), let r = seen(e, in: collections) { store[e] = r }
            if !store.contains(t), let r = seen(t, in: collections) { store[t] = r }
        case .create, .delete: break
        }
        _ = store.apply(op, schema: schema, mode: .upsert)
    }
}
