/// A collection's server answer with its visible save transactions laid over it, kept from one
/// refresh to the next so a refresh lays over only what is new.
///
/// Why: a save transaction carries the whole collection as full entities, and every refresh of
/// every collection (after each write, save and server answer) rebuilt each view from its server
/// answer and re-applied every visible save's steps: most of `sharedDiff`'s time, growing with the
/// store times the number of saves in flight. The cache changes no result: it is reused only when
/// the view computed from scratch would apply the very same steps to the very same start.
///  - the server answer is the one the cache was built on (`==`, which is one pointer comparison
///    while the answer is the same value);
///  - the saves the cache laid over are, in order, a prefix of the saves now visible (their step
///    arrays compare equal, again by identity in practice);
///  - every `seen` lookup the laying over made (an entity a step needs and the store lacks, taken
///    from the collection that shows it) still gives the same answer.
/// Otherwise the overlay is rebuilt. The unsaved writes, few and changing on every write and
/// save, are laid over on top each time and rolled back with the store's undo log after the
/// evaluation.
struct SharedDiffOverlay {
    /// The server answer the overlay starts from.
    var base: QueryResult
    /// The steps of each save laid over, in order.
    var saves: [[InstantStep]] = []
    /// Each `seen` lookup the laying over made, in order, with its answer.
    var lookups: [(id: EntityID, record: EntityRecord?)] = []
    /// `base`'s entries with `saves` applied.
    var store: EntityStore
    /// The client's `shownVersion` when `lookups` were last known to hold: while it has not
    /// moved, no collection shows anything else, so they need no check.
    var verifiedAt: UInt64?

    init(base: QueryResult) {
        self.base = base
        store = EntityStore(entriesOf: base)
    }

    /// Whether the overlay can be extended into the one for `base` and the visible saves of
    /// `pending` (those the server answer at `processedTxID` does not reflect yet).
    func isPrefix(base: QueryResult, pending: [SharedDiffClient.SaveMutation], processedTxID: UInt64,
                  collections: [SharedDiffClient.Collection], shownVersion: UInt64? = nil) -> Bool {
        guard self.base == base else { return false }
        var k = 0
        for m in pending where SharedDiffClient.isVisible(m, above: processedTxID) {
            if k == saves.count { break }
            if saves[k] != m.steps { return false }
            k += 1
        }
        guard k == saves.count else { return false }
        if let v = shownVersion, verifiedAt == v { return true }
        for j in lookups.indices {
            if SharedDiffClient.seen(lookups[j].id, in: collections) != lookups[j].record { return false }
        }
        return true
    }
}

extension SharedDiffClient {
    /// Whether a save is laid over a server answer at `processedTxID`: not yet confirmed, or
    /// confirmed by a later transaction than the answer reflects.
    @inline(__always)
    static func isVisible(_ m: SaveMutation, above processedTxID: UInt64) -> Bool {
        m.txID.map { $0 > processedTxID } ?? true
    }

    /// `view(of:unlessEqualTo:collections:pending:unsaved:schema:)`, laying the visible saves over
    /// the collection's cached overlay (`overlay`, updated) instead of a fresh copy of its server
    /// answer. Gives the same result: see `SharedDiffOverlay`.
    /// `shownVersion` is the client's (nil: check every lookup).
    static func view(of c: Collection, overlay: inout SharedDiffOverlay?, shownVersion: UInt64? = nil,
                     unlessEqualTo shown: QueryResult?, collections: [Collection], pending: [SaveMutation],
                     unsaved: [UnsavedWrite], schema: Schema) -> QueryResult? {
        guard let base = c.server else {
            overlay = nil
            return shown == .empty ? nil : .empty
        }
        let anyVisible = pending.contains { isVisible($0, above: c.processedTxID) }
        if !anyVisible && unsaved.isEmpty {
            overlay = nil
            return shown == base ? nil : base
        }
        // Taken out of `overlay`, so `o` holds the only reference and its store changes in place.
        var o: SharedDiffOverlay
        if overlay?.isPrefix(base: base, pending: pending, processedTxID: c.processedTxID, collections: collections,
                             shownVersion: shownVersion) == true {
            o = overlay.take()!
        } else {
            overlay = nil
            o = SharedDiffOverlay(base: base)
        }
        var k = 0
        for m in pending where isVisible(m, above: c.processedTxID) {
            defer { k += 1 }
            if k < o.saves.count { continue }
            for s in m.steps {
                fill(s.op, in: &o.store, lookups: &o.lookups, collections: collections)
                applyStep(s.op, to: &o.store, schema: schema)
            }
            o.saves.append(m.steps)
        }
        var undo = EntityStore.UndoLog()
        for u in unsaved {
            for op in u.write.ops {
                fill(op, in: &o.store, undo: &undo, collections: collections)
                _ = o.store.apply(op, schema: schema, mode: .upsert, undo: &undo)
            }
        }
        let r = c.query.evaluate(o.store, unlessEqualTo: shown)
        o.store.rollBack(undo)
        // Every lookup was checked or made against what the collections show now.
        o.verifiedAt = shownVersion
        overlay = o
        return r
    }

    /// `store.apply(op, schema: schema, mode: .upsert)`, except that a delete finds the records
    /// linking to the entity by reading them in place: `EntityStore.removeReferences` binds each
    /// record of the store to test it (a retain and a release per array it owns), and a save of a
    /// partial collection carries a delete per tracked entity it does not show.
    static func applyStep(_ op: Op, to store: inout EntityStore, schema: Schema) {
        guard case .delete(let e, _) = op else {
            _ = store.apply(op, schema: schema, mode: .upsert)
            return
        }
        guard store.contains(e) else { return }
        store[e] = nil
        let referrers: [Int] = store.records.withUnsafeBufferPointer { rb in
            var out: [Int] = []
            for i in 0..<rb.count where rb[i]?.refers(to: e) == true { out.append(i) }
            return out
        }
        for i in referrers {
            let id = EntityID(UInt32(i))
            var r = store[id]!
            store[id] = nil
            r.removeLinks(to: e)
            store[id] = r
        }
    }

    /// The first half of `apply(_:to:collections:schema:)`: puts into `store` the entities `op`
    /// needs that it lacks, from the collections that show them, noting each lookup in `lookups`.
    static func fill(_ op: Op, in store: inout EntityStore, lookups: inout [(id: EntityID, record: EntityRecord?)],
                     collections: [Collection]) {
        func need(_ e: EntityID) {
            guard !store.contains(e) else { return }
            let r = seen(e, in: collections)
            lookups.append((e, r))
            if let r { store[e] = r }
        }
        switch op {
        case .update(let e, _, _), .unlink(let e, _, _): need(e)
        case .link(let e, _, let t): need(e); need(t)
        case .create, .delete: break
        }
    }

    /// `fill`, noting in `undo` what it puts.
    static func fill(_ op: Op, in store: inout EntityStore, undo: inout EntityStore.UndoLog, collections: [Collection]) {
        func need(_ e: EntityID) {
            if !store.contains(e), let r = seen(e, in: collections) { store.set(e, r, undo: &undo) }
        }
        switch op {
        case .update(let e, _, _), .unlink(let e, _, _): need(e)
        case .link(let e, _, let t): need(e); need(t)
        case .create, .delete: break
        }
    }
}
