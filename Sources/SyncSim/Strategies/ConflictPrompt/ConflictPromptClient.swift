/// The sideBar iOS client: Stores + `WriteQueue` + `OfflineStore` + `SyncCoordinator` of seed 003,
/// reduced to their sync semantics. Rules and their sources are tabulated on
/// `ConflictPromptStrategy`.
public struct ConflictPromptClient: ClientMachine {
    public typealias Up = ConflictPromptUp
    public typealias Down = ConflictPromptDown

    /// One `PendingWrite` row: one user write, or several consecutive updates of one entity
    /// coalesced into one request.
    ///
    /// The row's arrays live behind one reference (`Payload`, never changed in place: setting
    /// one of them makes a new payload). The queue is shared with the durable state at every
    /// persist, so the next change of the queue copies every row, and the replaced durable
    /// state frees them later: as five arrays a row cost five retains to copy and five releases
    /// to free, a cost per event that grew with the queue; now one of each.
    public struct Entry: Sendable, Hashable {
        /// The arrays of a row (immutable; see `Entry`).
        final class Payload: Sendable {
            let writes: [WriteID]
            let ops: [Op]
            let expect: [CPExpectation]
            let merged: [Op]?
            let fields: [CPFieldSnapshot]
            /// Where `ops` lives (`CPListRender.storageID`): a list's redraw tells the row's steps
            /// from the ones it laid by this word, reading no array.
            let opsID: UInt

            init(writes: [WriteID], ops: [Op], expect: [CPExpectation], merged: [Op]?, fields: [CPFieldSnapshot]) {
                self.writes = writes
                self.ops = ops
                opsID = CPListRender.storageID(ops)
                self.expect = expect
                self.merged = merged
                self.fields = fields
            }
        }

        var payload: Payload

        public var writes: [WriteID] {
            get { payload.writes }
            set { payload = Payload(writes: newValue, ops: payload.ops, expect: payload.expect, merged: payload.merged, fields: payload.fields) }
        }
        public var ops: [Op] {
            get { payload.ops }
            set { payload = Payload(writes: payload.writes, ops: newValue, expect: payload.expect, merged: payload.merged, fields: payload.fields) }
        }
        /// The server `modified` of each entity the steps touch, as the client knew it at enqueue
        /// time (ascending by entity).
        public var expect: [CPExpectation] {
            get { payload.expect }
            set { payload = Payload(writes: payload.writes, ops: payload.ops, expect: newValue, merged: payload.merged, fields: payload.fields) }
        }
        /// Sent at least once: from then on the request never changes (idempotency).
        public var sent = false
        /// The user chose "keep local": replay without the snapshot check.
        public var force = false
        /// A server result showed the entity changed while this write was pending ("mark
        /// conflict" instead of applying the realtime event over it).
        public var remoteChangeSeen = false
        /// The user chose "merge": the steps sent instead of `ops` (the texts merged). Lists
        /// keep showing the user's own steps until the server applies the merged ones.
        public var merged: [Op]? {
            get { payload.merged }
            set { payload = Payload(writes: payload.writes, ops: payload.ops, expect: payload.expect, merged: newValue, fields: payload.fields) }
        }
        /// Files (`CPConflictRule.fields`): the server copy of each file the row touches, taken
        /// at enqueue, compared by the client before the first send (`ConflictPromptFiles`).
        public var fields: [CPFieldSnapshot] {
            get { payload.fields }
            set { payload = Payload(writes: payload.writes, ops: payload.ops, expect: payload.expect, merged: payload.merged, fields: newValue) }
        }

        init(writes: [WriteID], ops: [Op], expect: [CPExpectation], fields: [CPFieldSnapshot] = []) {
            payload = Payload(writes: writes, ops: ops, expect: expect, merged: nil, fields: fields)
        }

        public var key: WriteID { writes[0] }
        /// The steps the server is asked to apply.
        public var sentOps: [Op] { merged ?? ops }
        public var request: CPWriteRequest { CPWriteRequest(key: key, writes: writes, ops: sentOps, expect: expect, force: force) }

        public static func == (a: Entry, b: Entry) -> Bool {
            a.sent == b.sent && a.force == b.force && a.remoteChangeSeen == b.remoteChangeSeen
                && (a.payload === b.payload
                    || (a.writes == b.writes && a.ops == b.ops && a.expect == b.expect && a.merged == b.merged && a.fields == b.fields))
        }

        public func hash(into h: inout Hasher) {
            h.combine(writes); h.combine(ops); h.combine(expect); h.combine(sent); h.combine(force)
            h.combine(remoteChangeSeen); h.combine(merged); h.combine(fields)
        }
    }

    /// A write the server applied whose effect a list result may not show yet.
    public struct Confirmed: Sendable, Hashable {
        public var txID: UInt64
        public var ops: [Op]
    }

    /// An `OfflineEntry`: the last server result seen for a query.
    public struct Cached: Sendable, Hashable {
        public var query: Query
        public var snapshot: CPSnapshot
    }

    /// Core Data state: the write queue and the offline snapshots (both durable regardless of
    /// `ClientContext.persistence`, see the strategy's doc comment).
    public struct Durable: Sendable, Hashable {
        public var queue: [Entry]
        public var cache: [Cached]
        /// `known`, in chunks (`CPKnownChunks`: a persist followed by a change copies one).
        public var knownChunks: CPKnownChunks
        /// `knownVersion`, in chunks (`CPVersionChunks`: a persist followed by a set copies one).
        public var knownVersionChunks: CPVersionChunks
        public var confirmed: [Confirmed]
        public var conflictsRaised: UInt32
        /// `/tasks/sync`'s last `serverUpdatedSince` (`last_sync`).
        public var lastTaskSync: UInt64 = 0

        /// The newest server copy of every entity seen.
        public var known: EntityStore { knownChunks.store }
        /// The server's `modified` of every entity seen (0: none), dense by id.
        public var knownVersion: [UInt64] { knownVersionChunks.all }
    }

    /// The conflict prompt in front of the user (seed 003 `SyncConflict`: entity, local, server,
    /// reason): the row it pauses, and the server's snapshot from the 409 payload, so the user
    /// chooses knowingly and "keep server" / "merge" need no re-fetch.
    public struct Prompt: Sendable, Hashable {
        public var id: ConflictID
        /// The idempotency key of the paused row (the queue head).
        public var key: WriteID
        public var entity: EntityID
        /// The server's `modified` and the row's snapshot of it: the version mismatch.
        public var serverVersion: UInt64
        public var snapshot: UInt64
        /// The server's record (nil: the server has none).
        public var server: EntityRecord?
    }

    struct Hold: Sendable, Hashable {
        var entity: EntityID
        var record: EntityRecord?
    }

    struct View: Sendable {
        var sub: SubscriptionID
        var query: Query
        /// The list's last server answer (or its offline copy).
        var base: CPSnapshot? { didSet { answer = CPAnswerID(base) } }
        /// Where `base` lives and its `asOf`, kept with it: a redraw reads these words instead
        /// of the optional snapshot (reading `base?.asOf` copied the snapshot per list).
        var answer = CPAnswerID(nil)
        /// Lists of equal queries share one group number, lists of different queries never do
        /// (`queryGroup(of:)`): a redraw and an answer tell lists of one query by comparing an
        /// integer instead of two queries (derived, never observable).
        var group = 0
        var fromCache = false
        /// Server records kept back for entities with pending writes.
        var holds: [Hold] = []
        var shown: QueryResult?
        /// What `shown` was drawn from, kept to redraw by what changed (derived, never
        /// observable; `renderView`).
        var render: CPListRender?
    }

    static func onceTimer(_ r: QueryRequestID) -> TimerID { TimerID(0x8000_0000 | (r.raw & 0x7FFF_FFFF)) }
    static let pollMs: Int64 = 5_000
    static let queryTimeoutMs: Int64 = 3_000

    public let id: ClientID
    let cap: Int
    let incarnation: Int

    public internal(set) var queue: [Entry] = [] { didSet { overlayEpoch &+= 1 } }
    /// `queue.flatMap(\.writes)`, kept with the queue where rows come and go (`pendingWrites`
    /// is read on every yield: building it walked the queue each time). Derived, never
    /// observable; debug builds check it on every read.
    var pendingWriteList: [WriteID] = []
    var cache: [Cached] = []
    /// The newest server copy of every entity seen, and its `modified` (0: none), dense by id.
    /// Changed through `setKnown` / `applyKnown`, which log the slots for the lists' redraw.
    var known = EntityStore() { didSet { knownEpoch &+= 1 } }
    /// Counts changes of `known`; `knownLogEpoch` is its value after the last logged change, so
    /// a change made around the log (equal counts otherwise) makes every list build again.
    var knownEpoch: UInt64 = 0
    var knownLogEpoch: UInt64 = 0
    /// Slots of `known` changed since the lists were last redrawn (derived, never observable).
    var knownLog: [EntityID] = []
    /// `known` as the durable state keeps it, changed with it (`setKnown`, `applyKnown`).
    var knownChunks = CPKnownChunks()
    /// What `learn` compares a list's next answer with (`CPLearnRefs`; derived, never
    /// observable).
    var learnRefs = CPLearnRefs()
    var knownVersion: [UInt64] = []
    /// `knownVersion` as the durable state keeps it, set with it (`setVersion`).
    var knownVersionChunks = CPVersionChunks()
    var confirmed: [Confirmed] = [] { didSet { overlayEpoch &+= 1 } }
    /// Counts changes of `queue` and `confirmed` (what the lists lay over their answers): a
    /// list whose overlay was taken at the same count and answer needs no comparison of it
    /// (`CPListRender.Overlay.Key`; derived, never observable).
    var overlayEpoch: UInt64 = 0
    /// What a redraw works out for one list before it draws any (`refreshViews`): plain words,
    /// in a buffer the client keeps between redraws (`planScratch`). The held records it lays
    /// over its answer are kept beside it (`planHoldsScratch`), so reading a plan, which the
    /// search for a list's leader does for every list drawn before it, counts no references.
    struct RedrawPlan: Sendable {
        /// Where the list's shown result lived before the redraw (taken without a reference).
        var before: CPShownID
        var answer: CPAnswerID
        var group: Int
        /// The list it shows the result of (-1: none).
        var follows = -1
        /// Drawn in this redraw (it has an answer, is not left as it is, and follows none).
        var leads = false
        /// It let go of its leader's result before the leader was drawn.
        var released = false
        /// The redraw changed what it shows.
        var changed = false
    }
    /// `refreshViews`' plans and drawn lists, emptied after each redraw and kept for their
    /// capacity (derived, never observable).
    var planScratch: [RedrawPlan] = []
    var planHoldsScratch: [[Hold]] = []
    var drawnScratch: [Int] = []
    /// How often the redraw's shortcuts were taken (derived, never observable): the tests read
    /// it to tell that a shortcut still runs, not only that what it draws is right.
    struct RedrawShortcuts: Sendable {
        /// Lists an answer's redraw left as they were (`refreshViews`' `touched`).
        var listsLeft = 0
        /// Lists opened and drawn alone (`refreshOpened`).
        var openedAlone = 0
    }
    var shortcuts = RedrawShortcuts()
    /// `overlayEpoch` and `knownEpoch` when the lists were last all redrawn (`refreshViews`):
    /// while both are unchanged, every list shows what a redraw would draw, so a list opened
    /// then is drawn alone (`refreshOpened`). Nil: unknown (derived, never observable).
    var refreshedAt: (overlay: UInt64, known: UInt64)?
    /// `pendingEntities()`, kept up to date where rows come and go (`CPPendingEntities`: a
    /// row costs what it names; derived, never observable; `pendingNow`).
    var pendingSet = CPPendingEntities()
    var conflictsRaised: UInt32 = 0
    /// `/tasks/sync`'s last `serverUpdatedSince`, sent as `last_sync` (`ConflictPromptTaskSync`).
    var lastTaskSync: UInt64 = 0
    /// A `/tasks/sync` answer is being settled row by row: the queue is pumped once, after.
    var settlingBatch = false
    /// The head row waits for the lists before its field comparison (`ConflictPromptFiles`).
    var waitingForLists = false

    public private(set) var online = false
    /// `ConnectivityMonitor.isOffline` is network down *or* server unreachable; this is the
    /// second half, learnt from timeouts and answers.
    public internal(set) var reachable = true
    /// The queue head's request is out and unanswered.
    var inFlight = false
    var failures = 0
    public internal(set) var openConflict: Prompt?
    /// Prompts closed because the server's final answer (applied or refused) for their row
    /// arrived while they were open: the user's answer, when it comes, is moot and ignored.
    var closedPrompts: [ConflictID] = []
    var views: [View] = []
    /// The next unused `View.group` (never reused within an incarnation).
    var nextGroup = 0
    var once: [(QueryRequestID, Query)] = []
    var awaitingFetch = false
    /// Timer ids are never reused within an incarnation (a cancelled id set again could be hit
    /// by the earlier, still queued firing: see the report on `Simulator.drainClient`).
    var nextTimer: UInt32 = 1
    var requestTimer: TimerID?
    var pollTimer: TimerID?

    /// The run's data model.
    let schema: Schema
    /// Whether the run keeps a story (`.note` effects are built only then).
    let notes: Bool

    public init(context: ClientContext, restoring durable: Durable?) {
        id = context.id
        schema = context.schema
        notes = context.tracesNotes
        cap = context.queueCap
        incarnation = context.incarnation
        if let d = durable {
            queue = d.queue
            pendingSet = CPPendingEntities(d.queue)
            pendingWriteList = d.queue.flatMap(\.writes)
            cache = d.cache
            known = d.knownChunks.store
            knownChunks = d.knownChunks
            knownVersion = d.knownVersionChunks.all
            knownVersionChunks = d.knownVersionChunks
            confirmed = d.confirmed
            conflictsRaised = d.conflictsRaised
            lastTaskSync = d.lastTaskSync
        }
    }

    public var durableState: Durable {
        assert(knownVersionChunks.all == knownVersion, "the durable version chunks differ from the client's versions")
        return Durable(queue: queue, cache: cache, knownChunks: knownChunks, knownVersionChunks: knownVersionChunks, confirmed: confirmed,
                       conflictsRaised: conflictsRaised, lastTaskSync: lastTaskSync)
    }

    /// (Read after every yield: found in place, so no whole list state is copied to read it.)
    public func result(of subscription: SubscriptionID) -> QueryResult? {
        guard let k = viewIndex(of: subscription) else { return nil }
        return views.withUnsafeBufferPointer { vb in vb[k].shown }
    }

    /// The index of the list of `s`, found in place (`firstIndex(where:)` copied every list's
    /// state it passed) by binary search: `views` ascends by subscription (`subscribe` sorts
    /// it, removals keep the order), and a yield asks once per list that changed.
    func viewIndex(of s: SubscriptionID) -> Int? {
        views.withUnsafeBufferPointer { vb in
            var lo = 0, hi = vb.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if vb[mid].sub < s { lo = mid + 1 } else { hi = mid }
            }
            return lo < vb.count && vb[lo].sub == s ? lo : nil
        }
    }

    public var pendingWrites: [WriteID] {
        assert(pendingWriteList == queue.flatMap(\.writes), "the kept pending writes differ from the queue's")
        return pendingWriteList
    }

    /// `pendingWrites.count` (read after every step).
    public var pendingWriteCount: Int {
        assert(pendingWriteList == queue.flatMap(\.writes), "the kept pending writes differ from the queue's")
        return pendingWriteList.count
    }

    /// Removes the head row from the queue (and its writes from `pendingWriteList`).
    mutating func removeHead() {
        let n = queue[0].writes.count
        pendingSet.remove(queue[0])
        queue.removeFirst()
        pendingWriteList.removeFirst(n)
    }

    func version(_ e: EntityID) -> UInt64 { Int(e.raw) < knownVersion.count ? knownVersion[Int(e.raw)] : 0 }

    mutating func setVersion(_ e: EntityID, _ v: UInt64) {
        let i = Int(e.raw)
        if i >= knownVersion.count { knownVersion.append(contentsOf: repeatElement(0, count: i - knownVersion.count + 1)) }
        knownVersion[i] = v
        knownVersionChunks.set(i, v, count: knownVersion.count)
        learnRefs.note(e)
    }

    // MARK: - Inputs

    public mutating func handle(_ input: ClientInput<ConflictPromptDown>, now: Int64, out: inout ClientOutbox<ConflictPromptUp>) {
        switch input {
        case .network(.online):
            online = true
            reachable = true
            failures = 0
            armPoll(out: &out)
            fetch(out: &out)
            pump(out: &out)
        case .network(.offline):
            online = false
            awaitingFetch = false
            if inFlight {
                inFlight = false
                cancelRequestTimer(out: &out)
            }
            if let t = pollTimer { out(.cancelTimer(t)) }
            pollTimer = nil
            let failed = once
            once.removeAll()
            for (r, q) in failed {
                out(.cancelTimer(Self.onceTimer(r)))
                out(.event(offlineFailure(r, q)))
            }
        case .connected, .disconnected:
            out(.event(.invalidInput("connection event on a datagram transport: \(input)")))
        case .timerFired(let t):
            timerFired(t, out: &out)
        case .received(let m):
            receive(m, out: &out)
        case .user(let cmd):
            user(cmd, out: &out)
        }
    }

    mutating func timerFired(_ t: TimerID, out: inout ClientOutbox<ConflictPromptUp>) {
        if t == requestTimer {
            // Timed out: the server counts as unreachable; retry the same request (same key).
            requestTimer = nil
            guard inFlight, online, !queue.isEmpty else { return }
            failures += 1
            reachable = false
            send(out: &out)
        } else if t == pollTimer {
            pollTimer = nil
            guard online else { return }
            if awaitingFetch { reachable = false }
            // (A file row waiting for the lists asks again even with no list open.)
            if !views.isEmpty || waitingForLists { fetch(out: &out) }
            armPoll(out: &out)
        } else if let i = once.firstIndex(where: { Self.onceTimer($0.0) == t }) {
            let (r, q) = once.remove(at: i)
            reachable = false
            out(.event(offlineFailure(r, q)))
        }
    }

    mutating func user(_ cmd: UserCommand, out: inout ClientOutbox<ConflictPromptUp>) {
        switch cmd {
        case .write(let w):
            enqueue(w, out: &out)
        case .subscribe(let s, let q):
            views.removeAll { $0.sub == s }
            var v = View(sub: s, query: q)
            v.group = queryGroup(of: q)
            if let c = cache.first(where: { $0.query == q }) {
                v.base = c.snapshot
                v.fromCache = true
            }
            views.append(v)
            views.sort { $0.sub < $1.sub }
            if let r = refreshedAt, r.overlay == overlayEpoch, r.known == knownEpoch, let i = viewIndex(of: s) {
                refreshOpened(i, out: &out)
            } else {
                refreshViews(out: &out)
            }
            fetch(out: &out)
        case .unsubscribe(let s):
            guard views.contains(where: { $0.sub == s }) else {
                out(.event(.invalidInput("no subscription \(s) to close")))
                return
            }
            views.removeAll { $0.sub == s }
            pruneConfirmed()
            fetch(out: &out)
        case .queryOnce(let r, let q):
            guard online && reachable else {
                out(.event(offlineFailure(r, q)))
                return
            }
            once.removeAll { $0.0 == r }
            once.append((r, q))
            out(.send(.query(r, q)))
            out(.setTimer(Self.onceTimer(r), afterMs: Self.queryTimeoutMs))
        case .resolveConflict(let c, let choice):
            resolve(c, choice, out: &out)
        case .forceSync:
            out(.event(.invalidInput("sideBar has no forced sync (seed 003): \(cmd)")))
        case .syncNow:
            out(.event(.invalidInput("sideBar has no sync button (seed 003): \(cmd)")))
        case .dropOldestWrite:
            dropOldest(out: &out)
        case .switchTenant, .logout:
            // `.databasePerTenant` (seed 003's OfflineStore is per user): the simulator opens
            // another store; the client never hears of tenants.
            out(.event(.invalidInput("conflictPrompt keeps one local store per user; the harness switches stores: \(cmd)")))
        }
    }

    /// Seed 003 "Queue overflow policy": "Allow user-initiated 'Drop oldest' action to prune and
    /// retry enqueue" (`pruneOldestWrites(keeping:)`, "call only after user confirms"). The
    /// oldest row never sent is dropped and each write it carries is told rejected (`queueFull`:
    /// pruned from a full queue); a sent row is never dropped, since its request may still be
    /// applied and "rejected" would then be a lie. The retry is the user's next write.
    mutating func dropOldest(out: inout ClientOutbox<ConflictPromptUp>) {
        guard let i = queue.firstIndex(where: { !$0.sent }) else {
            out(.event(.notice(queue.isEmpty ? "no queued write to drop" : "no queued write can be dropped: every one was sent")))
            return
        }
        let row = queue.remove(at: i)
        pendingSet.remove(row)
        pendingWriteList = queue.flatMap(\.writes)
        if notes { out(.note("drop oldest: unsent row \(row.key) pruned (\(queue.count) of \(cap) rows left)")) }
        persist(out: &out)
        out(.event(.notice("dropped the oldest queued write (\(row.writes.map(\.description).joined(separator: "+")))")))
        for w in row.writes { out(.event(.writeRejected(w, .queueFull))) }
        refreshViews(out: &out)
    }

    // MARK: - Write queue

    mutating func enqueue(_ w: UserWrite, out: inout ClientOutbox<ConflictPromptUp>) {
        if let why = Self.invalid(w, schema) {
            out(.event(.writeRejected(w.id, .invalid(why))))
            return
        }
        // Consecutive updates of one entity coalesce into the last row, if it was never sent.
        if let merged = coalesce(w) {
            // (The same entities: coalescing changes the row's steps, not its `expect`.)
            queue[queue.count - 1] = merged
            pendingWriteList.append(w.id)
            if notes { out(.note("\(w.id) coalesced into the unsent row \(merged.key) (\(merged.writes.count) writes)")) }
            persist(out: &out)
            refreshViews(out: &out)
            return
        }
        guard queue.count < cap else {
            if notes { out(.note("queue full (\(queue.count) of \(cap) rows): \(w.id) blocked with a visible error; nothing queued is dropped")) }
            out(.event(.writeRejected(w.id, .queueFull)))
            return
        }
        var entities: [EntityID] = []
        for op in w.ops where !entities.contains(op.entity) { entities.append(op.entity) }
        entities.sort()
        // Files are compared by fields on the client: their request asks for no version check.
        let row = Entry(writes: [w.id], ops: w.ops, expect: entities.map { CPExpectation($0, checkedByFields(w, $0) ? 0 : version($0)) },
                        fields: fieldSnapshots(w, entities))
        queue.append(row)
        pendingSet.add(row)
        pendingWriteList.append(contentsOf: row.writes)
        persist(out: &out)
        refreshViews(out: &out)
        pump(out: &out)
    }

    static func invalid(_ w: UserWrite, _ schema: Schema) -> String? {
        if w.ops.isEmpty { return "a write with no steps" }
        for op in w.ops {
            switch op {
            case .create(_, let ns, let a), .update(_, let ns, let a):
                if let e = EntityStore.validate(a, ns, schema: schema) { return e.description }
            case .link(_, let l, _), .unlink(_, let l, _):
                if !schema.contains(l) { return "unknown link" }
            case .delete: break
            }
        }
        return nil
    }

    /// The last row with `w` folded in, if `w` is a single-entity update that can coalesce.
    func coalesce(_ w: UserWrite) -> Entry? {
        guard var last = queue.last, !last.sent, openConflict?.key != last.key,
              case .update(let e, let ns, var merged)? = last.ops.first, last.ops.count == 1 else { return nil }
        for op in w.ops {
            guard case .update(e, ns, let a) = op else { return nil }
            for x in a {
                if let i = merged.firstIndex(where: { $0.field == x.field }) { merged[i] = x } else { merged.append(x) }
            }
        }
        last.ops = [.update(e, ns, merged)]
        last.writes.append(w.id)
        return last
    }

    /// Replays the head of the queue when online and not paused on a conflict.
    mutating func pump(out: inout ClientOutbox<ConflictPromptUp>) {
        guard online, openConflict == nil, !inFlight, !queue.isEmpty, !settlingBatch else { return }
        guard fieldCheckPasses(out: &out) else { return }
        send(out: &out)
    }

    mutating func send(out: inout ClientOutbox<ConflictPromptUp>) {
        let batch = taskBatch()
        if batch > 0 {
            sendTaskBatch(batch, out: &out)
            return
        }
        if !queue[0].sent {
            queue[0].sent = true
            persist(out: &out)
        }
        inFlight = true
        out(.send(.write(queue[0].request)))
        cancelRequestTimer(out: &out)
        let t = freshTimer()
        requestTimer = t
        out(.setTimer(t, afterMs: 2_000 + 1_000 * Int64(min(failures, 4))))
    }

    mutating func freshTimer() -> TimerID {
        defer { nextTimer = nextTimer == 0x7FFF_FFFF ? 1 : nextTimer + 1 }
        return TimerID(nextTimer)
    }

    mutating func cancelRequestTimer(out: inout ClientOutbox<ConflictPromptUp>) {
        if let t = requestTimer { out(.cancelTimer(t)) }
        requestTimer = nil
    }

    mutating func armPoll(out: inout ClientOutbox<ConflictPromptUp>) {
        if let t = pollTimer { out(.cancelTimer(t)) }
        let t = freshTimer()
        pollTimer = t
        out(.setTimer(t, afterMs: Self.pollMs))
    }

    mutating func answered(out: inout ClientOutbox<ConflictPromptUp>) {
        reachable = true
        failures = 0
        if inFlight {
            inFlight = false
            cancelRequestTimer(out: &out)
        }
    }

    mutating func writeResult(_ key: WriteID, _ outcome: CPOutcome, out: inout ClientOutbox<ConflictPromptUp>) {
        reachable = true
        // A duplicate or late answer for a row already settled.
        guard let head = queue.first, head.key == key, head.sent else { return }
        switch outcome {
        case .applied(let tx, let changes):
            answered(out: &out)
            closePrompt(for: key)
            removeHead()
            confirmed.append(Confirmed(txID: tx, ops: head.sentOps))
            for ch in changes {
                let e = ch.entity
                // Our own write moved `modified`: later rows for the entity that were based on
                // what this one replaced are rebased, so they do not conflict with ourselves.
                let mine = head.expect.first { $0.entity == e }?.version ?? 0
                for i in queue.indices {
                    // (The rule, which names the namespace, is asked only of rows on `e`.)
                    // (The row's entities read in place: `queue[i].expect` counted a reference
                    // per row, and most rows do not name `e`.)
                    guard queue.withUnsafeBufferPointer({ qb in qb[i].payload.expect.contains { $0.entity == e } }),
                          Self.rule(for: e, queue[i], schema) != .fields else { continue }
                    for j in queue[i].expect.indices where queue[i].expect[j].entity == e {
                        let v = queue[i].expect[j].version
                        if v == mine || v == ch.before { queue[i].expect[j].version = ch.after }
                    }
                }
                if version(e) == ch.before && ch.after > version(e) {
                    for op in head.sentOps where op.entity == e { applyKnown(Self.overlayStep(op)) }
                    setVersion(e, ch.after)
                }
            }
            if !head.fields.isEmpty { rebaseFieldSnapshots(after: head) }
            for w in head.writes { out(.event(.writeConfirmed(w))) }
            pruneConfirmed()
            settled(out: &out)
        case .refused(let why):
            answered(out: &out)
            closePrompt(for: key)
            removeHead()
            for w in head.writes { out(.event(.writeRejected(w, .serverError(why)))) }
            settled(out: &out)
        case .conflict(let e, let v, let snap, let server):
            // Stale: a 409 for the unforced copy after the user chose "keep local", or a
            // duplicate of a 409 already put before the user.
            guard !head.force, openConflict == nil else { return }
            answered(out: &out)
            conflictsRaised &+= 1
            let c = ConflictID(UInt32(truncatingIfNeeded: incarnation & 0xFFF) << 20 | (conflictsRaised & 0xF_FFFF))
            openConflict = Prompt(id: c, key: key, entity: e, serverVersion: v, snapshot: snap, server: server)
            // The payload is the newest server copy the client has of the entity: lists and
            // later rows start from it (the user has now seen it).
            if v > version(e) {
                setKnown(e, server)
                setVersion(e, v)
            }
            if notes {
                out(.note("409 on \(key): \(Self.rule(for: e, head, schema).name) mismatch on #\(e.raw) (server \(v), snapshot \(snap)); queue paused"))
            }
            persist(out: &out)
            // The prompt shows the server's version beside the local one (seed 003 `SyncConflict`
            // local/server/reason; seed 004 §5.3's side-by-side diff).
            out(.event(.notice("\(c): server version of #\(e.raw) (\(Self.rule(for: e, head, schema).name) \(v), yours based on \(snap)): \(Self.describe(server, schema))")))
            out(.event(.conflictRaised(c, e)))
        }
    }

    /// A final answer (applied or refused) decides the row even if a 409 for another copy of the
    /// same request arrived first and put a prompt before the user: the server remembers final
    /// answers under the key, so every later copy (forced or not) gets the same one. The prompt
    /// is closed so the queue can move on.
    mutating func closePrompt(for key: WriteID) {
        guard let open = openConflict, open.key == key else { return }
        openConflict = nil
        closedPrompts.append(open.id)
    }

    /// After a row leaves the queue: store, redraw, replay the next; an empty queue refreshes
    /// the lists (seed 003: "process queue in order -> refresh lists").
    mutating func settled(out: inout ClientOutbox<ConflictPromptUp>) {
        persist(out: &out)
        refreshViews(out: &out)
        pump(out: &out)
        if queue.isEmpty { fetch(out: &out) }
    }

    mutating func resolve(_ c: ConflictID, _ choice: ConflictChoice, out: inout ClientOutbox<ConflictPromptUp>) {
        if let i = closedPrompts.firstIndex(of: c) {
            // The row was decided by the server while the prompt was open: nothing to do.
            closedPrompts.remove(at: i)
            return
        }
        guard let open = openConflict, open.id == c, let head = queue.first, head.key == open.key else {
            out(.event(.invalidInput("no open conflict \(c)")))
            return
        }
        openConflict = nil
        switch choice {
        case .keepLocal:
            queue[0].force = true
            if notes { out(.note("keep local: \(head.key) replayed forced")) }
            persist(out: &out)
            pump(out: &out)
        case .keepServer:
            removeHead()
            if notes { out(.note("keep server: \(head.key) dropped; lists re-fetched to show the server version")) }
            for w in head.writes { out(.event(.writeRejected(w, .conflictDiscarded))) }
            settled(out: &out)
            // Show the server's version now (the 409 carried it), not the last list answer.
            if !queue.isEmpty { fetch(out: &out) }
        case .merge:
            // Seed 003 "Open Questions": merge for text content only, other fields choose
            // local. The row is replayed forced with each text field the server also holds
            // merged; the request changes, which is safe because a 409 is never remembered
            // under the key and the forced copy is the only one that can apply. Lists show the
            // merged text once the server has applied it (its confirmation).
            let merged = Self.merge(head.ops, open.entity, server: open.server, schema: schema)
            if notes { out(.note("merge: \(head.key) replayed forced as \(merged.map(\.description).joined(separator: "; "))")) }
            queue[0].merged = merged
            queue[0].force = true
            persist(out: &out)
            pump(out: &out)
        }
    }

    /// Seed 003's text merge ("Open Questions": "provide 'merge' only for text content; other
    /// fields use choose-server/choose-local"): for each text field the row updates on the
    /// conflicting entity and the server holds as text, the server's text, then the local text
    /// unless one already contains the other (a local edit that extends the server's text is
    /// kept as is). Every other step and field keeps the local value.
    static func merge(_ ops: [Op], _ e: EntityID, server: EntityRecord?, schema: Schema) -> [Op] {
        guard let server else { return ops }
        return ops.map { op in
            guard case .update(e, let ns, var a) = op else { return op }
            for k in a.indices {
                guard case .string(let local) = a[k].value, case .string(let theirs)? = server[a[k].field] else { continue }
                a[k].value = .string(mergeText(server: theirs, local: local))
            }
            return .update(e, ns, a)
        }
    }

    /// The conflict rule of the namespace the row's steps on `e` belong to.
    static func rule(for e: EntityID, _ entry: Entry, _ schema: Schema) -> CPConflictRule {
        guard let op = entry.ops.first(where: { $0.entity == e }) else { return .expectedVersion }
        let ns = op.namespace(in: schema)
        return schema.contains(ns) ? CPConflictRule.forNamespace(named: schema.name(of: ns)) : .expectedVersion
    }

    static func mergeText(server: String, local: String) -> String {
        if local == server || local.hasPrefix(server) { return local }
        if server.hasPrefix(local) { return server }
        return server + "\n" + local
    }

    /// A record as the prompt shows it: field = value, in field order.
    static func describe(_ r: EntityRecord?, _ schema: Schema) -> String {
        guard let r else { return "deleted" }
        var parts: [String] = []
        for f in schema.fields(of: r.namespace) { if let v = r[f] { parts.append("\(schema.name(of: f)) = \(v)") } }
        return parts.isEmpty ? "(empty)" : parts.joined(separator: ", ")
    }

    // MARK: - Reads

    mutating func fetch(out: inout ClientOutbox<ConflictPromptUp>) {
        guard online else { return }
        awaitingFetch = true
        // (Read in place: `views.map` copied every list's state.)
        let subs = views.withUnsafeBufferPointer { vb in
            var subs: [CPSubscription] = []
            subs.reserveCapacity(vb.count)
            for k in 0..<vb.count { subs.append(CPSubscription(vb[k].sub, vb[k].query)) }
            return subs
        }
        out(.send(.fetch(subs)))
    }

    mutating func receive(_ m: ConflictPromptDown, out: inout ClientOutbox<ConflictPromptUp>) {
        switch m {
        case .writeResult(let key, let outcome):
            writeResult(key, outcome, out: &out)
        case .taskSyncResult(let rs, let updated, let since):
            taskSyncResult(rs, updated: updated, since: since, out: &out)
        case .queryResult(let r, let snap):
            reachable = true
            guard let i = once.firstIndex(where: { $0.0 == r }) else { return }
            let (_, q) = once.remove(at: i)
            out(.cancelTimer(Self.onceTimer(r)))
            learn(snap)
            remember(q, snap)
            persist(out: &out)
            out(.event(.queryOnceResult(r)))
        case .results(let ids, let snaps, let realtime):
            reachable = true
            if !realtime { awaitingFetch = false }
            guard ids.count == snaps.count else {
                out(.event(.invalidInput("results with \(ids.count) ids and \(snaps.count) snapshots")))
                return
            }
            let pending = pendingNow()
            // The snapshots learnt and remembered so far, with their lists' query groups.
            var learnt: [(group: Int, snap: Int)] = []
            // Per pair of answers met (a list's answer before, the new one): the pending
            // entities whose record differs between them, with the record before. Lists of one
            // query move between the same two answers: the pending entities are looked up in
            // both once per pair, not once per list. (Every answer compared here was alive when
            // this loop began, a list's or the message's, so equal words are the same answer.)
            var heldAcross: [(old: CPAnswerID, new: CPAnswerID, holds: [Hold])] = []
            // The lists this answer changes (`refreshViews` may leave the others as they are).
            var touched = [Bool](repeating: false, count: views.count)
            // (By index: iterating `zip(ids, snaps).enumerated()` copied each pair through an
            // optional tuple, an outlined copy per list of every answer.)
            for n in 0..<ids.count {
                guard let i = viewIndex(of: ids[n]) else { continue }
                let s = ids[n]
                let snap = snaps[n]
                guard snap.versions.count == snap.result.entries.count else {
                    out(.event(.invalidInput("result for \(s) without one version per entry")))
                    continue
                }
                // Datagrams reorder: never go back to an older answer. (The list's answer words,
                // read in place: binding `views[i].base` copied its snapshot, for every list.)
                let from = views.withUnsafeBufferPointer { $0[i].answer }
                if from.present, snap.asOf < from.asOf { continue }
                touched[i] = true
                // (The list is changed in place: a copy of it cost a retain and a release of
                // every piece of its kept render state. Its held records are changed only when
                // they change: the render state shares their storage, so a change copies them,
                // and the redraw then compares them record by record instead of by storage.)
                if views.withUnsafeBufferPointer({ vb in vb[i].holds.contains { !Self.isPending($0.entity, pending) } }) {
                    views[i].holds.removeAll { !Self.isPending($0.entity, pending) }
                }
                // An answer in the storage of the one before holds every record it held (equal
                // words: `CPListRender.sameBuffers` of the two results).
                let to = CPAnswerID(snap)
                if from.present, from.result != to.result {
                    let old = views[i].base!
                    let differ: [Hold]
                    if let k = heldAcross.firstIndex(where: { $0.old == from && $0.new == to }) {
                        differ = heldAcross[k].holds
                    } else {
                        var d: [Hold] = []
                        for e in pending {
                            if let h = Self.heldAcross(e, from: old.result, to: snap.result) { d.append(h) }
                        }
                        heldAcross.append((from, to, d))
                        differ = d
                    }
                    if views[i].holds.isEmpty {
                        // `differ` itself (ascending, as `pending` is): every list of the query
                        // moving between the same two answers then holds one storage, which the
                        // redraw tells equal without comparing records.
                        if !differ.isEmpty { views[i].holds = differ }
                        for h in differ { markRemoteChange(h.entity, snap, out: &out) }
                    } else {
                        var held = false
                        for h in differ where !views[i].holds.contains(where: { $0.entity == h.entity }) {
                            views[i].holds.append(h)
                            held = true
                            markRemoteChange(h.entity, snap, out: &out)
                        }
                        // (Sorted already unless a record was added: one hold per entity.)
                        if held { views[i].holds.sort { $0.entity < $1.entity } }
                    }
                }
                views[i].base = snap
                views[i].fromCache = false
                // The server answers lists of one query with one snapshot value: learnt and
                // remembered once (again, each would change nothing).
                let group = views[i].group
                if learnt.contains(where: { $0.group == group && Self.same(snaps[$0.snap], snap) }) { continue }
                learnt.append((group, n))
                learn(snap, group: group)
                remember(views[i].query, snap)
            }
            pruneConfirmed()
            persist(out: &out)
            refreshViews(out: &out, touched: touched)
            // A file row held for the latest lists is compared and sent now.
            if !realtime && waitingForLists { pump(out: &out) }
        }
    }

    /// `Hold(entity: e, record: old.record(e))` when `e`'s record differs between the two answers
    /// (present in one only, or unequal), else nil. Both are read in place: `old.record(e) !=
    /// new.record(e)` copied both records and compared them as a tuple of optionals, which the
    /// runtime destroys through its generic witnesses, for every pending entity of every pair of
    /// answers (hundreds of instructions each, with a queue of tens of rows).
    static func heldAcross(_ e: EntityID, from old: QueryResult, to new: QueryResult) -> Hold? {
        let i = entryIndex(of: e, in: old), j = entryIndex(of: e, in: new)
        switch (i, j) {
        case (nil, nil): return nil
        case (let i?, let j?):
            let same = old.entries.withUnsafeBufferPointer { ob in
                new.entries.withUnsafeBufferPointer { nb in CPListRender.equal(ob[i].record, nb[j].record) }
            }
            return same ? nil : Hold(entity: e, record: old.entries[i].record)
        case (let i?, nil): return Hold(entity: e, record: old.entries[i].record)
        case (nil, _?): return Hold(entity: e, record: nil)
        }
    }

    /// The position of `e` in `r.entries` (ascending by id), by binary search in place.
    static func entryIndex(of e: EntityID, in r: QueryResult) -> Int? {
        r.entries.withUnsafeBufferPointer { eb in
            var lo = 0, hi = eb.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if eb[mid].id == e { return mid }
                if eb[mid].id < e { lo = mid + 1 } else { hi = mid }
            }
            return nil
        }
    }

    /// Seed 003 "Data Flow": "On realtime events: apply only if no local pending; otherwise mark
    /// conflict." The record is held back (the caller keeps the old server copy) and each row
    /// touching the entity gets a visible conflict mark once (`SyncState.conflict`, the
    /// pending-writes view's badge); the 409 and the prompt come when the row is replayed.
    mutating func markRemoteChange(_ e: EntityID, _ snap: CPSnapshot, out: inout ClientOutbox<ConflictPromptUp>) {
        for i in queue.indices where !queue[i].remoteChangeSeen && queue[i].expect.contains(where: { $0.entity == e }) {
            queue[i].remoteChangeSeen = true
            let at = snap.result.entries.firstIndex { $0.id == e }.map { snap.versions[$0] }
            if notes { out(.note("realtime change of #\(e.raw) held back: \(queue[i].key) is pending; row marked conflict")) }
            out(.event(.notice("conflict mark on \(queue[i].writes.map(\.description).joined(separator: "+")): #\(e.raw) changed on the server" + (at.map { " (modified \($0))" } ?? " (removed)") + " while it was pending")))
        }
    }

    /// `queryOnce`'s offline error, carrying the last known result when the offline store has
    /// one for the query (its `OfflineEntry`: the last server answer), for the user to treat as
    /// stale (seed 000 §4.1, which the harness asks of every strategy).
    func offlineFailure(_ r: QueryRequestID, _ q: Query) -> UserEvent {
        if let c = cache.first(where: { $0.query == q }) {
            return .queryOnceFailedWithResult(r, offline: true, lastKnown: c.snapshot.result)
        }
        return .queryOnceFailed(r, offline: true, hasStaleResult: false)
    }

    /// `pendingEntities()`, as kept where rows come and go (`pendingSet`): asked on every
    /// redraw and answer. (Debug builds check it against the queue. Mutating, like its
    /// callers: a non-mutating method called from them may copy the whole client.)
    mutating func pendingNow() -> [EntityID] {
        assert(pendingSet.list == Self.pendingEntities(of: queue), "stale pending entities")
        return pendingSet.list
    }

    /// Entities with a row in the queue, ascending.
    func pendingEntities() -> [EntityID] { Self.pendingEntities(of: queue) }

    /// `pendingEntities()`: each entity marked in a bit per id, then read back in id order
    /// (no sort, no duplicates to drop). Static over the queue: it is asked at every change of
    /// the queue, from mutating methods, where a method of the client copied the whole client.
    static func pendingEntities(of queue: [Entry]) -> [EntityID] {
        var words: [UInt64] = []
        var n = 0
        for k in 0..<queue.count {
            queue[k].payload.expect.withUnsafeBufferPointer { xb in
                for x in xb {
                    let w = Int(x.entity.raw >> 6)
                    if w >= words.count { words.append(contentsOf: repeatElement(0, count: w - words.count + 1)) }
                    let bit: UInt64 = 1 << UInt64(x.entity.raw & 63)
                    if words[w] & bit == 0 {
                        words[w] |= bit
                        n += 1
                    }
                }
            }
        }
        var out: [EntityID] = []
        out.reserveCapacity(n)
        for w in 0..<words.count {
            var b = words[w]
            while b != 0 {
                out.append(EntityID(UInt32(truncatingIfNeeded: w << 6 | b.trailingZeroBitCount)))
                b &= b - 1
            }
        }
        return out
    }

    /// Keeps each entry of a server answer as the newest copy of its entity unless a newer one
    /// is known. Every answer carries whole lists, so this runs over every entry of every list
    /// the answer holds: an entry whose record `known` already holds in the same storage (the
    /// common case: the server's record did not change since the last answer) is passed over
    /// with a pointer comparison instead of a copy and a field-by-field one (`setKnown` would
    /// find them equal and do nothing), and a version already known is not written again.
    ///
    /// `group`: the query group of the list the answer is for (nil: a one-shot read). The
    /// answer before it of that group, learnt in full, tells most entries apart without
    /// reading `known` (`CPLearnRefs`): only the entries that differ from it and those of
    /// entities whose known copy or version changed since are checked, in the same order.
    mutating func learn(_ snap: CPSnapshot, group: Int? = nil) {
        guard let group else {
            learnEach(snap)
            return
        }
        if learnRefs.epoch != knownEpoch { learnRefs.forget(knownEpoch: knownEpoch) }
        var candidates: [Int] = []
        swap(&candidates, &learnRefs.candidates)
        defer {
            candidates.removeAll(keepingCapacity: true)
            swap(&candidates, &learnRefs.candidates)
        }
        guard learnRefs.select(snap, group: group, into: &candidates) else {
            learnEach(snap)
            learnRefs.keep(snap, group: group, verified: false)
            return
        }
        let entries = snap.result.entries
        let versions = snap.versions
        for k in candidates where Self.learns(entries, versions, k, known: known, knownVersion: knownVersion) {
            let e = entries[k].id
            let v = versions[k]
            let was = version(e)
            if !Self.knownShares(known, e, entries, k) { setKnown(e, entries[k].record) }
            if v != was || Int(e.raw) >= knownVersion.count { setVersion(e, v) }
        }
        assert(Self.nextToLearn(entries, versions, from: 0, count: min(entries.count, versions.count), known: known, knownVersion: knownVersion)
                   == min(entries.count, versions.count), "learn passed over an entry it changes")
        learnRefs.keep(snap, group: group, verified: true)
    }

    /// `learn` without a kept answer to compare with: every entry read (`nextToLearn`).
    mutating func learnEach(_ snap: CPSnapshot) {
        let entries = snap.result.entries
        let versions = snap.versions
        let n = min(entries.count, versions.count)
        var k = Self.nextToLearn(entries, versions, from: 0, count: n, known: known, knownVersion: knownVersion)
        while k < n {
            let e = entries[k].id
            let v = versions[k]
            let was = version(e)
            if !Self.knownShares(known, e, entries, k) { setKnown(e, entries[k].record) }
            if v != was || Int(e.raw) >= knownVersion.count { setVersion(e, v) }
            k = Self.nextToLearn(entries, versions, from: k + 1, count: n, known: known, knownVersion: knownVersion)
        }
    }

    /// The first entry from `from` on (below `count`) that `learn` changes anything for: its
    /// version is not older than the known one, and the known record is not the entry's in
    /// the same storage, or the version is newer or not yet stored. `count` when none. One
    /// pass reading everything in place (the common answer changes a few entries, if any).
    static func nextToLearn(_ entries: [QueryResult.Entry], _ versions: [UInt64], from: Int, count n: Int,
                            known: EntityStore, knownVersion: [UInt64]) -> Int {
        known.records.withUnsafeBufferPointer { kb in
            entries.withUnsafeBufferPointer { eb in
                versions.withUnsafeBufferPointer { vb in
                    knownVersion.withUnsafeBufferPointer { kvb in
                        var k = from
                        while k < n {
                            let i = Int(eb[k].id.raw)
                            let stored = i < kvb.count
                            let was = stored ? kvb[i] : 0
                            let v = vb[k]
                            if v >= was {
                                if !stored || v != was { return k }
                                // (A `switch`: `kb[i] != nil` copied the record.)
                                guard i < kb.count else { return k }
                                switch kb[i] {
                                case .none: return k
                                case .some(let r): if !sameStorage(r, eb[k].record) { return k }
                                }
                            }
                            k += 1
                        }
                        return n
                    }
                }
            }
        }
    }

    /// Whether `learn` changes anything for entry `k` (`nextToLearn`'s test of one entry).
    static func learns(_ entries: [QueryResult.Entry], _ versions: [UInt64], _ k: Int, known: EntityStore, knownVersion: [UInt64]) -> Bool {
        nextToLearn(entries, versions, from: k, count: k + 1, known: known, knownVersion: knownVersion) == k
    }

    /// Whether two snapshots are the same value in the same storage (answer, versions, asOf):
    /// learning such a repeat of one query's snapshot again, and remembering it for that query
    /// again, leaves `known`, its versions and the offline cache as they are
    /// (`ConflictPromptLearnTests` checks it on generated runs).
    static func same(_ a: CPSnapshot, _ b: CPSnapshot) -> Bool {
        a.asOf == b.asOf && CPListRender.sameBuffers(a.result, b.result) && sameBuffer(a.versions, b.versions)
    }

    /// Whether `known[e]` holds `entries[k].record` in the same storage (then they are equal),
    /// read in place, without reference counting. (Static: a method called from `learn` copied
    /// the whole client per entry.)
    static func knownShares(_ known: EntityStore, _ e: EntityID, _ entries: [QueryResult.Entry], _ k: Int) -> Bool {
        known.records.withUnsafeBufferPointer { kb in
            entries.withUnsafeBufferPointer { eb in
                let i = Int(e.raw)
                guard i < kb.count else { return false }
                // (A `switch`: `kb[i] != nil` copied the record, three retains and releases.)
                switch kb[i] {
                case .none: return false
                case .some(let r): return sameStorage(r, eb[k].record)
                }
            }
        }
    }

    /// Whether `known[e]` holds a record that is not `r` in `r`'s storage, read in place.
    static func knownDiffers(_ known: EntityStore, _ e: EntityID, _ r: EntityRecord) -> Bool {
        known.records.withUnsafeBufferPointer { kb in
            let i = Int(e.raw)
            guard i < kb.count else { return true }
            // (A `switch`: `kb[i] != nil` copied the record.)
            switch kb[i] {
            case .none: return true
            case .some(let k): return !sameStorage(k, r)
            }
        }
    }

    /// Whether two records are the same value in the same storage (false says nothing).
    @inline(__always)
    static func sameStorage(_ a: EntityRecord, _ b: EntityRecord) -> Bool {
        a.namespace == b.namespace && sameBuffer(a.values, b.values) && sameBuffer(a.links, b.links)
            && sameBuffer(a.manyLinks, b.manyLinks)
    }

    ///
    /// The storage addresses are compared first: an array's count lives in its storage, so two
    /// arrays at one address have one count, and only arrays at different addresses read their
    /// counts (equal when both are empty, which may each have storage of their own). Reading
    /// both counts first cost two loads per array of every entry `learn` and a list's redraw
    /// pass over, where the addresses almost always agree.
    @inline(__always)
    static func sameBuffer<T>(_ a: [T], _ b: [T]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } } || (a.isEmpty && b.isEmpty)
    }

    /// `known[e] = r`, logged for the lists when it changes anything.
    mutating func setKnown(_ e: EntityID, _ r: EntityRecord?) {
        if known[e] == r {
            // The same record in another storage (a copy the client changed itself,
            // `applyKnown`): the answer's storage is taken, so the next answer carrying it is
            // passed over by storage (`learn`), not compared field by field at every answer
            // (a cost that grew with every entity the client ever wrote). The value is the
            // same: nothing is logged for the lists, and the durable chunks keep theirs.
            if let r, Self.knownDiffers(known, e, r) {
                let logged = knownLogEpoch == knownEpoch
                let learnLogged = learnRefs.epoch == knownEpoch
                known[e] = r
                if logged { knownLogEpoch = knownEpoch }
                learnRefs.note(e)
                if learnLogged { learnRefs.epoch = knownEpoch }
            }
            return
        }
        let learnLogged = learnRefs.epoch == knownEpoch
        known[e] = r
        knownChunks.take(e, from: known)
        knownLog.append(e)
        knownLogEpoch = knownEpoch
        learnRefs.note(e)
        if learnLogged { learnRefs.epoch = knownEpoch }
    }

    /// Applies a step to `known` (upsert), logging the slots it touched.
    mutating func applyKnown(_ op: Op) {
        var undo = EntityStore.UndoLog()
        let learnLogged = learnRefs.epoch == knownEpoch
        _ = known.apply(op, schema: schema, mode: .upsert, undo: &undo)
        let touched = known.touched(by: undo)
        for x in touched { knownChunks.take(x, from: known) }
        knownLog.append(contentsOf: touched)
        knownLogEpoch = knownEpoch
        // (The step's own entity too: a step may give its record new storage without a change.)
        learnRefs.note(op.entity)
        for x in touched { learnRefs.note(x) }
        if learnLogged { learnRefs.epoch = knownEpoch }
    }

    /// Drops every list's kept render state: the next redraw
    /// builds each from scratch.
    mutating func dropRenderCaches() {
        for i in views.indices { views[i].render = nil }
        refreshedAt = nil
    }

    /// Whether any list keeps render state.
    var hasRenderCaches: Bool { views.contains { $0.render != nil } }

    /// Keeps `snap` as the offline copy of `q`'s answer unless an older one. The same snapshot
    /// in the same storage (the server answers every fetch of a query with one value until a
    /// commit changes it) is not written again: the cache is shared with the durable state at
    /// every persist, so a write copied every cached query and answer, and the replaced durable
    /// state later destroyed them, for a value that stays what it is.
    mutating func remember(_ q: Query, _ snap: CPSnapshot) {
        if let i = cache.firstIndex(where: { $0.query == q }) {
            let keep = cache.withUnsafeBufferPointer { cb in snap.asOf < cb[i].snapshot.asOf || Self.same(cb[i].snapshot, snap) }
            if !keep { cache[i].snapshot = snap }
        } else {
            cache.append(Cached(query: q, snapshot: snap))
        }
    }

    /// Confirmed writes stay overlaid until every open list has a server answer that includes them.
    /// (`confirmed` is written only when something leaves it: a write counts as a change of
    /// the lists' overlay, `overlayEpoch`.)
    mutating func pruneConfirmed() {
        if views.isEmpty {
            if !confirmed.isEmpty { confirmed.removeAll() }
            return
        }
        // (Read in place: `views[k].base?.asOf` copied the whole list state per list.)
        let low: UInt64? = views.withUnsafeBufferPointer { vb in
            var low = UInt64.max
            for k in 0..<vb.count {
                guard !vb[k].fromCache, let b = vb[k].base?.asOf else { return nil }
                low = min(low, b)
            }
            return low
        }
        guard let low else { return }
        if confirmed.contains(where: { $0.txID <= low }) { confirmed.removeAll { $0.txID <= low } }
    }

    mutating func persist(out: inout ClientOutbox<ConflictPromptUp>) { out(.persist) }

    /// Recomputes what each list shows (server answer, held records, confirmed and pending
    /// overlay) and yields the lists that changed.
    ///
    /// Views are rendered by static functions over the pieces they read: a non-mutating method
    /// called from here copied the whole client (a retain and a release per field) per list.
    ///
    /// Lists of one query drawn from one answer (the same snapshot storage and `asOf`, which
    /// the server sends to every list of a query) with the same held records show the same
    /// result: the first such list is drawn (`renderView`) and the later ones take its result
    /// (`follows`), keeping no render state of their own. The workloads open the same few
    /// queries many times over, so this draws each distinct list once.
    ///
    /// `touched` (per list, by index): the lists an answer changed (answer, held records). When
    /// every list showed what it is drawn from at the last redraw of them all (`refreshedAt`),
    /// the overlay is the same, and no overlay step reads a known copy changed since
    /// (`overlayReadsNone`), a list the answer did not touch is drawn from what it was drawn from
    /// then, so it is left as it is: a realtime push of one query redraws that query's lists,
    /// not every open list.
    mutating func refreshViews(out: inout ClientOutbox<ConflictPromptUp>, touched: [Bool]? = nil) {
        let pending = pendingNow()
        let knownChanged: [EntityID]? = knownEpoch == knownLogEpoch ? knownLog : nil
        var skipping = false
        if let touched, touched.count == views.count, let r = refreshedAt, r.overlay == overlayEpoch, let knownChanged,
           Self.overlayReadsNone(of: knownChanged, pending: pending, confirmed: confirmed) {
            skipping = true
        }
        // Per list, what the redraw works out before drawing any (`RedrawPlan`), and the lists
        // drawn (not following another), in buffers kept between redraws: a redraw allocates
        // nothing of its own.
        var plans: [RedrawPlan] = []
        var planHolds: [[Hold]] = []
        var drawn: [Int] = []
        swap(&plans, &planScratch)
        swap(&planHolds, &planHoldsScratch)
        swap(&drawn, &drawnScratch)
        plans.reserveCapacity(views.count)
        planHolds.reserveCapacity(views.count)
        for i in views.indices {
            // What the redraw reads of the list, read in place (reading `views[i]`'s fields
            // one by one copied the whole list state, its kept render state included).
            let look = views.withUnsafeBufferPointer { vb -> (shown: CPShownID, answer: CPAnswerID, group: Int) in
                let v = UnsafePointer(vb.baseAddress! + i)
                return (CPShownID(v.pointee.shown), v.pointee.answer, v.pointee.answer.present ? v.pointee.group : 0)
            }
            var plan = RedrawPlan(before: look.shown, answer: look.answer, group: look.group)
            guard look.answer.present, !(skipping && !touched![i]) else {
                if look.answer.present { shortcuts.listsLeft &+= 1 }
                plans.append(plan)
                planHolds.append([])
                continue
            }
            // (Taken from the list in place, held once: by the plan.)
            let holds = views.withUnsafeBufferPointer { vb in Self.heldNow(vb[i].holds, pending) }
            // An earlier list it shows the same result as: the same query (group) over the same
            // answer (one storage, one `asOf`) with the same held records. Everything else a
            // list is drawn from (known copies, confirmations, the queue) is the client's, the
            // same for every list.
            for d in drawn where plans[d].answer == look.answer && plans[d].group == look.group && CPListRender.sameHolds(planHolds[d], holds) {
                plan.follows = d
                break
            }
            if plan.follows < 0 {
                plan.leads = true
                drawn.append(i)
            }
            plans.append(plan)
            planHolds.append(holds)
        }
        // A list that showed what its leader showed (the same storage) lets go of it before the
        // leader is drawn, and takes the leader's result after: the leader's kept result is then
        // held once, so its redraw patches it in place (with the followers still holding it,
        // each patch copied the whole result and the release of the old one freed it again).
        for i in plans.indices {
            let j = plans[i].follows
            guard j >= 0, plans[i].before == plans[j].before, plans[j].before.shown else { continue }
            plans[i].released = true
            views[i].shown = nil
        }
        for i in views.indices {
            let j = plans[i].follows
            if j >= 0 {
                if Self.keepsRender(views, i) { views[i].render = nil }
                // A list that showed what its leader showed changed exactly when the leader did.
                if plans[i].released {
                    views[i].shown = views[j].shown
                    guard plans[j].changed else { continue }
                } else {
                    guard !Self.showSame(views, i, j) else { continue }
                    views[i].shown = views[j].shown
                }
                plans[i].changed = true
                out(.event(.subscriptionYielded(views[i].sub, fromCache: views[i].fromCache)))
                continue
            }
            guard plans[i].leads else { continue }
            let base = views[i].base!
            if let shown = Self.renderView(&views[i], base, pending, holds: planHolds[i], confirmed: confirmed, queue: queue, overlayEpoch: overlayEpoch,
                                           known: known, knownChanged: knownChanged, schema: schema) {
                views[i].shown = shown
                plans[i].changed = true
                out(.event(.subscriptionYielded(views[i].sub, fromCache: views[i].fromCache)))
            }
        }
        plans.removeAll(keepingCapacity: true)
        planHolds.removeAll(keepingCapacity: true)
        drawn.removeAll(keepingCapacity: true)
        swap(&plans, &planScratch)
        swap(&planHolds, &planHoldsScratch)
        swap(&drawn, &drawnScratch)
        knownLog.removeAll(keepingCapacity: true)
        knownLogEpoch = knownEpoch
        refreshedAt = (overlayEpoch, knownEpoch)
    }

    /// `refreshViews` when list `i` was just opened and nothing any list is drawn from changed
    /// since the last redraw of them all (`refreshedAt`): each other list shows what it would
    /// be drawn to, and a redraw changes only what list `i` shows, so only it is drawn. It
    /// shows what an open list of its query over the same answer with the same held records
    /// shows (the redraw would make one follow the other), else it is drawn. A relaunch opens
    /// every list again one by one: redrawing them all for each made it quadratic in the lists.
    mutating func refreshOpened(_ i: Int, out: inout ClientOutbox<ConflictPromptUp>) {
        let pending = pendingNow()
        let look = views.withUnsafeBufferPointer { vb -> (answer: CPAnswerID, group: Int, holds: [Hold]) in
            (vb[i].answer, vb[i].group, vb[i].holds)
        }
        guard look.answer.present else { return }
        shortcuts.openedAlone &+= 1
        let holds = Self.heldNow(look.holds, pending)
        let leader: Int? = views.withUnsafeBufferPointer { vb -> Int? in
            for j in 0..<vb.count where j != i && vb[j].answer == look.answer && vb[j].group == look.group && CPShownID(vb[j].shown).shown
                && CPListRender.sameHolds(Self.heldNow(vb[j].holds, pending), holds) {
                return j
            }
            return nil
        }
        if let j = leader {
            guard !Self.showSame(views, i, j) else { return }
            views[i].shown = views[j].shown
            out(.event(.subscriptionYielded(views[i].sub, fromCache: views[i].fromCache)))
            return
        }
        let base = views[i].base!
        if let shown = Self.renderView(&views[i], base, pending, holds: holds, confirmed: confirmed, queue: queue, overlayEpoch: overlayEpoch,
                                       known: known, knownChanged: [], schema: schema) {
            views[i].shown = shown
            out(.event(.subscriptionYielded(views[i].sub, fromCache: views[i].fromCache)))
        }
    }

    /// Whether no list's overlay reads the known copy of any of `slots`: a step reads only its
    /// own entity's (`overlay`, when the list lacks it), and every step is a queued row's (whose
    /// entities are `pending`, ascending) or a confirmation's.
    static func overlayReadsNone(of slots: [EntityID], pending: [EntityID], confirmed: [Confirmed]) -> Bool {
        for x in slots {
            var lo = 0, hi = pending.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if pending[mid] < x { lo = mid + 1 } else { hi = mid }
            }
            if lo < pending.count && pending[lo] == x { return false }
        }
        for c in confirmed {
            for op in c.ops where slots.contains(op.entity) { return false }
        }
        return true
    }

    /// The held records a list lays over its answer now: those of entities still pending
    /// (`holds` itself, its storage kept, when every one is: then the comparisons with it
    /// are pointer comparisons).
    static func heldNow(_ holds: [Hold], _ pending: [EntityID]) -> [Hold] {
        if holds.isEmpty { return holds }
        let all = holds.withUnsafeBufferPointer { hb in
            for k in 0..<hb.count where !isPending(hb[k].entity, pending) { return false }
            return true
        }
        if all { return holds }
        return holds.filter { isPending($0.entity, pending) }
    }

    /// Whether `e` is in `pending` (ascending), by binary search: asked per held record per list
    /// on every redraw and answer, where a linear `contains` walked a queue's worth of entities.
    @inline(__always)
    static func isPending(_ e: EntityID, _ pending: [EntityID]) -> Bool {
        let p = CPPendingEntities.position(of: e, in: pending)
        return p < pending.count && pending[p] == e
    }

    /// Whether list `i` keeps render state (read in place, no copy of it).
    static func keepsRender(_ views: [View], _ i: Int) -> Bool {
        views.withUnsafeBufferPointer { vb in
            switch vb[i].render {
            case .none: return false
            case .some: return true
            }
        }
    }

    /// Whether lists `i` and `j` show equal results (read in place).
    static func showSame(_ views: [View], _ i: Int, _ j: Int) -> Bool {
        views.withUnsafeBufferPointer { vb in vb[i].shown == vb[j].shown }
    }

    /// The `View.group` of a list of `q`: that of an open list of an equal query, else a new one.
    mutating func queryGroup(of q: Query) -> Int {
        for k in views.indices where views[k].query == q { return views[k].group }
        nextGroup += 1
        return nextGroup
    }

    func render(_ v: View, _ base: CPSnapshot, _ pending: [EntityID]) -> QueryResult {
        Self.render(v, base, pending, unlessEqualTo: nil, confirmed: confirmed, queue: queue, known: known, schema: schema)!
    }

    /// What a list shows, built from scratch: the server's answer itself when nothing is laid
    /// over it; else the query over the answer with the held records, then every late
    /// confirmation's and queued row's steps laid over it. Nil when that equals `shown`.
    /// (`renderView` keeps the same result up to date incrementally.)
    static func render(_ v: View, _ base: CPSnapshot, _ pending: [EntityID], unlessEqualTo shown: QueryResult?,
                       confirmed: [Confirmed], queue: [Entry], known: EntityStore, schema: Schema) -> QueryResult? {
        let late = confirmed.filter { $0.txID > base.asOf }
        let holds = v.holds.filter { pending.contains($0.entity) }
        if late.isEmpty && queue.isEmpty && holds.isEmpty { return shown == base.result ? nil : base.result }
        var store = EntityStore(entriesOf: base.result)
        for h in holds { store[h.entity] = h.record }
        for c in late { for op in c.ops { overlay(op, &store, known: known, schema: schema) } }
        for entry in queue { for op in entry.ops { overlay(op, &store, known: known, schema: schema) } }
        return v.query.evaluate(store, unlessEqualTo: shown)
    }

    /// `render(v, base, pending, unlessEqualTo: v.shown, …)`, setting `v.shown`, through the
    /// list's kept state (`CPListRender`): brought up to date where its inputs changed
    /// (`knownChanged`: the slots of `known` changed since the last redraw; nil: unknown, build
    /// again), the result patched where slots changed. Same results as `render`.
    static func renderView(_ v: inout View, _ base: CPSnapshot, _ pending: [EntityID], holds: [Hold], confirmed: [Confirmed], queue: [Entry],
                           overlayEpoch: UInt64, known: EntityStore, knownChanged: [EntityID]?, schema: Schema) -> QueryResult? {
        let late = Self.late(confirmed, after: base.asOf)
        let bare = late.isEmpty && queue.isEmpty && holds.isEmpty
        let overlay = CPListRender.Overlay(late: late, queue: queue, key: .init(epoch: overlayEpoch, asOf: base.asOf))
        if v.render != nil, let knownChanged {
            // The kept state is brought up to date where it lies (`v.render!` in place: taking
            // it out and putting it back copied every piece of it).
            if case .kept(let result) = redrawKept(&v.render!, &v.shown, query: v.query, base: base, holds: holds, overlay: overlay,
                                                   bare: bare, knownChanged: knownChanged, known: known, schema: schema) {
                return result
            }
            v.render = nil
        }
        var r = CPListRender(query: v.query, base: base.result, holds: holds, overlay: overlay, known: known, schema: schema)
        let next = bare ? base.result : r.eval
        r.showsEval = !bare
        if bare && r.fix == nil { r.fix = r.eval == base.result }
        v.render = r
        if v.shown == next { return nil }
        v.shown = next
        return next
    }

    /// The confirmations an answer as of `asOf` may not show yet (`txID > asOf`): `confirmed`
    /// itself, its storage shared, when every one is late (a filter built a new array on every
    /// redraw of every list).
    static func late(_ confirmed: [Confirmed], after asOf: UInt64) -> [Confirmed] {
        if confirmed.allSatisfy({ $0.txID > asOf }) { return confirmed }
        return confirmed.filter { $0.txID > asOf }
    }

    /// What `redrawKept` did: the kept state is up to date and the list shows `shown` (the
    /// result is the new result when it changed), or it cannot be updated and must be built.
    enum Redraw {
        case kept(QueryResult?)
        case rebuild
    }

    /// `renderView` through the kept state `r` (see there); `shown` is the list's `shown`.
    static func redrawKept(_ r: inout CPListRender, _ shown: inout QueryResult?, query: Query, base: CPSnapshot,
                           holds: [Hold], overlay: CPListRender.Overlay, bare: Bool, knownChanged: [EntityID],
                           known: EntityStore, schema: Schema) -> Redraw {
        // Whether the previous answer's own entries evaluate to it: then, if the list showed
        // it (nothing laid over), it showed `r.eval`.
        let fixBefore = r.fix
        guard let change = r.update(query: query, base: base.result, holds: holds, overlay: overlay, knownChanged: knownChanged,
                                    known: known, schema: schema) else { return .rebuild }
        let changed: Bool
        if bare {
            if !r.showsEval {
                // The answer before, shown as is; the new one shown as is.
                changed = change.baseChanged
                _ = updateEval(&r, change.touched, query, schema)
            } else if r.fix == true {
                // `r.eval` (shown) becomes the query over the answer's entries: the answer.
                shown = nil  // `r.eval` uniquely referenced: patched in place
                changed = updateEval(&r, change.touched, query, schema)
            } else {
                changed = !(r.eval == base.result)
                shown = nil
                _ = updateEval(&r, change.touched, query, schema)
            }
            // The store is the answer's entries now: the query over it tells.
            if r.fix == nil { r.fix = r.eval == base.result }
            r.showsEval = false
            shown = base.result
            return .kept(changed ? base.result : nil)
        }
        if r.showsEval || fixBefore == true {
            // What was shown is `r.eval` before this update.
            shown = nil
            changed = updateEval(&r, change.touched, query, schema)
        } else {
            _ = updateEval(&r, change.touched, query, schema)
            changed = !(shown == r.eval)
        }
        r.showsEval = true
        shown = r.eval
        return .kept(changed ? r.eval : nil)
    }

    /// Brings `r.eval` up to `r.store` after a change of the slots in `touched`; returns whether
    /// it changed.
    static func updateEval(_ r: inout CPListRender, _ touched: [EntityID], _ query: Query, _ schema: Schema) -> Bool {
        if touched.isEmpty || !query.mayChange(r.eval, touched: touched, in: r.store, schema: schema) { return false }
        if let changed = query.patchTree(&r.eval, touched: touched, in: r.store) { return changed }
        guard let e = query.evaluate(r.store, unlessEqualTo: r.eval) else { return false }
        r.eval = e
        return true
    }

    /// A local step over a list's data. An entity the list does not hold starts from the newest
    /// server copy the client has seen, so a change that makes it match a filter shows it whole.
    func overlay(_ op: Op, _ store: inout EntityStore) {
        Self.overlay(op, &store, known: known, schema: schema)
    }

    static func overlay(_ op: Op, _ store: inout EntityStore, known: EntityStore, schema: Schema) {
        let e = op.entity
        switch op {
        case .update, .link, .unlink:
            if !store.contains(e), let k = known[e] { store[e] = k }
        case .create, .delete: break
        }
        _ = store.apply(overlayStep(op), schema: schema, mode: .upsert)
    }

    /// Creates are overlaid as upserts: the list may already hold the entity if the server
    /// applied the create before its answer arrived.
    static func overlayStep(_ op: Op) -> Op {
        if case .create(let e, let ns, let a) = op { return .update(e, ns, a) }
        return op
    }
}

/// Where a list's answer lives (its result's entries' and roots' storage and counts) and its
/// `asOf`, as plain words (`View.answer`, kept with `View.base`, which holds the storage, so
/// two lists' words are equal only for one answer value).
struct CPAnswerID: Equatable, Sendable {
    /// The answer's result's storage words (`CPShownID`; `shown` false: no answer).
    var result: CPShownID
    var asOf: UInt64

    var present: Bool { result.shown }

    init(_ s: CPSnapshot?) {
        result = CPShownID(s?.result)
        asOf = s?.asOf ?? 0
    }
}

/// Where a list's shown result (or its answer) lives (its entries' and roots' storage and
/// counts), taken without holding a reference. Two taken while both results are alive (during
/// one redraw, which frees no answer and reads each shown result before it replaces it) are
/// equal only for the same storage, so the same value.
struct CPShownID: Equatable, Sendable {
    var shown: Bool
    var entries: UInt
    var entryCount: Int
    var roots: UInt
    var rootCount: Int

    init(_ r: QueryResult?) {
        guard let r else {
            shown = false; entries = 0; entryCount = 0; roots = 0; rootCount = 0
            return
        }
        shown = true
        entries = r.entries.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        entryCount = r.entries.count
        roots = r.roots.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        rootCount = r.roots.count
    }
}
