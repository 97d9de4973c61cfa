/// A collection's server answer with its visible save transactions laid over it, kept from one
/// refresh to the next so a refresh does only the work of what changed.
///
/// Why: a save transaction carries the whole collection as full entities, and every refresh of
/// every collection (after each write, save and server answer) rebuilt each view from its server
/// answer, re-applied every visible save's steps and evaluated the query over the whole store:
/// most of `sharedDiff`'s time, growing with the store times the number of saves in flight. The
/// cache changes no result. The laid-over store is extended only when the view computed from
/// scratch would apply the very same steps to the very same start:
///  - the server answer is the one the cache was built on (`==`, which is one pointer comparison
///    while the answer is the same value);
///  - the saves the cache laid over are, in order, a prefix of the saves now visible (their step
///    arrays compare equal, again by identity in practice);
///  - every `seen` lookup the laying over made (an entity a step needs and the store lacks, taken
///    from the collection that shows it) still stands (`stands`: the same answer, or one that
///    differs only where the update needing it writes); only the lookups of entities whose
///    shown records changed since they were last checked are checked (`SharedDiffSeenChanges`).
/// Otherwise the store is rolled back to its answer (`dirty`: the only slots the saves changed),
/// brought to the new answer where the two differ, and the visible saves laid over again (an
/// overlay is kept while no save is visible, for the next one, rather than rebuilt). A step
/// that would write nothing (most of them: a save re-sends its whole collection) is passed over
/// in one pass reading the store in place, without being copied, applied or noted
/// (`firstEffective`, `SharedDiffSkippedSteps.swift`; `SharedDiffClient.changesNothing` for the
/// steps laid), and a delete finds the records linking to its entity without reading the whole
/// store (`delete`). The
/// unsaved writes, few and changing on every write and save, are laid over on top each time and
/// rolled back with the store's undo log after the evaluation. Every slot any of this changes
/// is noted, so the query is re-judged only where it can change (`Query.mayChange`,
/// `Query.patchTree`) instead of evaluated over the whole store; and a refresh whose inputs did not
/// move at all evaluates nothing (`Evaluation`).
struct SharedDiffOverlay {
    /// The server answer the overlay starts from.
    var base: QueryResult
    /// The steps of each save laid over, in order.
    var saves: [[InstantStep]] = []
    /// Per save laid (as `saves`), the positions of its steps that were not passed over: the
    /// only ones a laying of it again can have to apply (`relay`).
    var acting: [[Int32]] = []
    /// Each `seen` lookup the laying over made, in order, with its answer.
    var lookups: [Lookup] = []
    /// Per entity, the position in `lookups` of its last lookup (-1: none), and per lookup the
    /// position of the entity's lookup before it: finds the lookups of the entities changed
    /// since `verifiedAt` (`SharedDiffSeenChanges`) without reading every lookup.
    var lookupLast: [Int32] = []
    var lookupPrevious: [Int32] = []
    /// `base`'s entries with `saves` applied.
    var store: EntityStore
    /// The slots of `store` the saves changed, each once (`store` holds `base`'s entries
    /// everywhere else), and a flag per slot saying whether it is listed.
    var dirty: [Int] = []
    var isDirty: [Bool] = []
    /// Per slot, the refresh (`generation`) that last listed it as touched: lists each slot once
    /// without sorting or clearing.
    var stamp: [UInt32] = []
    var generation: UInt32 = 0
    /// The client's `shownVersion` when `lookups` were last known to hold: while it has not
    /// moved, no collection shows anything else, so they need no check.
    var verifiedAt: UInt64?
    /// What the last evaluation over this overlay read besides `base`, `saves` and `lookups`,
    /// and what it gave: while none of it has moved, the view is that result again, with
    /// nothing laid over or evaluated (see `Evaluation`).
    var evaluated: Evaluation?
    /// The last evaluation, kept while the view shows the server answer alone (no save visible,
    /// no unsaved write: `view(server:...)` returns the answer without touching the store).
    ///
    /// Why: that return forgot the evaluation, so the next refresh with a save or a write (the
    /// next edit after every confirmed save) evaluated the query over the whole store; the
    /// evaluation still describes the store, so the next refresh patches it instead.
    var parked: Evaluation?
    /// How many refreshes went on incrementally from a parked evaluation, or from one that was not
    /// `shown` but brought up to date gave `shown` (`refresh`): a test fails if this stops.
    var parkedReuses = 0
    /// Set by a refresh that judged its view incrementally for a query whose result entries are
    /// each a function of their own slot (no include, no limit): the new view can differ from
    /// `shown` only at these slots, so the client notes what changed among them alone
    /// (`SharedDiffSeenChanges.note(from:to:at:within:)`). Nil otherwise; the client clears it
    /// before each refresh.
    var changedWithin: [EntityID]?

    /// The inputs of one evaluation that are not part of the laid-over store, and its result.
    ///
    /// Why: every refresh recomputed every collection's view, although most refreshes (a save
    /// timer of another collection, an answer for another query) change nothing it reads. A
    /// view is a pure function of the server answer, the visible saves in order, the unsaved
    /// writes in order, and the answers of the `seen` lookups laying them over makes (only made
    /// where the store lacks an entity, so the same inputs make the same lookups). The client
    /// bumps a version whenever its pending saves or unsaved writes change in any way
    /// (`SharedDiffClient.pendingVersion`, `unsavedVersion`), so equal versions, the same
    /// answer at the same processed tx id, and lookups that still give the same records mean
    /// the same view.
    struct Evaluation {
        var pendingVersion: UInt64
        var unsavedVersion: UInt64
        var processedTxID: UInt64
        /// The `seen` lookups laying the unsaved writes over made, in order, with their answers.
        var unsavedLookups: [Lookup]
        /// The slots the unsaved writes changed: where the store evaluated differed from `store`.
        var unsavedTouched: [EntityID]
        var result: QueryResult
    }

    /// Whether the view over `base` and the client's state at these versions is `evaluated`'s
    /// result again, and `shown` is that result. Marks the lookups checked at `shownVersion`.
    mutating func isUnchanged(base: QueryResult, processedTxID: UInt64, versions: (pending: UInt64, unsaved: UInt64),
                              shown: QueryResult?, query: Query, collections: [SharedDiffClient.Collection],
                              shownVersion: UInt64?, changes: SharedDiffSeenChanges? = nil) -> Bool {
        // Read in place: binding the evaluation copied it (a retain and a release per array it
        // holds) on every refresh of every collection.
        guard evaluated != nil, evaluated!.pendingVersion == versions.pending, evaluated!.unsavedVersion == versions.unsaved,
              evaluated!.processedTxID == processedTxID, let shown, self.base == base, evaluated!.result == shown else { return false }
        if let v = shownVersion, verifiedAt == v { return true }
        if !lookupsStand(for: query, in: collections, changes: changes) { return false }
        let standing = evaluated!.unsavedLookups.withUnsafeBufferPointer { lb in
            for j in 0..<lb.count where !Self.stands(lb, j, for: query, in: collections) { return false }
            return true
        }
        if !standing { return false }
        verifiedAt = shownVersion
        return true
    }

    /// Whether a `seen` lookup's answer still stands for a view of `query` (nil: any query): the
    /// collections show the same record; or, for a query without includes and a record of
    /// another namespace than its roots', a record of that namespace.
    ///
    /// Why the weaker test is exact: the view of a query without includes reads the namespace of
    /// every record and the fields of its roots' namespace only, and a step's effect on any
    /// other entity depends only on whether this one exists and in which namespace (a link
    /// checks its target's namespace, a delete that it exists), which the weaker test keeps.
    /// So the store may hold such an entity with values taken from an older answer, and every
    /// view it gives is still the one a rebuild gives. Saves of one collection laid over
    /// another's view (todos' saves over profiles') look up every entity they send, so with the
    /// exact test every write to one collection rebuilt every other's overlay.
    ///
    /// A lookup made for an update that applies (`Lookup.assigned`) also stands when the record
    /// now shown differs from the one found only in fields the update assigns: the update writes
    /// them before anything reads the slot, so the store holds the same record either way. A save
    /// sends every field its collection shows, so an edit of an entity another collection's
    /// overlay took from this one no longer rebuilds that overlay.
    static func stands(_ lookup: Lookup, for query: Query?, in collections: [SharedDiffClient.Collection]) -> Bool {
        // The shown record read where it is, and neither record bound: `seen` returned a copy
        // (a retain and a release per array it owns) and binding the lookup's record copied it
        // again, for every lookup checked.
        SharedDiffClient.withSeen(lookup.id, in: collections) { now in
            guard lookup.record != nil else { return now == nil }
            if query?.includes.isEmpty == true, lookup.record!.namespace != query!.namespace {
                return now?.pointee.record.namespace == lookup.record!.namespace
            }
            guard let now else { return false }
            if now.pointee.record == lookup.record! { return true }
            guard let a = lookup.assigned, now.pointee.record.namespace == lookup.record!.namespace,
                  now.pointee.record.values.count == lookup.record!.values.count else { return false }
            for f in 0..<lookup.record!.values.count where lookup.record!.values[f] != now.pointee.record.values[f] {
                var written = false
                for k in 0..<a.count where Int(a[k].field.raw) == f { written = true; break }
                if !written { return false }
            }
            return lookup.record!.links == now.pointee.record.links && lookup.record!.manyLinks == now.pointee.record.manyLinks
        }
    }

    /// `stands` of lookup `k` of `lb`, read in place.
    @inline(__always)
    static func stands(_ lb: UnsafeBufferPointer<Lookup>, _ k: Int, for query: Query?,
                       in collections: [SharedDiffClient.Collection]) -> Bool {
        stands(lb[k], for: query, in: collections)
    }

    /// `stands` for a lookup made for a step that writes nothing over what it found.
    static func stands(_ lookup: (id: EntityID, record: EntityRecord?), for query: Query?,
                       in collections: [SharedDiffClient.Collection]) -> Bool {
        stands(Lookup(id: lookup.id, record: lookup.record), for: query, in: collections)
    }

    /// One `seen` lookup: the entity, what the collections showed (nil: none), and, when the
    /// step that needed it is an update that applies over that record (the namespace its
    /// record has, fields valid for the schema), the fields it assigns.
    struct Lookup {
        var id: EntityID
        var record: EntityRecord?
        var assigned: [FieldAssignment]? = nil
    }

    /// Starts a refresh's list of touched slots (`note`).
    mutating func beginTouching() {
        generation &+= 1
        if generation == 0 {
            for i in stamp.indices { stamp[i] = 0 }
            generation = 1
        }
    }

    /// Adds slot `id` to `touched` unless this refresh listed it already.
    @inline(__always)
    mutating func note(_ id: EntityID, in touched: inout [EntityID]) {
        let i = Int(id.raw)
        if i >= stamp.count { stamp.append(contentsOf: repeatElement(0, count: i - stamp.count + 1)) }
        if stamp[i] != generation {
            stamp[i] = generation
            touched.append(id)
        }
    }

    /// Notes that the saves changed slot `i`.
    mutating func markDirty(_ i: Int) {
        if i >= isDirty.count { isDirty.append(contentsOf: repeatElement(false, count: i - isDirty.count + 1)) }
        if !isDirty[i] {
            isDirty[i] = true
            dirty.append(i)
        }
    }

    /// Takes the saves off: `store` holds `base`'s entries again. The slots restored are noted in
    /// `touched`.
    mutating func rollBackSaves(touched: inout [EntityID]) {
        for i in dirty {
            let id = EntityID(UInt32(i))
            store[id] = base.record(id)
            isDirty[i] = false
            note(id, in: &touched)
        }
        dirty.removeAll(keepingCapacity: true)
        saves.removeAll(keepingCapacity: true)
        acting.removeAll(keepingCapacity: true)
        for k in lookups.indices { lookupLast[Int(lookups[k].id.raw)] = -1 }
        lookups.removeAll(keepingCapacity: true)
        lookupPrevious.removeAll(keepingCapacity: true)
    }

    /// Brings a store without saves from `base`'s entries to `new`'s: a merge walk over both
    /// (ascending ids) that writes only the slots that differ and notes them in `touched`.
    ///
    /// Both answers are read through their buffers and records compared where they are: indexing
    /// the arrays copied each record compared (a retain and a release per array it owns), and a
    /// whole-collection answer is compared entry by entry on every new answer of every view
    /// with saves in flight (seed 1, swarm, 3,000 actions: about 80 instructions per entry).
    ///
    /// A new answer is the previous one patched by the server (`QueryResult.copyBits`): its
    /// untouched entries have the same bits as the old ones, so runs of them are passed over a
    /// block at a time (one `memcmp`, `StorageWords.sameBits`) or an entry at a time by their
    /// storage words (`sameStorage`) before any record is compared (`passedByWords` counts the
    /// entries passed so: a test fails if the shortcut stops). Entries told apart so are compared
    /// as before, so the writes and `touched` are those of the plain walk.
    mutating func rebase(on new: QueryResult, touched: inout [EntityID]) {
        defer { base = new }
        let o = base.entries, n = new.entries
        var changed = false
        var passed = 0
        let words = QueryResult.Entry.storageWords
        o.withUnsafeBufferPointer { ob in
            n.withUnsafeBufferPointer { nb in
                // The same buffer: nothing to do.
                if ob.count == nb.count && ob.baseAddress == nb.baseAddress { return }
                var j = 0
                var k = 0
                while k < nb.count {
                    if let words, j < ob.count {
                        let op = ob.baseAddress.unsafelyUnwrapped, np = nb.baseAddress.unsafelyUnwrapped
                        let j0 = j
                        while j + Self.rebaseBlock <= ob.count && k + Self.rebaseBlock <= nb.count
                                && words.sameBits(op + j, np + k, count: Self.rebaseBlock) {
                            j += Self.rebaseBlock
                            k += Self.rebaseBlock
                        }
                        while j < ob.count && k < nb.count && words.sameStorage(op + j, np + k) {
                            j += 1
                            k += 1
                        }
                        passed += j - j0
                        if k == nb.count { break }
                    }
                    let id = nb[k].id
                    while j < ob.count && ob[j].id < id {
                        store[ob[j].id] = nil
                        note(ob[j].id, in: &touched)
                        changed = true
                        j += 1
                    }
                    if j < ob.count && ob[j].id == id {
                        if !Self.sameRecord(ob, j, nb, k) {
                            store[id] = nb[k].record
                            note(id, in: &touched)
                            changed = true
                        }
                        j += 1
                    } else {
                        store[id] = nb[k].record
                        note(id, in: &touched)
                        changed = true
                    }
                    k += 1
                }
                while j < ob.count {
                    store[ob[j].id] = nil
                    note(ob[j].id, in: &touched)
                    changed = true
                    j += 1
                }
            }
        }
        passedByWords &+= passed
        // The index describes `base`'s entries: kept while the new answer's are equal.
        if changed { referrers = nil }
    }

    /// Entries `rebase` compares with one `memcmp` (`StorageWords.sameBits`).
    static let rebaseBlock = 16
    /// Entries `rebase` passed over by their storage words (a test fails if this stops).
    var passedByWords = 0

    /// `a[i].record == b[k].record`, read in place: the namespace and each slot array compared by
    /// identity first (what `EntityRecord ==` does), then by value.
    @inline(__always)
    static func sameRecord(_ a: UnsafeBufferPointer<QueryResult.Entry>, _ i: Int,
                           _ b: UnsafeBufferPointer<QueryResult.Entry>, _ k: Int) -> Bool {
        guard a[i].record.namespace == b[k].record.namespace else { return false }
        return sameSlots(a[i].record.values, b[k].record.values) && sameSlots(a[i].record.links, b[k].record.links)
            && sameSlots(a[i].record.manyLinks, b[k].record.manyLinks)
    }

    /// `x == y`, told at once when both are the same storage.
    @inline(__always)
    static func sameSlots<T: Equatable>(_ x: [T], _ y: [T]) -> Bool {
        if x.count != y.count { return false }
        let shared = x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { q in p.baseAddress == q.baseAddress } }
        return shared || x == y
    }

    /// Lays one save's steps over `store` (each step's missing entities taken from the
    /// collections first, as `SharedDiffClient.apply` does), noting the slots changed.
    ///
    /// With a `scope`, the steps that cannot change what the view reads are left out, and a link
    /// whose target alone the view reads is reduced to that target's lookup
    /// (`SharedDiffNamespaceClaims`).
    mutating func lay(_ steps: [InstantStep], collections: [SharedDiffClient.Collection], schema: Schema,
                      touched: inout [EntityID], scope: SharedDiffNamespaceClaims.Scope? = nil) {
        var changed = scratch.take() ?? []
        var acted: [Int32] = []
        var j = 0
        while true {
            // Past the steps that would do nothing (`firstEffective`), read in one pass.
            j = Self.firstEffective(steps, from: j, in: store, schema: schema, scope: scope)
            guard j < steps.count else { break }
            defer { j += 1 }
            acted.append(Int32(j))
            act(steps[j].op, collections: collections, schema: schema, scope: scope, changed: &changed)
        }
        finishLaying(steps, acted: acted, changed: &changed, touched: &touched)
    }

    /// The end of `lay` and `relay` alike: the slots changed noted in `touched`, the lookups made
    /// indexed, the list of changed slots kept for the next laying, and the save recorded with
    /// the positions of its steps that acted.
    ///
    /// `changed` is the caller's own list (`inout`): passed as a copy, its storage was shared and
    /// emptying it while keeping its capacity allocated another one on every laying.
    private mutating func finishLaying(_ steps: [InstantStep], acted: [Int32], changed: inout [Int],
                                       touched: inout [EntityID]) {
        for i in changed { note(EntityID(UInt32(i)), in: &touched) }
        indexLookups()
        changed.removeAll(keepingCapacity: true)
        scratch = changed
        saves.append(steps)
        acting.append(acted)
    }

    /// What `lay` does for a step it does not pass over: the entities the step needs taken from
    /// the collections, the step applied, and each slot written noted in `changed` and marked
    /// dirty.
    @inline(__always)
    mutating func act(_ op: Op, collections: [SharedDiffClient.Collection], schema: Schema,
                      scope: SharedDiffNamespaceClaims.Scope?, changed: inout [Int]) {
        let from = changed.count
        if let scope, case .link(_, _, let t) = op, scope.reach(op) == .linkTarget {
            SharedDiffClient.fill(t, for: op, in: &store, lookups: &lookups, collections: collections, schema: schema,
                                  changed: &changed)
        } else if case .delete(let e, _) = op {
            // A delete needs no entity from the collections (`fill` does nothing).
            delete(e, changed: &changed)
        } else {
            SharedDiffClient.fill(op, in: &store, lookups: &lookups, collections: collections, schema: schema, changed: &changed)
            SharedDiffClient.applyStep(op, to: &store, schema: schema, changed: &changed)
        }
        // Dirty at once (in the order first changed, as if marked after the loop), so a
        // later delete finds every slot that no longer holds `base`'s entry in `dirty`.
        for k in from..<changed.count { markDirty(changed[k]) }
    }

    /// `lay(steps, ...)` of a save this overlay laid before its last roll back, whose steps not
    /// passed over then were `acted` (ascending), over a store that differs from the one it was
    /// laid over then only in slots noted this refresh (`stamp`) or written since the roll back
    /// (`isDirty`). Gives what `lay` gives, testing only the steps that can have changed.
    ///
    /// Why: a new answer rolls an overlay back and lays every visible save again; a save sends
    /// its whole collection, and each laying tested every step (`firstEffective`: a tenth of the
    /// run at 3,000 actions, seed 1, swarm) although almost every one of them passed over the
    /// time before and still does.
    ///
    /// Exact: compare this laying with the one before, step by step. Every slot either laying
    /// wrote is noted (the roll back notes every slot the saves wrote; this refresh's layings
    /// mark theirs dirty) and the two answers differ only at noted slots, so before each step the
    /// two stores differ only at noted or dirty slots. A step passed over before, reading no
    /// such slot (its entity, and a link's target: all `passesOver` reads), reads what it read
    /// then and is passed over again; the scope can only leave more out since (an entity's
    /// namespace, once named, stays). Every other step is tested and laid as `lay` would.
    mutating func relay(_ steps: [InstantStep], acted: [Int32], collections: [SharedDiffClient.Collection], schema: Schema,
                        touched: inout [EntityID], scope: SharedDiffNamespaceClaims.Scope? = nil) {
        var changed = scratch.take() ?? []
        var acting: [Int32] = []
        var j = 0, next = 0
        while true {
            // Past the steps that need no laying, the buffers opened once for the whole run of
            // them (`nextToRelay`): opened per step, they cost more than the tests they saved.
            j = nextToRelay(steps, from: j, acted: acted, next: &next, schema: schema, scope: scope)
            guard j < steps.count else { break }
            acting.append(Int32(j))
            act(steps[j].op, collections: collections, schema: schema, scope: scope, changed: &changed)
            j += 1
        }
        finishLaying(steps, acted: acting, changed: &changed, touched: &touched)
    }

    /// The first step of `steps` at or after `from` that `relay` must lay (`steps.count` when
    /// none): a step not in `acted` that reads nothing changed (`readsNothingChanged`) is passed
    /// over untested (counted in `relayPassed`); every other one is tested as `lay` tests it
    /// (`passesOver`). `next` is the position in `acted` of the first of its steps at or after
    /// `from`, moved past those scanned.
    ///
    /// Why one scan: the steps, the slot flags and the store's slots are each read through a
    /// buffer, and `relay` opened them per step (three for the untested test, two more in
    /// `firstEffective` for each step tested). Nothing here writes, so they are opened once per
    /// run of steps passed over, and again only after a step is laid.
    mutating func nextToRelay(_ steps: [InstantStep], from: Int, acted: [Int32], next: inout Int, schema: Schema,
                              scope: SharedDiffNamespaceClaims.Scope?) -> Int {
        var passed = 0
        defer { relayPassed &+= passed }
        return steps.withUnsafeBufferPointer { sb in
            acted.withUnsafeBufferPointer { ab in
                stamp.withUnsafeBufferPointer { st in
                    isDirty.withUnsafeBufferPointer { dt in
                        store.records.withUnsafeBufferPointer { rb in
                            var j = from
                            while j < sb.count {
                                // The steps before the next one that acted, in a loop of their own
                                // (no test against `acted` per step): passed over untested while
                                // they read nothing changed.
                                let stop = next < ab.count ? Int(ab[next]) : sb.count
                                while j < stop {
                                    if Self.readsNothingChanged(sb[j].op, st, generation, dt) {
                                        passed += 1
                                    } else if !Self.passesOver(sb[j].op, rb, schema, scope: scope) {
                                        return j
                                    }
                                    j += 1
                                }
                                guard j < sb.count else { break }
                                // A step that acted last time is always tested.
                                next += 1
                                if !Self.passesOver(sb[j].op, rb, schema, scope: scope) { return j }
                                j += 1
                            }
                            return j
                        }
                    }
                }
            }
        }
    }

    /// Steps `relay` passed over without testing them (a test fails if it stops).
    var relayPassed = 0
    /// Whether a save laid since the last roll back was laid with a scope (`relay` is not used
    /// for a laying without one after a laying with one).
    var laidScoped = false

    /// Whether every slot `op` reads in `passesOver` (its entity; a link's target too) is neither
    /// noted this refresh (`st[i] == generation`) nor dirty.
    @inline(__always)
    static func readsNothingChanged(_ op: Op, _ st: UnsafeBufferPointer<UInt32>, _ generation: UInt32,
                                    _ dt: UnsafeBufferPointer<Bool>) -> Bool {
        @inline(__always) func quiet(_ e: EntityID) -> Bool {
            let i = Int(e.raw)
            return !(i < st.count && st[i] == generation) && !(i < dt.count && dt[i])
        }
        switch op {
        case .create(let e, _, _), .update(let e, _, _), .delete(let e, _), .unlink(let e, _, _): return quiet(e)
        case .link(let e, _, let t): return quiet(e) && quiet(t)
        }
    }

    /// Whether two step lists are one storage (the same save): told without reading a step.
    @inline(__always)
    static func same(_ x: [InstantStep], _ y: [InstantStep]) -> Bool {
        x.count == y.count && x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { q in p.baseAddress == q.baseAddress } }
    }

    /// `lay`'s list of changed slots, kept to save an allocation per save laid.
    var scratch: [Int]?

    /// The namespaces the overlay's query reads and their links point to
    /// (`OverlayStepFilter.namespaces(of:schema:)`), found at its first laying: what a save laid
    /// with the client's claims may leave out is decided against it (`SharedDiffNamespaceClaims`).
    var reads: NamespaceSet?

    /// Which entries of `base` link to each entity, built at the first delete laid over this
    /// answer (nil before, and again once `base` changes).
    var referrers: ReferrerIndex?

    /// `SharedDiffClient.applyStep` of `.delete(e, _)`, finding the records that link to `e`
    /// among the entries of `base` that do (`referrers`) and the slots the saves changed
    /// (`dirty`) instead of reading every record of the store: every other slot holds `base`'s
    /// entry. A save of a partial collection deletes each tracked entity it does not show, and
    /// each delete read the whole store, on every laying and every laying again.
    mutating func delete(_ e: EntityID, changed: inout [Int]) {
        guard store.contains(e) else { return }
        store[e] = nil
        changed.append(Int(e.raw))
        if referrers == nil { referrers = ReferrerIndex(base) }
        var refs: [Int] = []
        var previous = -1
        // The records are read where they are (`refers` through the store's buffer): binding
        // each one copied it (a retain and a release per array it owns), once per dirty slot
        // on every delete laid.
        store.records.withUnsafeBufferPointer { rb in
            referrers!.forEach(of: e) { i in
                // A record linking twice to `e` is listed twice, in a row.
                defer { previous = i }
                if i == previous || (i < isDirty.count && isDirty[i]) { return }
                if Self.refers(rb, i, to: e) { refs.append(i) }
            }
            dirty.withUnsafeBufferPointer { db in
                for k in 0..<db.count where Self.refers(rb, db[k], to: e) { refs.append(db[k]) }
            }
        }
        if refs.isEmpty { return }
        refs.sort()
        changed.append(contentsOf: refs)
        removeLinks(to: e, at: refs, in: &store)
    }

    /// `EntityRecord.refers(to:)` of slot `i` of a store's slots, reading its link arrays where
    /// they are: calling the method on the slot copied the record first.
    @inline(__always)
    static func refers(_ rb: UnsafeBufferPointer<EntityRecord?>, _ i: Int, to e: EntityID) -> Bool {
        guard i < rb.count, rb[i]?.namespace != nil else { return false }
        let one = rb[i]!.links.withUnsafeBufferPointer { lb in
            for k in 0..<lb.count where lb[k] == e { return true }
            return false
        }
        if one { return true }
        return rb[i]!.manyLinks.withUnsafeBufferPointer { mb in
            for k in 0..<mb.count where mb[k].contains(e) { return true }
            return false
        }
    }

    /// Per entity, the entries of a result whose records link to it, in id order (listed once
    /// per link): offsets into one flat list, built in two passes over the entries.
    struct ReferrerIndex {
        var start: [Int32] = []
        var list: [Int32] = []

        init(_ result: QueryResult) {
            result.entries.withUnsafeBufferPointer { b in
                var top = -1
                for k in 0..<b.count {
                    for t in b[k].record.links { if let t { top = max(top, Int(t.raw)) } }
                    for m in b[k].record.manyLinks { for t in m { top = max(top, Int(t.raw)) } }
                }
                guard top >= 0 else { return }
                var count = [Int32](repeating: 0, count: top + 2)
                for k in 0..<b.count {
                    for t in b[k].record.links { if let t { count[Int(t.raw) + 1] += 1 } }
                    for m in b[k].record.manyLinks { for t in m { count[Int(t.raw) + 1] += 1 } }
                }
                for i in 1..<count.count { count[i] += count[i - 1] }
                start = count
                var fill = count
                list = [Int32](repeating: 0, count: Int(count[count.count - 1]))
                for k in 0..<b.count {
                    let id = Int32(b[k].id.raw)
                    for t in b[k].record.links { if let t { list[Int(fill[Int(t.raw)])] = id; fill[Int(t.raw)] += 1 } }
                    for m in b[k].record.manyLinks { for t in m { list[Int(fill[Int(t.raw)])] = id; fill[Int(t.raw)] += 1 } }
                }
            }
        }

        /// Calls `body` with each entry linking to `e` (once per link), ascending.
        func forEach(of e: EntityID, _ body: (Int) -> Void) {
            let t = Int(e.raw)
            guard t + 1 < start.count else { return }
            for k in Int(start[t])..<Int(start[t + 1]) { body(Int(list[k])) }
        }
    }

    init(base: QueryResult) {
        self.base = base
        store = EntityStore(entriesOf: base)
    }

    /// Whether the overlay can be extended into the one for `base` and the visible saves of
    /// `pending` (those the server answer at `processedTxID` does not reflect yet).
    func isPrefix(base: QueryResult, pending: [SharedDiffClient.SaveMutation], processedTxID: UInt64,
                  collections: [SharedDiffClient.Collection], shownVersion: UInt64? = nil, query: Query? = nil,
                  changes: SharedDiffSeenChanges? = nil) -> Bool {
        guard self.base == base else { return false }
        var k = 0
        // By index: iterating would copy each save out of the array (a retain and a release per
        // array it owns).
        for p in pending.indices where SharedDiffClient.isVisible(pending[p], above: processedTxID) {
            if k == saves.count { break }
            if saves[k] != pending[p].steps { return false }
            k += 1
        }
        guard k == saves.count else { return false }
        if let v = shownVersion, verifiedAt == v { return true }
        return lookupsStand(for: query, in: collections, changes: changes)
    }

    /// Lists the lookups `lay` added in `lookupLast`/`lookupPrevious`.
    mutating func indexLookups() {
        for k in lookupPrevious.count..<lookups.count {
            let i = Int(lookups[k].id.raw)
            if i >= lookupLast.count { lookupLast.append(contentsOf: repeatElement(-1, count: i - lookupLast.count + 1)) }
            lookupPrevious.append(lookupLast[i])
            lookupLast[i] = Int32(k)
        }
    }

    /// Whether every lookup still stands (`stands`): only those of the entities `changes` lists
    /// as changed since `verifiedAt` when it lists them all (every other entity shows what it
    /// showed when they were last checked), else every one.
    func lookupsStand(for query: Query?, in collections: [SharedDiffClient.Collection], changes: SharedDiffSeenChanges?) -> Bool {
        // The lookups read where they are (`stands(_:_:for:in:)`): passing each one copied its
        // record and its assignments.
        lookups.withUnsafeBufferPointer { lb in
            if let changes, let v = verifiedAt, let ids = changes.changed(after: v) {
                for id in ids {
                    let i = Int(id.raw)
                    var k = i < lookupLast.count ? Int(lookupLast[i]) : -1
                    while k >= 0 {
                        if !Self.stands(lb, k, for: query, in: collections) { return false }
                        k = Int(lookupPrevious[k])
                    }
                }
                return true
            }
            for j in 0..<lb.count where !Self.stands(lb, j, for: query, in: collections) { return false }
            return true
        }
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
    /// `versions` are the client's `pendingVersion` and `unsavedVersion` (nil: do not skip an
    /// evaluation whose inputs did not move, `SharedDiffOverlay.Evaluation`).
    static func view(of c: Collection, overlay: inout SharedDiffOverlay?, shownVersion: UInt64? = nil,
                     changes: SharedDiffSeenChanges? = nil, versions: (pending: UInt64, unsaved: UInt64)? = nil,
                     unlessEqualTo shown: QueryResult?, collections: [Collection], pending: [SaveMutation],
                     unsaved: [UnsavedWrite], schema: Schema, claims: SharedDiffNamespaceClaims? = nil) -> QueryResult? {
        view(server: c.server, processedTxID: c.processedTxID, query: c.query, overlay: &overlay, shownVersion: shownVersion,
             changes: changes, versions: versions, unlessEqualTo: shown, collections: collections, pending: pending,
             unsaved: unsaved, schema: schema, claims: claims)
    }

    /// `view(of:overlay:...)` of the collection with this server answer, processed tx id and
    /// query: the only parts of it a view reads, passed alone because the refresh loop reads
    /// its collections through a buffer, and passing a whole collection from there copied it
    /// (a retain and a release per array it and its overlay own) on every view.
    /// `claims` are the client's (nil: every save is laid whole, `SharedDiffNamespaceClaims`).
    static func view(server: QueryResult?, processedTxID: UInt64, query: Query, overlay: inout SharedDiffOverlay?,
                     shownVersion: UInt64? = nil, changes: SharedDiffSeenChanges? = nil,
                     versions: (pending: UInt64, unsaved: UInt64)? = nil, unlessEqualTo shown: QueryResult?,
                     collections: [Collection], pending: [SaveMutation], unsaved: [UnsavedWrite], schema: Schema,
                     claims: SharedDiffNamespaceClaims? = nil) -> QueryResult? {
        guard let base = server else {
            overlay = nil
            return shown == .empty ? nil : .empty
        }
        if let versions, overlay?.isUnchanged(base: base, processedTxID: processedTxID, versions: versions, shown: shown,
                                              query: query, collections: collections, shownVersion: shownVersion,
                                              changes: changes) == true {
            return nil
        }
        var anyVisible = false
        for p in pending.indices where isVisible(pending[p], above: processedTxID) { anyVisible = true; break }
        if !anyVisible && unsaved.isEmpty {
            // Kept, its saves still laid, for the next save to lay: that refresh rolls them back
            // and brings the store to its answer where the two differ (as for any other change
            // of saves). Dropping it freed the store and built another from the answer every
            // time the saves in flight came and went. Its evaluation no longer gave `shown`, so
            // the next one cannot take it as `shown`'s evaluation. It is parked instead: it is
            // still the evaluation of the store as it stands (nothing here touches the store), so
            // the next refresh can bring it up to date where the store changes
            // (`SharedDiffOverlay.parked`).
            if let e = overlay?.evaluated.take() { overlay!.parked = e }
            return shown == base ? nil : base
        }
        // Changed where it is (`overlay!`, the only reference, so its store changes in place):
        // taking it out and putting it back copied the whole overlay twice per view.
        let fresh = overlay == nil
        if fresh { overlay = SharedDiffOverlay(base: base) }
        return refresh(&overlay!, fresh: fresh, processedTxID: processedTxID, query: query, base: base, shownVersion: shownVersion, changes: changes, versions: versions,
                       unlessEqualTo: shown, collections: collections, pending: pending, unsaved: unsaved, schema: schema,
                       claims: claims)
    }

    /// The body of `view(of:overlay:...)` over an overlay `o` of `base` (`fresh`: just made).
    static func refresh(_ o: inout SharedDiffOverlay, fresh: Bool, processedTxID: UInt64, query: Query, base: QueryResult, shownVersion: UInt64?,
                        changes: SharedDiffSeenChanges?, versions: (pending: UInt64, unsaved: UInt64)?,
                        unlessEqualTo shown: QueryResult?, collections: [Collection], pending: [SaveMutation],
                        unsaved: [UnsavedWrite], schema: Schema, claims: SharedDiffNamespaceClaims? = nil) -> QueryResult? {
        // `touched`: the slots where the store evaluated now may differ from the one `shown`
        // was evaluated over; `incremental`: whether `shown` was evaluated over this overlay's
        // store (otherwise evaluate in full).
        var touched: [EntityID] = []
        var incremental = false
        // The saves laid before a roll back, and their steps not passed over: a save laid again
        // is laid with `relay` (testing only what can have changed) when it is one of them, met
        // in the same order.
        var previous: (saves: [[InstantStep]], acting: [[Int32]], scoped: Bool)?
        if !fresh {
            let prefix = o.isPrefix(base: base, pending: pending, processedTxID: processedTxID,
                                    collections: collections, shownVersion: shownVersion, query: query,
                                    changes: changes)
            o.beginTouching()
            // Taken out (the overlay forgets it below anyway): binding it copied the evaluation
            // (a retain and a release per array it holds) on every refresh of every view.
            // A parked evaluation (the view was its answer meanwhile) serves as well: the store
            // has not changed since it was made.
            var last = o.evaluated.take()
            let parked = o.parked.take()
            let fromParked = last == nil && parked != nil
            if fromParked { last = parked }
            var stale: QueryResult?
            if let e = last, let shown {
                for t in e.unsavedTouched { o.note(t, in: &touched) }
                if e.result == shown { incremental = true } else { stale = e.result }
            }
            last = nil
            if !prefix {
                // Back to the answer the store mirrors, then to the new answer; every visible save
                // is laid over again below. Only the slots written can differ.
                previous = (o.saves, o.acting, o.laidScoped)
                o.laidScoped = false
                o.rollBackSaves(touched: &touched)
                o.rebase(on: base, touched: &touched)
            }
            // `shown` is not the last evaluation (it is the answer, shown while no save was
            // visible), but that evaluation, brought up to date where the store changed since, is
            // the query over the store as it now stands; when that equals `shown`, `shown` is
            // judged incrementally from here on (`touched` only grows, so it still covers every
            // slot that differs), instead of the whole store being evaluated again.
            if let old = stale, let shown {
                let now = judge(query, old, touched: touched, in: o.store, schema: schema) ?? old
                if now == shown { incremental = true }
            }
            if incremental && (fromParked || stale != nil) { o.parkedReuses &+= 1 }
        } else {
            o.beginTouching()
        }
        o.evaluated = nil
        var k = 0
        var scope: SharedDiffNamespaceClaims.Scope?
        if let claims, !claims.mixed {
            if o.reads == nil { o.reads = OverlayStepFilter.namespaces(of: query, schema: schema) }
            scope = claims.scope(reading: o.reads!)
        }
        // Laid with a scope before and without one now (only a caller without claims), a step
        // left out then may apply now: every save is laid in full.
        if scope == nil, previous?.scoped == true { previous = nil }
        if scope != nil { o.laidScoped = true }
        var q = 0
        for p in pending.indices where isVisible(pending[p], above: processedTxID) {
            defer { k += 1 }
            if k < o.saves.count { continue }
            // The same save (the same step storage) further on among those laid before.
            var found: Int?
            if let previous {
                for r in q..<previous.saves.count where SharedDiffOverlay.same(previous.saves[r], pending[p].steps) {
                    found = r
                    break
                }
            }
            if let r = found {
                q = r + 1
                o.relay(pending[p].steps, acted: previous!.acting[r], collections: collections, schema: schema, touched: &touched,
                        scope: scope)
            } else {
                o.lay(pending[p].steps, collections: collections, schema: schema, touched: &touched, scope: scope)
            }
        }
        previous = nil
        var undo = EntityStore.UndoLog()
        var unsavedLookups: [SharedDiffOverlay.Lookup] = []
        for u in unsaved {
            for op in u.write.ops {
                fill(op, in: &o.store, undo: &undo, lookups: &unsavedLookups, collections: collections, schema: schema)
                _ = o.store.apply(op, schema: schema, mode: .upsert, undo: &undo)
            }
        }
        let unsavedTouched = o.store.touched(by: undo)
        let r: QueryResult?
        if incremental, let last = shown {
            for t in unsavedTouched { o.note(t, in: &touched) }
            r = judge(query, last, touched: touched, in: o.store, schema: schema)
        } else {
            r = query.evaluate(o.store, unlessEqualTo: shown)
        }
        if incremental && query.includes.isEmpty && query.limit == nil { o.changedWithin = touched }
        o.store.rollBack(undo)
        // Every lookup was checked or made against what the collections show now.
        o.verifiedAt = shownVersion
        if let versions, let result = r ?? shown {
            o.evaluated = SharedDiffOverlay.Evaluation(pendingVersion: versions.pending, unsavedVersion: versions.unsaved,
                                                       processedTxID: processedTxID, unsavedLookups: unsavedLookups,
                                                       unsavedTouched: unsavedTouched, result: result)
        }
        return r
    }

    /// `query.evaluate(store, unlessEqualTo: last)`, given that `last` is the query over a store
    /// that differs from `store` only in the slots `touched`: nil when no touched entity can
    /// change the result, the result patched where they are when the query allows it
    /// (`Query.mayChange`, `Query.patchTree`: also one level of includes, so `posts with
    /// author` and `profiles with posts` are patched too), evaluated in full otherwise.
    static func judge(_ query: Query, _ last: QueryResult, touched t: [EntityID], in store: EntityStore, schema: Schema) -> QueryResult? {
        if !query.mayChange(last, touched: t, in: store, schema: schema) { return nil }
        // A copy of `last`: patching it writes (and copies its entries) only if it changes.
        var view = last
        if let changed = query.patchTree(&view, touched: t, in: store) { return changed ? view : nil }
        return query.evaluate(store, unlessEqualTo: last)
    }

    /// `store.apply(op, schema: schema, mode: .upsert)`, except that a delete finds the records
    /// linking to the entity by reading them in place: `EntityStore.removeReferences` binds each
    /// record of the store to test it (a retain and a release per array it owns), and a save of a
    /// partial collection carries a delete per tracked entity it does not show.
    static func applyStep(_ op: Op, to store: inout EntityStore, schema: Schema) {
        var changed: [Int] = []
        applyStep(op, to: &store, schema: schema, changed: &changed)
    }

    /// `applyStep(_:to:schema:)`, noting in `changed` every slot it may have written (the step's
    /// entity; for a delete, also the records that linked to it).
    static func applyStep(_ op: Op, to store: inout EntityStore, schema: Schema, changed: inout [Int]) {
        guard case .delete(let e, _) = op else {
            if changesNothing(op, in: store, schema: schema) { return }
            changed.append(Int(op.entity.raw))
            _ = store.apply(op, schema: schema, mode: .upsert)
            return
        }
        guard store.contains(e) else { return }
        store[e] = nil
        changed.append(Int(e.raw))
        let referrers: [Int] = store.records.withUnsafeBufferPointer { rb in
            var out: [Int] = []
            for i in 0..<rb.count where rb[i]?.refers(to: e) == true { out.append(i) }
            return out
        }
        changed.append(contentsOf: referrers)
        removeLinks(to: e, at: referrers, in: &store)
    }

    /// Whether `store.apply(op, schema: schema, mode: .upsert)` (an update, link or unlink) would
    /// leave the store as it is, told by reading the one record it would write.
    ///
    /// Why: a save sends its whole collection as full entities, and laying it over a store that
    /// already holds those values (its own collection's overlay, a save laid again after a roll
    /// back, the next snapshot of the same collection) writes nothing; `apply` validated every
    /// field against the schema first and the slot was then noted as changed, so judged again.
    /// Exact whatever the validation would say: a step that fails validation also writes
    /// nothing, and one that passes writes only values that differ (`EntityRecord.assign`,
    /// `setLink`, `clearLink` report no change when the record already is what they make it).
    ///
    /// The record is read in place (`SharedDiffOverlay.passesOver`'s tests without its test for
    /// missing entities): binding it copied it (a retain and a release per array it owns) for
    /// every step laid that was not passed over.
    @inline(__always)
    static func changesNothing(_ op: Op, in store: EntityStore, schema: Schema) -> Bool {
        store.records.withUnsafeBufferPointer { rb in
            switch op {
            case .update:
                // Present in the same namespace with every assigned field already holding its
                // value (an out-of-range field is a change): `passesOver`'s test of an update.
                return SharedDiffOverlay.passesOver(op, rb, schema)
            case .link(let e, let l, let t):
                // An unknown link is refused (nothing written); otherwise `setLink` changes nothing
                // when the slot of the link's cardinality already holds the target.
                guard schema.contains(l) else { return true }
                // A missing source is refused too.
                guard SharedDiffOverlay.has(e, rb) else { return true }
                let i = Int(e.raw), k = Int(l.raw)
                if schema.isMany(l) {
                    return rb[i]!.manyLinks.withUnsafeBufferPointer { mb in k < mb.count && mb[k].contains(t) }
                }
                return rb[i]!.links.withUnsafeBufferPointer { lb in k < lb.count && lb[k] == t }
            case .unlink(let e, let l, let t):
                // `apply` clears the link only where the record points at the target.
                guard SharedDiffOverlay.has(e, rb) else { return true }
                return !rb[Int(e.raw)]!.points(l, at: t)
            case .create, .delete:
                return false
            }
        }
    }

    /// The first half of `apply(_:to:collections:schema:)`: puts into `store` the entities `op`
    /// needs that it lacks, from the collections that show them, noting each lookup in `lookups`.
    static func fill(_ op: Op, in store: inout EntityStore, lookups: inout [SharedDiffOverlay.Lookup],
                     collections: [Collection], schema: Schema) {
        var changed: [Int] = []
        fill(op, in: &store, lookups: &lookups, collections: collections, schema: schema, changed: &changed)
    }

    /// `fill`, noting in `changed` every slot it writes.
    static func fill(_ op: Op, in store: inout EntityStore, lookups: inout [SharedDiffOverlay.Lookup],
                     collections: [Collection], schema: Schema, changed: inout [Int]) {
        func need(_ e: EntityID) {
            guard !store.contains(e) else { return }
            let lookup = Self.lookup(e, for: op, in: collections, schema: schema)
            if let r = lookup.record {
                store[e] = r
                changed.append(Int(e.raw))
            }
            lookups.append(lookup)
        }
        switch op {
        case .update(let e, _, _), .unlink(let e, _, _): need(e)
        case .link(let e, _, let t): need(e); need(t)
        case .create, .delete: break
        }
    }

    /// `fill` of only entity `e` of step `op` (a link's target, when the overlay reads only that
    /// end: `SharedDiffNamespaceClaims.Scope.Reach.linkTarget`).
    static func fill(_ e: EntityID, for op: Op, in store: inout EntityStore, lookups: inout [SharedDiffOverlay.Lookup],
                     collections: [Collection], schema: Schema, changed: inout [Int]) {
        guard !store.contains(e) else { return }
        let lookup = Self.lookup(e, for: op, in: collections, schema: schema)
        if let r = lookup.record {
            store[e] = r
            changed.append(Int(e.raw))
        }
        lookups.append(lookup)
    }

    /// `fill`, noting in `undo` what it puts (and in `lookups` each lookup, as `fill` does).
    static func fill(_ op: Op, in store: inout EntityStore, undo: inout EntityStore.UndoLog,
                     lookups: inout [SharedDiffOverlay.Lookup], collections: [Collection], schema: Schema) {
        func need(_ e: EntityID) {
            guard !store.contains(e) else { return }
            let lookup = Self.lookup(e, for: op, in: collections, schema: schema)
            if let r = lookup.record { store.set(e, r, undo: &undo) }
            lookups.append(lookup)
        }
        switch op {
        case .update(let e, _, _), .unlink(let e, _, _): need(e)
        case .link(let e, _, let t): need(e); need(t)
        case .create, .delete: break
        }
    }

    /// The lookup of entity `e` that step `op` needs: what the collections show, and the fields
    /// the step assigns over it when it is an update that will apply to that record
    /// (`SharedDiffOverlay.stands`).
    static func lookup(_ e: EntityID, for op: Op, in collections: [Collection], schema: Schema) -> SharedDiffOverlay.Lookup {
        let r = seen(e, in: collections)
        guard case .update(let u, let ns, let a) = op, u == e, let r, r.namespace == ns,
              EntityStore.validate(a, ns, schema: schema) == nil else { return SharedDiffOverlay.Lookup(id: e, record: r) }
        return SharedDiffOverlay.Lookup(id: e, record: r, assigned: a)
    }
}

/// Removes every link to `e` from the records in `slots` of `store`, each taken out of the store
/// while it changes so its arrays are not copied (both of a delete's paths, the indexed one of an
/// overlay and the scanning one of `applyStep`, end here).
private func removeLinks(to e: EntityID, at slots: [Int], in store: inout EntityStore) {
    for i in slots {
        let id = EntityID(UInt32(i))
        var r = store[id]!
        store[id] = nil
        r.removeLinks(to: e)
        store[id] = r
    }
}
