/// What one list of the conflictPrompt client is drawn from, kept between redraws so a redraw
/// costs what changed, not what the list or the queue holds.
///
/// A list shows the query over its data: the server's last answer, the records held back for
/// pending entities, then every late confirmation's and every queued row's steps laid over it
/// (`ConflictPromptClient.overlay`). Building that from scratch on every change (the answer
/// copied into a store, the whole queue applied again, the query run over the result) made the
/// cost of one event grow with the store and with the queue, for every open list.
///
/// Instead the list keeps `under` (answer + holds) and `store` (`under` + the overlay) and, on a
/// redraw, finds the slots whose inputs changed: answer entries that differ (one merge walk of
/// the old and new answers), holds that came or went, `known` copies the overlay may have read,
/// and the steps of overlay chunks that left or arrived. Those slots are put back to `under`
/// and exactly the steps that touch them are replayed, in order, closing over the slots those
/// steps touch in turn. A step touches its entity (and a link's target, whose existence it
/// reads): it reads and writes nothing else, so every slot outside the closure went through
/// the same steps from the same value and holds what a rebuild would. A delete reads every
/// record (it clears links to its entity): it is replayed when its entity is dirty or a dirty
/// slot may link to it, and then every slot a delete cleared is laid again; if it would clear
/// a link outside the dirty slots, or a delete left the overlay, the whole overlay is replayed
/// over every slot it wrote. The query result is then patched where
/// slots changed (`Query.mayChange`, `Query.patchTree`, which patches one level of includes too). The result is exactly the rebuild's; the
/// render tests compare the two on every input of generated runs.
///
/// What a redraw reads of the overlay is kept small too: the chunks are compared only when the
/// client's overlay key (its count of queue and confirmation changes, and the answer's `asOf`)
/// differs from the one they were taken at; the search for the steps to replay walks a flat
/// table of the slots each step touches (`CPStepSlots`), spliced where chunks left or arrived,
/// and reads a step itself only to lay it; the answer walk tells unchanged records by their
/// storage. A queue that did not change costs nothing to redraw over.
struct CPListRender: Sendable {
    /// The server answer `under` holds.
    var base: QueryResult
    /// The held records laid over it.
    var holds: [ConflictPromptClient.Hold]
    /// `EntityStore(entriesOf: base)` with each hold's record set.
    var under: EntityStore
    /// `under` with the overlay laid over it.
    var store: EntityStore
    /// The overlay: each late confirmation's steps, then each queued row's, as last laid.
    var chunks: [[Op]]
    /// Where each chunk of `chunks` lives (`storageID`), in order: the search for the chunks
    /// that left or arrived compares these words first (`sameChunk`), with no reference counted.
    var chunkIDs: [UInt] = []
    /// The slots each step of `chunks` reads and writes, one per step in overlay order: the
    /// passes that find which steps to replay walk this flat table (no step copied, no
    /// reference counted), and fetch a step from `chunks` only to lay it.
    var steps: [CPStepSlots] = []
    /// The overlay's link steps (from, to), in order (what `mayLink` reads of the overlay).
    var links: [(from: EntityID, to: EntityID)] = []
    /// What identifies the overlay `chunks` was taken from (`Overlay.key`): the same key means
    /// the same chunks, so they are not compared again.
    var overlayKey: Overlay.Key?
    /// Every slot the overlay may have written (a superset): outside it, `store` is `under`.
    var written: CPSlotSet
    /// Every entity the overlay may have deleted (a superset).
    var deleted = CPSlotSet()
    /// Every slot whose links a delete of the overlay may have cleared (a superset).
    var cleared = CPSlotSet()
    /// The query's result over `store`.
    var eval: QueryResult
    /// Whether the list shows `eval` (otherwise it shows `base`: nothing is laid over it).
    var showsEval = false
    /// Whether the query over `base`'s own entries gives `base` back (nil: not known). A server
    /// answer normally does; then a list that shows `base` with nothing laid over it shows
    /// `eval`, and whether it changes when an overlay comes or goes is told by the patch,
    /// without comparing whole results.
    var fix: Bool?
    /// `update`'s working sets and lists (derived, never observable; `Scratch`).
    var scratch = Scratch()
    /// Whether `base`'s entries are strictly ascending by id (`diff` found so when it walked
    /// them): then a later `diff` from it may pass a block of entries whose bits equal `base`'s
    /// without comparing their ids, since they are the same ids in the same order.
    var ascending = false
    /// Answer entries `diff` passed over in blocks of equal bits (derived, never observable: a
    /// test reads it to tell that the shortcut still runs).
    var entriesPassed = 0
    /// Updates whose changed slots no overlay step reaches (`reachesNone`), so the passes over
    /// every step were skipped (derived, never observable: a test reads it to tell that the
    /// shortcut still runs).
    var replaysSkipped = 0

    /// What `update` works in, kept between redraws for its capacity and emptied after each
    /// use. An update made and freed each of these (a slot set's words and members, the answer's
    /// changed ids, the slots deletes wrote, the replay marks, the records before the replay):
    /// in a redraw that changes a slot or two, the allocations cost more than the work.
    struct Scratch: Sendable {
        var dirty = CPSlotSet()
        var lost = CPSlotSet()
        var underChanges: [EntityID] = []
        var extra: [EntityID] = []
        var selected: [Bool] = []
        var before: [EntityRecord?] = []

        /// Empties every buffer, keeping its capacity (and releasing the records held). Empty
        /// ones are left alone: emptying one costs a call and, for one never used, a new buffer.
        mutating func clear() {
            dirty.removeAll()
            lost.removeAll()
            if !underChanges.isEmpty { underChanges.removeAll(keepingCapacity: true) }
            if !extra.isEmpty { extra.removeAll(keepingCapacity: true) }
            if !selected.isEmpty { selected.removeAll(keepingCapacity: true) }
            if !before.isEmpty { before.removeAll(keepingCapacity: true) }
        }
    }

    /// The overlay's steps, chunk by chunk, without building an array of them.
    struct Overlay {
        /// The client's count of changes of its queue and confirmations, and the answer's
        /// `asOf` that chose the late confirmations: equal keys, equal overlays (nil: unknown).
        struct Key: Equatable {
            var epoch: UInt64
            var asOf: UInt64
        }

        let late: [ConflictPromptClient.Confirmed]
        let queue: [ConflictPromptClient.Entry]
        var key: Key? = nil
        var count: Int { late.count + queue.count }
        @inline(__always) subscript(i: Int) -> [Op] { i < late.count ? late[i].ops : queue[i - late.count].ops }
        var chunks: [[Op]] { (0..<count).map { self[$0] } }
        /// `storageID(self[i])`; a queued row's is kept in its payload.
        @inline(__always) func id(_ i: Int) -> UInt {
            if i < late.count { return CPListRender.storageID(late[i].ops) }
            return queue.withUnsafeBufferPointer { $0[i - late.count].payload.opsID }
        }
    }

    /// Where an array of steps lives (its storage's address). Two arrays alive at once with the
    /// same word share their storage, so they are equal (empty arrays all share one).
    @inline(__always)
    static func storageID(_ a: [Op]) -> UInt { a.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }


    /// Takes `overlay` as the chunks laid, with their step table.
    mutating func take(_ overlay: Overlay) {
        chunks = overlay.chunks
        chunkIDs = chunks.map { Self.storageID($0) }
        steps.removeAll(keepingCapacity: true)
        links.removeAll(keepingCapacity: true)
        appendSteps(of: overlay, from: 0)
        overlayKey = overlay.key
    }

    /// Replaces the chunks in `removed` by `overlay`'s chunks in `added` (both start at the
    /// same index: the common prefix before, the common suffix after), in `chunks` and in the
    /// step table: only the added chunks' steps are read; the rows after them move by the
    /// change in count.
    mutating func splice(removed: Range<Int>, added: Range<Int>, of overlay: Overlay) {
        let lo = Self.firstRow(of: steps, chunk: removed.lowerBound), hi = Self.firstRow(of: steps, chunk: removed.upperBound)
        var rows: [CPStepSlots] = []
        for i in added {
            let c = overlay[i]
            for j in 0..<c.count { rows.append(CPStepSlots(c[j], chunk: i, index: j)) }
        }
        steps.replaceSubrange(lo..<hi, with: rows)
        let delta = added.count - removed.count
        if delta != 0 {
            for k in (lo + rows.count)..<steps.count { steps[k].chunk += delta }
        }
        chunks.replaceSubrange(removed, with: added.map { overlay[$0] })
        chunkIDs.replaceSubrange(removed, with: added.map { overlay.id($0) })
        links.removeAll(keepingCapacity: true)
        for t in steps where t.isLink { links.append((t.entity, t.target)) }
        overlayKey = overlay.key
    }

    /// The first row of `steps` whose chunk is `chunk` or later (rows are in chunk order).
    /// (Static: a method called from a mutating one copied the whole render state.)
    static func firstRow(of steps: [CPStepSlots], chunk: Int) -> Int {
        var lo = 0, hi = steps.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if steps[mid].chunk < chunk { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Whether `steps` and `links` are what `chunks` gives (debug checks).
    var stepsMatchChunks: Bool {
        var n = 0, l = 0
        for i in chunks.indices {
            for j in chunks[i].indices {
                let row = CPStepSlots(chunks[i][j], chunk: i, index: j)
                guard n < steps.count, steps[n] == row else { return false }
                if row.isLink {
                    guard l < links.count, links[l] == (row.entity, row.target) else { return false }
                    l += 1
                }
                n += 1
            }
        }
        return n == steps.count && l == links.count && chunkIDs == chunks.map { Self.storageID($0) }
    }

    /// Adds the step table rows of `overlay`'s chunks from `first` on.
    mutating func appendSteps(of overlay: Overlay, from first: Int) {
        for i in first..<overlay.count {
            let c = overlay[i]
            for j in 0..<c.count {
                let row = CPStepSlots(c[j], chunk: i, index: j)
                if row.isLink { links.append((row.entity, row.target)) }
                steps.append(row)
            }
        }
    }

    /// Built from scratch.
    init(query: Query, base: QueryResult, holds: [ConflictPromptClient.Hold], overlay: Overlay, known: EntityStore, schema: Schema) {
        self.base = base
        self.holds = holds
        var u = EntityStore(entriesOf: base)
        for h in holds { u[h.entity] = h.record }
        under = u
        store = u
        chunks = []
        written = CPSlotSet()
        eval = .empty
        take(overlay)
        var extra: [EntityID] = []
        for c in chunks {
            for k in 0..<c.count { Self.lay(c[k], &store, known: known, schema: schema, written: &written, deleted: &deleted, cleared: &cleared, extra: &extra) }
        }
        eval = query.evaluate(store)
        var ignored: [EntityID] = []
        var none = 0
        let walked = Self.diff(QueryResult.empty.entries, base, query: query, into: &ignored, passed: &none)
        ascending = walked != nil
        fix = walked ?? nil
    }

    /// Whether `query.patch` follows `query` (then an entry depends on its own record only).
    static func patchable(_ query: Query) -> Bool { query.includes.isEmpty && query.limit == nil }

    /// Lays one step over `store` (`ConflictPromptClient.overlay`), adding what it wrote to
    /// `written` and, for a delete, its entity to `deleted`, the other slots it wrote to
    /// `cleared`, and every slot it wrote to `extra`.
    @inline(__always)
    static func lay(_ op: Op, _ store: inout EntityStore, known: EntityStore, schema: Schema,
                    written: inout CPSlotSet, deleted: inout CPSlotSet, cleared: inout CPSlotSet, extra: inout [EntityID]) {
        if case .delete(let e, _) = op {
            deleted.insert(e)
            var undo = EntityStore.UndoLog()
            _ = store.apply(op, schema: schema, mode: .upsert, undo: &undo)
            for x in store.touched(by: undo) {
                written.insert(x)
                if x != e { cleared.insert(x) }
                extra.append(x)
            }
            return
        }
        ConflictPromptClient.overlay(op, &store, known: known, schema: schema)
        written.insert(op.entity)
    }

    /// Calls `body` with each slot `op` reads or writes (its entity; a link's target too).
    /// Deletes are handled apart (they read every slot).
    @inline(__always)
    static func slots(of op: Op, _ body: (EntityID) -> Void) {
        body(op.entity)
        if case .link(_, _, let t) = op { body(t) }
    }

    /// What `update` found.
    struct Change {
        /// The slots of `store` whose record may have changed.
        var touched: [EntityID]
        /// Whether the new answer differs from the old (entries or roots).
        var baseChanged: Bool
    }

    /// Brings `store` (and `under`) up to the new inputs and returns what changed, or nil when
    /// an answer cannot be walked (entries not ascending): then the caller builds again.
    /// `knownChanged`: the slots of `known` changed since the last redraw.
    mutating func update(query: Query, base newBase: QueryResult, holds newHolds: [ConflictPromptClient.Hold], overlay: Overlay,
                         knownChanged: [EntityID], known: EntityStore, schema: Schema) -> Change? {
        // (The buffers are used where they lie, `scratch.…`: moving them out and back in cost a
        // destroy of the empty set left behind.)
        defer { scratch.clear() }
        // 1. Slots of `under` that change: answer entries that differ, holds that came, went or changed.
        let baseChanged = !Self.sameBuffers(base, newBase)
        var baseContentChanged = false
        if baseChanged {
            // (`base.roots` only when `base` is known strictly ascending: then the walk may pass
            // blocks of entries by their bits.)
            guard let f = Self.diff(base.entries, newBase, query: query, oldFix: fix, oldRoots: ascending ? base.roots : nil,
                                    into: &scratch.underChanges, passed: &entriesPassed) else { return nil }
            fix = f
            // (`newBase`, walked in full or by blocks equal to the ascending `base`, is ascending.)
            ascending = true
            baseContentChanged = !scratch.underChanges.isEmpty || base.roots != newBase.roots
        }
        let holdsChanged = !Self.sameHolds(holds, newHolds)
        if holdsChanged {
            for h in holds { scratch.underChanges.append(h.entity) }
            for h in newHolds { scratch.underChanges.append(h.entity) }
        }
        if baseChanged || holdsChanged {
            for x in scratch.underChanges where scratch.dirty.insert(x) {
                if let h = newHolds.last(where: { $0.entity == x }) {
                    under[x] = h.record
                } else {
                    under[x] = newBase.record(x)
                }
            }
            base = newBase
            holds = newHolds
        }
        // 2. `known` copies the overlay may have read: it reads one only for its own steps'
        //    entities (which `written` holds), when the store lacks the entity, so never for one
        //    the answer or a hold has unless the overlay deleted it.
        for x in knownChanged where written.contains(x) && (!under.contains(x) || deleted.contains(x)) { scratch.dirty.insert(x) }

        // 3. Overlay chunks that left or arrived: the common prefix and suffix stay. The same
        //    key as the last overlay's says they all stay, without comparing them.
        let oldCount = chunks.count, newCount = overlay.count
        var p = 0
        var s = 0
        if let k = overlayKey, k == overlay.key {
            // Debug builds (the tests) check that the key tells the truth.
            assert(chunks == overlay.chunks, "an overlay key named changed chunks")
            p = oldCount
        } else {
            // Chunk `i` is `overlay[j]` when their storage words are equal (the render holds its
            // chunks and the overlay its own, so equal words are one storage), else by value.
            chunkIDs.withUnsafeBufferPointer { ids in
                while p < oldCount && p < newCount && (ids[p] == overlay.id(p) || Self.same(chunks[p], overlay[p])) { p += 1 }
                while s < oldCount - p && s < newCount - p
                        && (ids[oldCount - 1 - s] == overlay.id(newCount - 1 - s) || Self.same(chunks[oldCount - 1 - s], overlay[newCount - 1 - s])) {
                    s += 1
                }
            }
        }
        let removed = p..<(oldCount - s), added = p..<(newCount - s)
        if scratch.dirty.isEmpty && removed.isEmpty && added.isEmpty {
            overlayKey = overlay.key
            return Change(touched: [], baseChanged: baseContentChanged)
        }
        if scratch.dirty.isEmpty && removed.isEmpty && s == 0 {
            // Only steps appended: laid over what is there.
            var touched: [EntityID] = []
            for i in added {
                let c = overlay[i]
                for k in 0..<c.count {
                    Self.lay(c[k], &store, known: known, schema: schema, written: &written, deleted: &deleted, cleared: &cleared, extra: &scratch.extra)
                    touched.append(c[k].entity)
                }
            }
            for i in added {
                chunks.append(overlay[i])
                chunkIDs.append(overlay.id(i))
            }
            appendSteps(of: overlay, from: added.lowerBound)
            overlayKey = overlay.key
            assert(stepsMatchChunks && chunks == overlay.chunks, "appended chunks or steps differ from the overlay")
            return Change(touched: touched + scratch.extra, baseChanged: baseContentChanged)
        }
        // A removed delete cleared links the overlay no longer clears: replay it all.
        var full = false
        for i in removed {
            for op in chunks[i] {
                if case .delete = op { full = true }
                Self.slots(of: op) { scratch.dirty.insert($0) }
            }
        }
        for i in added {
            for op in overlay[i] {
                Self.slots(of: op) { scratch.dirty.insert($0) }
            }
        }
        if !removed.isEmpty || !added.isEmpty { splice(removed: removed, added: added, of: overlay) } else { overlayKey = overlay.key }
        assert(stepsMatchChunks, "the step table does not describe the chunks")
        let total = steps.count
        // 4. Which steps to replay: the closure of the dirty slots. A delete reads every record
        //    (it clears the links to its entity), so it is replayed when its entity is dirty or
        //    a dirty slot may link to it (its record in `under` or `known` does, or a link step
        //    of the overlay sets such a link); it then writes its entity and every slot a delete
        //    cleared (what it cleared the last time may differ from what it clears now).
        // No step reachable from the dirty slots (the overlay unchanged, no delete in it, and no
        // step writing or linking to a dirty slot): nothing is replayed, and the passes over
        // every step, a queue's worth each with the queue long, are skipped.
        let replayNone = !full && removed.isEmpty && added.isEmpty && deleted.isEmpty
            && Self.reachesNone(scratch.dirty.members, written: written, links: links)
        if replayNone { replaysSkipped &+= 1 } else { scratch.selected.append(contentsOf: repeatElement(full, count: total)) }
        if !full && !replayNone {
            var grew = true
            while grew {
                grew = false
                for k in 0..<total where !scratch.selected[k] {
                    let t = steps[k]
                    if t.isDelete {
                        guard scratch.dirty.contains(t.entity) || Self.mayLink(scratch.dirty.members, to: t.entity, under: under, links: links, known: known) else { continue }
                        scratch.selected[k] = true
                        if scratch.dirty.insert(t.entity) { grew = true }
                        // What it cleared before is laid again from `under`.
                        for x in cleared.members where scratch.dirty.insert(x) { grew = true }
                        continue
                    }
                    guard scratch.dirty.contains(t.entity) || (t.isLink && scratch.dirty.contains(t.target)) else { continue }
                    scratch.selected[k] = true
                    if scratch.dirty.insert(t.entity) { grew = true }
                    if t.isLink && scratch.dirty.insert(t.target) { grew = true }
                }
            }
        }
        // 5. Put the dirty slots back to `under`, replay the selected steps in order. A replayed
        //    delete that clears a link outside the dirty slots makes it a full replay over every
        //    slot the overlay wrote (the slots it cleared are changed, their old records gone).
        replay: while true {
            if full {
                written.forEach { scratch.dirty.insert($0) }
                for t in steps {
                    scratch.dirty.insert(t.entity)
                    if t.isLink { scratch.dirty.insert(t.target) }
                }
                for k in scratch.selected.indices { scratch.selected[k] = true }
            }
            let members = scratch.dirty.members
            for n in 0..<members.count {
                if n >= scratch.before.count { scratch.before.append(store[members[n]]) }
                store[members[n]] = under[members[n]]
            }
            if full {
                written = CPSlotSet()
                deleted = CPSlotSet()
                cleared = CPSlotSet()
            }
            for k in 0..<(replayNone ? 0 : total) where scratch.selected[k] {
                let t = steps[k]
                let mark = scratch.extra.count
                Self.lay(chunks[t.chunk][t.index], &store, known: known, schema: schema, written: &written, deleted: &deleted, cleared: &cleared, extra: &scratch.extra)
                if !full && scratch.extra.count > mark {
                    var outside = false
                    for x in scratch.extra[mark...] where !scratch.dirty.contains(x) { outside = true }
                    if outside {
                        for x in scratch.extra where scratch.dirty.insert(x) {
                            scratch.lost.insert(x)
                            scratch.before.append(nil)
                        }
                        scratch.extra.removeAll(keepingCapacity: true)
                        full = true
                        continue replay
                    }
                }
            }
            break
        }
        var touched: [EntityID] = []
        for (n, x) in scratch.dirty.members.enumerated() where scratch.lost.contains(x) || !Self.holds(store, x, scratch.before, n) { touched.append(x) }
        for x in scratch.extra where !scratch.dirty.contains(x) { touched.append(x) }
        return Change(touched: touched, baseChanged: baseContentChanged)
    }

    /// Whether no step of the overlay touches one of `slots` (its entity, or a link's target),
    /// given that there is no delete among them: `written` holds every step's entity (each is
    /// added when a step is laid, and every step in the table was laid since `written` was last
    /// emptied), `links` every link step. Then the closure of `slots` selects no step.
    static func reachesNone(_ slots: [EntityID], written: CPSlotSet, links: [(from: EntityID, to: EntityID)]) -> Bool {
        for x in slots where written.contains(x) { return false }
        for l in links where slots.contains(l.to) { return false }
        return true
    }

    /// Whether one of `slots` may hold a link to `e` while the overlay is laid: links come
    /// only from the records in `under`, from `known` copies, and from link steps.
    /// (Static: a method called from `update` copied the whole render state per delete step.)
    static func mayLink(_ slots: [EntityID], to e: EntityID, under: EntityStore, links: [(from: EntityID, to: EntityID)], known: EntityStore) -> Bool {
        // (Read in place: `under[x]!` copied the record, a retain and a release per array.)
        let refers = under.records.withUnsafeBufferPointer { ub in
            known.records.withUnsafeBufferPointer { kb in
                for x in slots {
                    let i = Int(x.raw)
                    if i < ub.count, ub[i]?.refers(to: e) == true { return true }
                    if i < kb.count, kb[i]?.refers(to: e) == true { return true }
                }
                return false
            }
        }
        if refers { return true }
        for l in links where l.to == e && slots.contains(l.from) { return true }
        return false
    }

    /// `a == b`, told without a walk when both are the same storage (the usual case: a chunk is
    /// the queue row's own steps).
    @inline(__always)
    static func same(_ a: [Op], _ b: [Op]) -> Bool {
        if a.count != b.count { return false }
        if a.withUnsafeBufferPointer({ x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }) { return true }
        return a == b
    }

    /// Whether two results share their storage (then they are equal without a walk).
    static func sameBuffers(_ a: QueryResult, _ b: QueryResult) -> Bool {
        a.entries.withUnsafeBufferPointer { x in b.entries.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress && x.count == y.count } }
            && a.roots.withUnsafeBufferPointer { x in b.roots.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress && x.count == y.count } }
    }

    /// Entries `diff` passes with one bit comparison (`QueryResult.Entry.StorageWords.sameBits`).
    static let diffBlock = 16

    /// Appends to `out` every id whose entry differs between `old` and `new` (in one, or with
    /// another record). Nil when either is not strictly ascending by id. Otherwise whether
    /// `query` over `new`'s own entries gives `new` back, when one walk tells (a query
    /// `patch` follows: every entry matches and the roots are the entries), else nil.
    /// `oldFix`: the same of `old` (true: every entry of `old` matches, so an entry that did not
    /// change is not matched again). The walk reads both results in place and tells an
    /// unchanged record by its storage first, so an entry that did not change costs no
    /// reference counting.
    ///
    /// `oldRoots`: `old`'s roots, given only when `old` is known strictly ascending. Then blocks
    /// of `diffBlock` entries whose bits are the same in both (the server patches a bit-for-bit
    /// copy of its last answer, `QueryResult.copyBits`, so every untouched entry keeps its bits)
    /// are passed with one `memcmp` each: the same ids in the same order (so ascending, like
    /// `old`'s), records in the same box (so equal). The walk cost a few dozen instructions
    /// per entry of every answer a list received, most of a redraw once answers held hundreds
    /// of entries. While the answer is still known to be fixed (`oldFix` true and every entry so
    /// far matched), a block is passed only when its roots are `old`'s roots at the same places
    /// (then they are its entries' ids, as the entry-by-entry walk checks). `passed` counts the
    /// entries passed so. The result and `out` are the entry-by-entry walk's.
    static func diff(_ old: [QueryResult.Entry], _ newResult: QueryResult, query: Query, oldFix: Bool? = nil, oldRoots: [EntityID]? = nil,
                     into out: inout [EntityID], passed: inout Int) -> Bool?? {
        let new = newResult.entries
        let roots = newResult.roots
        var fix: Bool? = patchable(query) ? roots.count == new.count : nil
        let trusted = oldFix == true
        let words = oldRoots == nil ? nil : QueryResult.Entry.storageWords
        let oldRoots = oldRoots ?? []
        let block = Self.diffBlock
        return old.withUnsafeBufferPointer { ob in
            new.withUnsafeBufferPointer { nb in
                roots.withUnsafeBufferPointer { rb in
                    oldRoots.withUnsafeBufferPointer { orb -> Bool?? in
                        var i = 0, j = 0
                        while i < ob.count || j < nb.count {
                            if i > 0 && i < ob.count && !(ob[i - 1].id < ob[i].id) { return nil }
                            if j > 0 && j < nb.count && !(nb[j - 1].id < nb[j].id) { return nil }
                            if let words, i + block <= ob.count && j + block <= nb.count {
                                let o = ob.baseAddress.unsafelyUnwrapped, n = nb.baseAddress.unsafelyUnwrapped
                                let i0 = i
                                while i + block <= ob.count && j + block <= nb.count && words.sameBits(o + i, n + j, count: block)
                                        && (fix != true || (trusted && i + block <= orb.count
                                                            && Self.sameIDs(orb.baseAddress.unsafelyUnwrapped + i, rb.baseAddress.unsafelyUnwrapped + j, count: block))) {
                                    i += block
                                    j += block
                                }
                                if i != i0 {
                                    passed += i - i0
                                    continue
                                }
                            }
                            if j >= nb.count || (i < ob.count && ob[i].id < nb[j].id) {
                                out.append(ob[i].id)
                                i += 1
                                continue
                            }
                            let same = i < ob.count && ob[i].id == nb[j].id && Self.equal(ob[i].record, nb[j].record)
                            if fix == true && (rb[j] != nb[j].id || !((trusted && same) || query.matches(nb[j].record))) { fix = false }
                            if i >= ob.count || nb[j].id < ob[i].id {
                                out.append(nb[j].id)
                                j += 1
                            } else {
                                if !same { out.append(ob[i].id) }
                                i += 1
                                j += 1
                            }
                        }
                        return .some(fix)
                    }
                }
            }
        }
    }

    /// Whether `count` ids from `a` and from `b` are equal (one pass, no early exit: the blocks
    /// compared are short and almost always equal).
    @inline(__always)
    static func sameIDs(_ a: UnsafePointer<EntityID>, _ b: UnsafePointer<EntityID>, count: Int) -> Bool {
        var d: UInt32 = 0
        for t in 0..<count { d |= a[t].raw ^ b[t].raw }
        return d == 0
    }

    /// Whether `store[x]` equals `before[n]` (`before[n] == store[x]`), read in place: the
    /// optionals' `==` copied both records into a tuple, which the runtime destroys through its
    /// generic witnesses (several hundred instructions per slot of every redraw that replays).
    static func holds(_ store: EntityStore, _ x: EntityID, _ before: [EntityRecord?], _ n: Int) -> Bool {
        store.records.withUnsafeBufferPointer { sb in
            before.withUnsafeBufferPointer { bb in
                let i = Int(x.raw)
                return i < sb.count ? sameRecord(sb[i], bb[n]) : sameRecord(nil, bb[n])
            }
        }
    }

    /// `a == b` for two optional records, told by storage first (`equal`) and without the
    /// tuple of copies the optionals' `==` builds. (Nested switches: a switch over the pair
    /// builds that tuple too.)
    @inline(__always)
    static func sameRecord(_ a: EntityRecord?, _ b: EntityRecord?) -> Bool {
        switch a {
        case .none:
            switch b {
            case .none: return true
            case .some: return false
            }
        case .some(let x):
            switch b {
            case .none: return false
            case .some(let y): return equal(x, y)
            }
        }
    }

    /// `a == b` for two lists of held records (`Hold ==` compares the records as optionals,
    /// through a tuple of copies), told by storage first: the whole list, then each record.
    static func sameHolds(_ a: [ConflictPromptClient.Hold], _ b: [ConflictPromptClient.Hold]) -> Bool {
        if a.count != b.count { return false }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                if x.baseAddress == y.baseAddress { return true }
                for k in 0..<x.count {
                    guard x[k].entity == y[k].entity, sameRecord(x[k].record, y[k].record) else { return false }
                }
                return true
            }
        }
    }

    /// `a == b`, told without a walk when both are the same storage.
    @inline(__always)
    static func equal(_ a: EntityRecord, _ b: EntityRecord) -> Bool {
        ConflictPromptClient.sameStorage(a, b) || a == b
    }
}

/// The slots one overlay step reads and writes (`CPListRender.slots(of:)`: its entity, and a
/// link's target), whether it is a delete (which reads every slot), and where it is in the
/// overlay: plain data, so the passes over the overlay cost no reference counting.
struct CPStepSlots: Sendable, Equatable {
    var entity: EntityID
    /// A link's target (meaningful when `isLink`).
    var target: EntityID
    var isLink: Bool
    var isDelete: Bool
    var chunk: Int
    var index: Int

    init(_ op: Op, chunk: Int, index: Int) {
        entity = op.entity
        target = op.entity
        isLink = false
        isDelete = false
        switch op {
        case .link(_, _, let t):
            target = t
            isLink = true
        case .delete:
            isDelete = true
        default:
            break
        }
        self.chunk = chunk
        self.index = index
    }
}

/// A set of entity slots: a bit per id for membership, and the members in the order added.
struct CPSlotSet: Sendable {
    private var words: [UInt64] = []
    private(set) var members: [EntityID] = []

    var isEmpty: Bool { members.isEmpty }

    @inline(__always) func contains(_ x: EntityID) -> Bool {
        let w = Int(x.raw >> 6)
        return w < words.count && words[w] & (1 << UInt64(x.raw & 63)) != 0
    }

    /// Adds `x`; returns whether it was new.
    @discardableResult
    @inline(__always) mutating func insert(_ x: EntityID) -> Bool {
        let w = Int(x.raw >> 6)
        if w >= words.count { words.append(contentsOf: repeatElement(0, count: w - words.count + 1)) }
        let bit: UInt64 = 1 << UInt64(x.raw & 63)
        if words[w] & bit != 0 { return false }
        words[w] |= bit
        members.append(x)
        return true
    }

    func forEach(_ body: (EntityID) -> Void) { for x in members { body(x) } }

    /// Empties the set, keeping its storage: only the words its members set are cleared.
    mutating func removeAll() {
        if members.isEmpty { return }
        for x in members { words[Int(x.raw >> 6)] = 0 }
        members.removeAll(keepingCapacity: true)
    }
}
