/// The `reference` client: a replica of the server's register table, a durable queue of pending
/// writes laid over it (the view every subscription reads), and a sync loop that pushes the queue
/// and pulls changes in one idempotent request, retried on a timer.
public struct ReferenceClient: ClientMachine {
    public typealias Up = ReferenceUp
    public typealias Down = ReferenceDown

    /// A write the server confirmed whose effect the replica does not show yet (it stays laid over
    /// the replica until the replica reaches `version`, so the user never sees it flicker away).
    public struct Confirmed: Hashable, Sendable {
        public var mutation: ReferenceMutation
        public var version: UInt64
    }

    /// What survives a restart. The clock and the queue are always stored, whatever the app's
    /// persistence flag: a queued write was accepted from the user, so losing it would be data
    /// loss, and a clock that ran backwards could stamp a new edit below an old one. The replica
    /// (the query cache) is stored only when the app enabled persistence.
    public struct Durable: Sendable, Hashable {
        public var clock: HLCTimestamp
        public var queue: [ReferenceMutation]
        public var confirmed: [Confirmed]
        /// The replica, persisted as a base and a log (see `ReferenceReplicaLog`).
        public var persistedReplica: ReferenceReplicaLog?
        public var replicaVersion: UInt64

        /// The persisted replica (rebuilt from its base and log).
        public var replica: ReferenceTable? { persistedReplica?.table }
    }

    struct OnceWait: Hashable, Sendable {
        var id: QueryRequestID
        /// The first request sequence number whose reply answers this read (sent after it).
        var minSeq: UInt32
        var deadline: Int64
    }

    static let retryTimer = TimerID(1)
    static let pollTimer = TimerID(2)
    /// Resend an unanswered sync after this long (a datagram may be lost).
    static let retryMs: Int64 = 1_500
    /// Pull this often while online, in case a poke was lost.
    static let pollMs: Int64 = 3_000
    /// A one-shot read online fails (not offline) if no fresh answer came within this long.
    static let queryOnceTimeoutMs: Int64 = 10_000
    /// At most this many queued writes per request (always a prefix of the queue, so the server
    /// sees each client's writes in order).
    static let batch = 100

    let id: ClientID
    let persistence: Bool
    let queueCap: Int
    let incarnation: UInt64

    var clock: HybridLogicalClock
    var replica: ReferenceTable
    /// How the replica is persisted (with persistence on): every `put` since a base is logged.
    var replicaLog: ReferenceReplicaLog
    var replicaVersion: UInt64
    /// The replica is a basis to show (from the server in this run, or from the persisted cache).
    var replicaValid: Bool
    /// A server reply arrived in this incarnation (yields are no longer "from cache").
    var fresh = false
    var queue: [ReferenceMutation]
    var confirmed: [Confirmed]
    /// replica + confirmed + queue: what the user sees.
    var view: ReferenceTable
    /// The slots of `view` that may differ from `replica`: those the laid-over writes put. Every
    /// other slot of the view is the replica's, so a rebuild resets and re-lays only these (and
    /// the slots the replica changed), instead of copying the whole replica.
    var overlaid: [Int] = []
    /// The slots of `view` put or reset since the subscriptions were last brought up to date
    /// (repeats allowed): a subscription none of them can affect keeps its result, the others
    /// are patched where they are, and the view's link index is updated at them.
    var viewDirty: [Int] = []
    /// Which rows of the view link to each entity, as of the last `yieldChanged` (kept up to date
    /// from `viewDirty`): how a subscription with an include is patched (`ViewPatch`).
    var viewLinks = ViewLinkIndex()
    /// The subscriptions, grouped by query: one result per distinct query, brought up to date
    /// once per change of the view and shown by each of its subscriptions (`SubscriptionGroups`).
    var subs = SubscriptionGroups()
    var onceWaiting: [OnceWait] = []
    var online = false
    var seq: UInt32 = 0
    var inFlight: UInt32?
    var serverVersionHint: UInt64 = 0
    var pollDue = false
    var dirty = false

    /// The run's data model.
    let schema: Schema

    public init(context: ClientContext, restoring durable: Durable?) {
        id = context.id
        schema = context.schema
        persistence = context.persistence
        queueCap = context.queueCap
        incarnation = UInt64(max(0, context.incarnation))
        let node = UInt32(truncatingIfNeeded: max(0, context.id.index))
        if let d = durable, d.clock.node == node {
            clock = HybridLogicalClock(restoring: d.clock)
            queue = d.queue
            confirmed = d.confirmed
            if let r = d.replica, context.persistence {
                replica = r
                replicaVersion = d.replicaVersion
                replicaValid = true
            } else {
                replica = ReferenceTable()
                replicaVersion = 0
                replicaValid = false
            }
        } else {
            clock = HybridLogicalClock(node: node)
            queue = []
            confirmed = []
            replica = ReferenceTable()
            replicaVersion = 0
            replicaValid = false
        }
        view = replica
        replicaLog = ReferenceReplicaLog(base: replica, schema: context.schema)
        let (v, valid) = (replicaVersion, replicaValid)
        confirmed.removeAll { valid && $0.version <= v }
        rebuildView()
        viewLinks = ViewLinkIndex(view.store)
    }

    public var durableState: Durable {
        Durable(clock: clock.last, queue: queue, confirmed: confirmed,
                persistedReplica: persistence && replicaValid ? replicaLog : nil,
                replicaVersion: persistence && replicaValid ? replicaVersion : 0)
    }

    public func result(of subscription: SubscriptionID) -> QueryResult? {
        subs.result(of: subscription)
    }

    public var pendingWrites: [WriteID] { queue.map(\.id) }
    /// `pendingWrites.count` without building the list (the protocol's default builds it): the
    /// simulator asks after every input the client handles.
    public var pendingWriteCount: Int { queue.count }

    // MARK: - Inputs

    public mutating func handle(_ input: ClientInput<Down>, now: Int64, out: inout ClientOutbox<Up>) {
        dirty = false
        let start = out.count
        switch input {
        case .user(let cmd): user(cmd, now: now, out: &out)
        case .received(let m): received(m, now: now, out: &out)
        case .timerFired(let t):
            if t == Self.retryTimer {
                inFlight = nil
                expireReads(now: now, out: &out)
                maybeSync(out: &out)
            } else if t == Self.pollTimer {
                pollDue = true
                expireReads(now: now, out: &out)
                maybeSync(out: &out)
                out(.setTimer(Self.pollTimer, afterMs: Self.pollMs))
            } else {
                out(.event(.invalidInput("unknown timer \(t)")))
            }
        case .network(.online):
            online = true
            inFlight = nil
            out(.setTimer(Self.pollTimer, afterMs: Self.pollMs))
            maybeSync(out: &out)
        case .network(.offline):
            online = false
            inFlight = nil
            out(.cancelTimer(Self.retryTimer))
            let waiting = onceWaiting
            onceWaiting.removeAll()
            for w in waiting {
                out(.event(.queryOnceFailed(w.id, offline: true, hasStaleResult: replicaValid)))
            }
        case .connected, .disconnected:
            // Datagram transport: there is no connection to open or lose.
            break
        }
        // Write-ahead: the persist goes before this step's sends and events (a crash after a
        // send, or while applying a reply, then loses nothing that was sent or shown).
        if dirty { out.insert(.persist, at: start) }
    }

    mutating func user(_ cmd: UserCommand, now: Int64, out: inout ClientOutbox<Up>) {
        switch cmd {
        case .write(let w):
            if queue.count >= queueCap {
                out(.event(.writeRejected(w.id, .queueFull)))
                return
            }
            if queue.contains(where: { $0.id == w.id }) || confirmed.contains(where: { $0.mutation.id == w.id }) {
                out(.event(.invalidInput("write \(w.id) was already made")))
                return
            }
            let stamp = clock.tick(now: now)
            dirty = true
            // In place: a refused write is rolled back by the table's journal (a copy of the view
            // to apply to cost the whole table once written).
            // The slots it puts are noted straight into `overlaid` (dropped again if it fails).
            let start = overlaid.count
            switch view.apply(w.ops, stamp: stamp, version: 0, schema: schema, touched: &overlaid) {
            case .success:
                viewDirty.append(contentsOf: overlaid[start...])
            case .failure(.missing):
                // Perhaps created elsewhere and not pulled yet: the server decides.
                overlaid.removeSubrange(start...)
            case .failure(let why):
                overlaid.removeSubrange(start...)
                out(.event(.writeRejected(w.id, why.rejectReason)))
                return
            }
            queue.append(ReferenceMutation(id: w.id, stamp: stamp, ops: w.ops))
            yieldChanged(out: &out)
            maybeSync(out: &out)
        case .subscribe(let s, let q):
            // Not shown yet: the next `yieldChanged` (this one, once the replica is valid) yields
            // its group's result.
            _ = subs.subscribe(s, to: q, schema: schema)
            yieldChanged(out: &out)
            maybeSync(out: &out)
        case .unsubscribe(let s):
            subs.unsubscribe(s)
        case .queryOnce(let r, _):
            if !online {
                out(.event(.queryOnceFailed(r, offline: true, hasStaleResult: replicaValid)))
                return
            }
            onceWaiting.append(OnceWait(id: r, minSeq: seq &+ 1, deadline: now + Self.queryOnceTimeoutMs))
            maybeSync(out: &out)
        case .resolveConflict(let c, _):
            out(.event(.invalidInput("\(c): this strategy never raises conflicts")))
        case .forceSync, .syncNow:
            // Nothing is ever held back by a conflict, so both directions mean "sync now".
            pollDue = true
            maybeSync(out: &out)
        case .dropOldestWrite:
            out(.event(.invalidInput("the reference queue is never pruned by the user: \(cmd)")))
        case .switchTenant, .logout:
            out(.event(.invalidInput("the reference keeps one database per tenant; the harness switches databases: \(cmd)")))
        }
    }

    mutating func received(_ m: Down, now: Int64, out: inout ClientOutbox<Up>) {
        switch m {
        case .poke(let v):
            if v > serverVersionHint { serverVersionHint = v }
            maybeSync(out: &out)
        case .syncReply(let request, let outcomes, let base, let version, let serverClock, let changes):
            guard request >> 32 == incarnation else { return }
            let reqSeq = UInt32(truncatingIfNeeded: request)
            if serverClock.physical != Int64.min {
                clock.observe(serverClock, now: now)
                dirty = true
            }
            if version > serverVersionHint { serverVersionHint = version }
            var changed = false
            var replicaChanged: [Int] = []
            if base <= replicaVersion && (version > replicaVersion || !replicaValid) && (replicaValid || base == 0) {
                replicaChanged.reserveCapacity(changes.count)
                replica.put(changes, schema: schema)
                for k in changes.indices {
                    if persistence { replicaLog.append(changes[k]) }
                    replicaChanged.append(Int(changes[k].id.raw))
                }
                if persistence { replicaLog.rebaseIfLong(replica) }
                replicaVersion = version
                replicaValid = true
                changed = true
            }
            fresh = true
            for o in outcomes {
                guard let i = queue.firstIndex(where: { $0.id == o.write }) else { continue }
                let mu = queue.remove(at: i)
                changed = true
                switch o.outcome {
                case .applied(let v):
                    if v > replicaVersion { confirmed.append(Confirmed(mutation: mu, version: v)) }
                    out(.event(.writeConfirmed(mu.id)))
                case .refused(let why):
                    out(.event(.writeRejected(mu.id, why.rejectReason)))
                }
            }
            let before = confirmed.count
            confirmed.removeAll { $0.version <= replicaVersion }
            if confirmed.count != before { changed = true }
            if changed {
                dirty = true
                rebuildView(replicaChanged: replicaChanged)
            }
            // Yields even when nothing changed: a subscription made before the first reply has
            // not been shown anything yet.
            yieldChanged(out: &out)
            let answered = onceWaiting.filter { $0.minSeq <= reqSeq }
            onceWaiting.removeAll { $0.minSeq <= reqSeq }
            for w in answered { out(.event(.queryOnceResult(w.id))) }
            if inFlight == reqSeq {
                inFlight = nil
                out(.cancelTimer(Self.retryTimer))
            }
            maybeSync(out: &out)
        }
    }

    // MARK: - Sync loop

    mutating func maybeSync(out: inout ClientOutbox<Up>) {
        guard online, inFlight == nil else { return }
        let needed = !queue.isEmpty || !fresh || serverVersionHint > replicaVersion || pollDue || !onceWaiting.isEmpty
        guard needed else { return }
        seq &+= 1
        inFlight = seq
        pollDue = false
        let request = incarnation << 32 | UInt64(seq)
        out(.send(.sync(request: request, base: replicaValid ? replicaVersion : 0, clock: clock.last,
                        mutations: Array(queue.prefix(Self.batch)))))
        out(.setTimer(Self.retryTimer, afterMs: Self.retryMs))
    }

    mutating func expireReads(now: Int64, out: inout ClientOutbox<Up>) {
        let expired = onceWaiting.filter { $0.deadline <= now }
        guard !expired.isEmpty else { return }
        onceWaiting.removeAll { $0.deadline <= now }
        for w in expired { out(.event(.queryOnceFailed(w.id, offline: false, hasStaleResult: replicaValid))) }
    }

    // MARK: - View

    /// The view is the replica with every write the server has not shown us yet laid over it, in
    /// the order the user made them, by the same LWW rules the server applies.
    ///
    /// Incremental: the slots the previous overlay put and the slots the replica changed
    /// (`replicaChanged`) are reset to the replica's, which makes the view equal to the replica
    /// (every other slot already was), and the writes are laid over again. Copying the replica to
    /// lay them over cost the whole table (a reference count per entity) on every reply.
    mutating func rebuildView(replicaChanged: [Int] = []) {
        var slots = overlaid
        slots.append(contentsOf: replicaChanged)
        slots.sort()
        // A wide change (the first reply after a restart without persistence brings the whole
        // table) resets the view whole: it becomes the replica, sharing its storage, instead of
        // being copied slot by slot. The same view: every slot is the replica's once the reset
        // slots are (slots past the replica's end are absent either way). A view that never
        // held a slot, with nothing laid over, is the replica already but for these slots.
        let whole = (view.states.isEmpty && overlaid.isEmpty)
            || (replicaChanged.count >= 32 && replicaChanged.count * 2 >= replica.states.count)
        if whole { view = replica }
        var last = -1
        for i in slots where i != last {
            last = i
            if !whole { view.copySlot(i, from: replica) }
            viewDirty.append(i)
        }
        var touched: [Int] = []
        for c in confirmed { _ = view.apply(c.mutation.ops, stamp: c.mutation.stamp, version: 0, schema: schema, touched: &touched) }
        for m in queue { _ = view.apply(m.ops, stamp: m.stamp, version: 0, schema: schema, touched: &touched) }
        viewDirty.append(contentsOf: touched)
        overlaid = touched
    }

    /// Every subscription whose result differs from what it last showed yields the new result.
    /// A query already evaluated that no slot changed since can affect is skipped
    /// (`Self.affects`): evaluating it cost a pass over the whole view per subscription per step;
    /// one without an include, or with one level of include, is patched where the dirty slots
    /// are (`ViewPatch`, with the view's reverse link index). Each distinct query is brought up
    /// to date once (`SubscriptionGroups`): its subscriptions share the result; each yields, in
    /// id order, when it changed or was not shown yet.
    ///
    /// The result is patched in place: it is taken out of its group first, so its buffers are
    /// held once (the monitor keeps its own copy of what was shown, `ShownEntries`, and reads the
    /// client's result only while it judges a yield) and a patch writes into them instead of
    /// copying the whole result. (A second entries buffer kept one patch behind, `ResultSpare`,
    /// did this while the monitor still held the shown result; bringing it up to date cost more
    /// than the patch itself.)
    mutating func yieldChanged(out: inout ClientOutbox<Up>) {
        guard replicaValid else { return }
        var dirty: [Int] = []
        swap(&dirty, &viewDirty)
        for d in dirty { viewLinks.update(d, in: view.store) }
        // Only the reverse link lists are captured: a closure over the whole index copied it
        // (a reference count per array it owns) at every call.
        let incoming = viewLinks.incoming
        var touched: [EntityID]?
        for g in subs.groups.indices {
            subs.groups[g].changed = false
            if subs.groups[g].members == 0 { continue }
            // The result is moved out of its group (`swap`), so `work` is its only holder and a
            // patch writes into it in place; the query is read where it lies. (Binding copies of
            // both, `let query = …` and `if var work = …`, retained and released each one's
            // storage for every group at every change of the view, most of them unaffected.)
            var work: QueryResult?
            swap(&work, &subs.groups[g].result)
            if work != nil {
                if !Self.affects(dirty, subs.groups[g].query, shown: work!, view: view.store, schema: schema) {
                    swap(&work, &subs.groups[g].result)
                    continue
                }
                // `work` is the query over the view before the dirty slots changed: patch it
                // where they are (`ViewPatch`) instead of evaluating it again.
                if touched == nil { touched = dirty.map { EntityID(UInt32($0)) } }
                let changed = ViewPatch.patch(subs.groups[g].query, &work!, touched: touched!, in: view.store, schema: schema,
                                              referrers: { Int($0.raw) < incoming.count ? incoming[Int($0.raw)] : [] })
                // Patched, unchanged, or not patched (`work` untouched): it is the result to keep.
                swap(&work, &subs.groups[g].result)
                subs.groups[g].changed = changed == true
                if changed != nil { continue }
            }
            if let r = subs.groups[g].query.evaluate(view.store, unlessEqualTo: subs.groups[g].result) {
                subs.groups[g].result = r
                subs.groups[g].changed = true
            }
        }
        // The list's buffer goes back for the next changes (nothing was marked meanwhile).
        if viewDirty.isEmpty {
            dirty.removeAll(keepingCapacity: true)
            swap(&dirty, &viewDirty)
        }
        let fromCache = !fresh
        subs.takeYields { out(.event(.subscriptionYielded($0, fromCache: fromCache))) }
    }

    /// Whether a change of the view's `dirty` slots can change `query`'s result, `shown` being its
    /// result before them. A slot matters if its entity was in the result (its record, or its
    /// place, may have changed), is a root now, or could be a child now: for a forward include,
    /// an existing entity of the link's target namespace; for a reverse one, an existing entity
    /// whose link points at a root. When no slot matters, the roots and every record of the
    /// result are unchanged, so no child can have come or gone either: the result is the same.
    static func affects(_ dirty: [Int], _ query: Query, shown: QueryResult, view: EntityStore, schema: Schema) -> Bool {
        // Conditions, limits and include trees: the general test (exact or conservative).
        if !query.isBasic {
            return query.mayChange(shown, touched: dirty.map { EntityID(UInt32($0)) }, in: view, schema: schema)
        }
        return view.records.withUnsafeBufferPointer { rb in
            func isRoot(_ j: Int) -> Bool {
                guard j < rb.count, rb[j]?.namespace == query.namespace else { return false }
                if let f = query.filter { return rb[j]![f.field] == f.value }
                return true
            }
            for d in dirty {
                if shown.contains(EntityID(UInt32(d))) || isRoot(d) { return true }
                guard d < rb.count, let ns = rb[d]?.namespace else { continue }
                switch query.include {
                case .forward(let l)?:
                    if !schema.contains(l) || ns == schema.target(of: l) { return true }
                case .reverse(let l)?:
                    let li = Int(l.raw)
                    if let t = rb[d]![l], isRoot(Int(t.raw)) { return true }
                    if li < rb[d]!.manyLinks.count {
                        for k in 0..<rb[d]!.manyLinks[li].count where isRoot(Int(rb[d]!.manyLinks[li][k].raw)) { return true }
                    }
                case nil:
                    break
                }
            }
            return false
        }
    }
}
