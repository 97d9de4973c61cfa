/// InstantDB's client (the JS Reactor), modelled from seed 000 §2 and strategy-semantics.md §1–11.
///
/// | rule | source |
/// |---|---|
/// | a write becomes a pending mutation keyed by a random event id, `order` = max(order) + 1, sorted by (order, event id) | Reactor `pushOps` (semantics §1) |
/// | send only when online **and** authenticated; otherwise "enqueued", no timer | Reactor `_sendMutation` (§2) |
/// | a sent mutation gets a timeout of max(6 s, min(inFlight+1, stored+1) × 6 s), where inFlight counts transacts sent on this connection without an answer (cleared when `init` is sent) and stored counts every stored mutation, confirmed ones included; firing while online without a tx id rejects it; offline it does nothing | Reactor `_sendMutation`, `_trySend` (§2) |
/// | a re-send sets a new timer and leaves the earlier ones running: a mutation first sent more than one timeout ago can be rejected as "timeout" just after its replay, and the replay can still commit (told rejected, applied) | Reactor `_sendMutation` keeps no timer handle |
/// | `init-ok`: authenticated, backoff reset, re-send every query and pending `queryOnce`, then every mutation without tx id in order | Reactor `init-ok`, `_flushPendingMessages` (§3) |
/// | `transact-ok` stamps the tx id; the mutation stays | §4 |
/// | reads overlay every mutation with no tx id, or a tx id above the query's processed tx id | `_applyOptimisticUpdates` (§5) |
/// | confirmed mutations with tx id ≤ min processed tx id over the loaded queries (cached ones included; a processed tx id of 0 does not count) are removed on `add-query-ok`/`refresh-ok` | `_cleanupPendingMutationsQueries` (§6) |
/// | with 200 or more stored mutations, confirmed ones confirmed more than 30 s ago are removed (on `add-query-ok`, `refresh-ok`, `transact-ok`) | `_cleanupPendingMutationsTimeout` (§6) |
/// | server `error` removes the mutation (its optimistic effect disappears) and rejects it | `_handleMutationError` (§7) |
/// | `queryOnce` offline fails at once with the offline error, carrying the last known result (the cached server answer for that query, persistence on) for the user to treat as stale | seed 000 §2.2, §4.1 (§8) |
/// | `queryOnce` fails with "Query timed out" 30 s after it was asked if no answer came; a later answer is not delivered | Reactor `queryOnce`, `QUERY_ONCE_TIMEOUT` |
/// | reconnect backoff 0, 1, 2 … 10 s, no attempt while offline; online connects at once; offline closes | seed 000 §2.1 (§9) |
/// | pending queue and query cache are durable only with persistence on | seed 000 §4.2 (§10) |
/// | a user change (tenant switch, logout) clears the query results, the cache and the queue; the simulator closes the socket first (`Tenancy.oneDatabase`) | semantics §10; Reactor.js `updateUser` clears results but keeps the queue: `InstantClient+Tenants.swift` |
/// | update in update mode if the entity is in a cached store, else upsert; links carry ids only | instaml (§11) |
/// | a subscription re-yields when anything in its result tree changes, children included | seed 000 §3.5 |
///
/// `fullEntity` mode (seed 000 §1, §4.3) sends every field of the entity as the client currently
/// sees it on each update, instead of the changed fields only.
public struct InstantClient: ClientMachine {
    public typealias Up = InstantUp
    public typealias Down = InstantDown

    /// The socket status (Reactor's STATUS), the connection dimension of seed 000 §2.1.1.
    public typealias Status = ReactorConnection.Status

    public struct PendingMutation: Sendable, Hashable {
        public var eventID: UInt64
        public var order: Int
        public var write: WriteID
        public var steps: [InstantStep]
        public var txID: UInt64?
        /// When `transact-ok` arrived (the device's clock): the age the second cleanup rule reads.
        public var confirmedAt: Int64?
        /// Bookkeeping for the overlay cache only (unique within one client incarnation); not
        /// part of the mutation's value.
        var serial: UInt64 = 0

        public static func == (a: PendingMutation, b: PendingMutation) -> Bool {
            a.eventID == b.eventID && a.order == b.order && a.write == b.write && a.steps == b.steps && a.txID == b.txID
                && a.confirmedAt == b.confirmedAt
        }

        public func hash(into h: inout Hasher) {
            h.combine(eventID); h.combine(order); h.combine(write); h.combine(steps); h.combine(txID); h.combine(confirmedAt)
        }
    }

    /// A cached query result (durable with persistence on).
    ///
    /// Its parts live in one immutable box, so a copy is one reference: the simulator keeps the
    /// last persisted cache, so every answer that replaces an entry copies the client's whole
    /// cache array, and a copy of the plain struct retained each of the query's and result's
    /// buffers (about 2.6% of instant's bench instructions went to copying and destroying
    /// entries). A setter puts a new box in place; the value semantics are the struct's.
    public struct CachedResult: Sendable, Hashable {
        final class Box: Sendable {
            let query: Query
            let result: QueryResult
            let processedTxID: UInt64
            init(query: Query, result: QueryResult, processedTxID: UInt64) {
                self.query = query
                self.result = result
                self.processedTxID = processedTxID
            }
        }
        private var box: Box

        public init(query: Query, result: QueryResult, processedTxID: UInt64) {
            box = Box(query: query, result: result, processedTxID: processedTxID)
        }

        public var query: Query {
            get { box.query }
            set { box = Box(query: newValue, result: box.result, processedTxID: box.processedTxID) }
        }
        public var result: QueryResult {
            get { box.result }
            set { box = Box(query: box.query, result: newValue, processedTxID: box.processedTxID) }
        }
        public var processedTxID: UInt64 {
            get { box.processedTxID }
            set { box = Box(query: box.query, result: box.result, processedTxID: newValue) }
        }

        /// Whether this entry caches `q` (read in place: no copy of the query).
        func caches(_ q: Query) -> Bool { box.query == q }

        public static func == (a: CachedResult, b: CachedResult) -> Bool {
            a.box === b.box || (a.box.query == b.box.query && a.box.result == b.box.result
                                && a.box.processedTxID == b.box.processedTxID)
        }

        public func hash(into h: inout Hasher) {
            h.combine(box.query); h.combine(box.result); h.combine(box.processedTxID)
        }
    }

    public struct Durable: Sendable {
        public var pending: [PendingMutation]
        public var cache: [CachedResult]
    }

    struct QueryState {
        var key: InstantQueryKey
        var query: Query
        /// The server's answer (or the cached one) and its processed tx id.
        var server: QueryResult?
        var processedTxID: UInt64 = 0
        var fromCache = false
        /// A `queryOnce` whose 30 s timer fired: the user was told it failed, so its late answer
        /// is not delivered (Reactor rejects the deferred; resolving it later does nothing).
        var timedOut = false
        /// What the UI currently shows (subscriptions only).
        var shown: QueryResult?
        // Overlay cache (derived state, never observable, `refreshYields`): `overlayStore` is
        // `overlayBase` (a server answer) as a store with the steps of the pending mutations
        // `overlaySerials` applied in order, each logged in `overlayUndo`, so the store can be
        // rolled back to its base and brought to a new answer by patching the entities that
        // differ, instead of being rebuilt from the whole answer. `overlayValid`: the store's
        // base is `server` and `overlaySerials` are the steps applied. `storeShowsView`: `shown`
        // is the query over `overlayStore` (so only touched entities can change it).
        var overlayValid = false
        var overlaySerials: [UInt64] = []
        var overlayStore: EntityStore?
        var overlayBase: QueryResult?
        var overlayUndo = EntityStore.UndoLog()
        var storeShowsView = false
        /// Which steps the overlay store takes (`OverlayStepFilter`): a step writing only
        /// namespaces the view cannot read is left out of the store, unless a later step names
        /// an entity it wrote, after which this query's store takes every step
        /// (`overlayFilter.keepsAll`). Derived like the rest of the cache.
        var overlayFilter = OverlayStepFilter()

        mutating func setServer(_ r: QueryResult?, processedTxID tx: UInt64) {
            server = r
            processedTxID = tx
            // The store is kept: `refreshYields` rolls it back to `overlayBase` and patches it.
            overlayValid = false
        }
    }

    public let id: ClientID
    let persistence: Bool
    let fullEntity: Bool
    let sendTimeoutMs: Int64
    var random: SimRandom
    /// Whether the run keeps a story (`.note` effects are built only then).
    let tracesNotes: Bool

    /// Online flag, socket status and backoff (shared with every InstantDB client).
    public private(set) var connection = ReactorConnection()
    public var online: Bool { connection.online }
    public var status: Status { connection.status }
    public internal(set) var pending: [PendingMutation] = []
    /// Send timeouts of pending mutations (shared Reactor rules).
    var timeouts = ReactorSendTimeouts()
    /// `queryOnce` timeouts (timer, request key).
    var queryTimers: [(TimerID, InstantQueryKey)] = []
    var nextTimer: UInt32 = 1
    var queries: [QueryState] = []
    var cache: [CachedResult] = []
    var nextSerial: UInt64 = 1
    /// Test seams for the isolation oracle (`InstantClient+Tenants.swift`): keep the queue or
    /// the query results across a user change. Never set by a built-in.
    var keepsQueueOnUserChange = false
    var keepsResultsOnUserChange = false

    static let reconnectTimer = ReactorConnection.reconnectTimer
    /// Reactor's `QUERY_ONCE_TIMEOUT`.
    static let queryOnceTimeoutMs: Int64 = 30_000
    /// Reactor's `_pendingMutationCleanupThreshold` and `_pendingTxCleanupTimeout`.
    static let cleanupThreshold = 200
    static let cleanupAgeMs: Int64 = 30_000

    /// The run's data model.
    let schema: Schema

    public init(context: ClientContext, fullEntity: Bool, restoring durable: Durable?) {
        id = context.id
        schema = context.schema
        persistence = context.persistence
        self.fullEntity = fullEntity
        sendTimeoutMs = context.options.sendTimeoutMs
        random = context.random
        tracesNotes = context.tracesNotes
        if let durable {
            pending = durable.pending
            cache = durable.cache
            for i in pending.indices { pending[i].serial = nextSerial; nextSerial += 1 }
        }
    }

    public var durableState: Durable { Durable(pending: persistence ? pending : [], cache: persistence ? cache : []) }

    public func result(of subscription: SubscriptionID) -> QueryResult? {
        // Indexed: `first(where:)` would copy the whole query state (its overlay store and
        // results) to return one field; the simulator reads this on every yield.
        let k = InstantQueryKey.subscription(subscription)
        for i in queries.indices where queries[i].key == k { return queries[i].shown }
        return nil
    }

    public var pendingWrites: [WriteID] {
        // Indexed: `filter` would copy every mutation (its steps) to test it; the monitor reads
        // this on every yield.
        var out: [WriteID] = []
        for i in pending.indices where pending[i].txID == nil { out.append(pending[i].write) }
        return out
    }

    public var pendingWriteCount: Int {
        var n = 0
        for m in pending where m.txID == nil { n += 1 }
        return n
    }

    // MARK: - Inputs

    public mutating func handle(_ input: ClientInput<InstantDown>, now: Int64, out: inout ClientOutbox<InstantUp>) {
        switch input {
        case .network(let d):
            connection.network(d, out: &out)
        case .connected:
            connection.connected(out: &out)
            // Sending `init` starts a new connection: nothing is in flight on it.
            timeouts.connectionStarted()
        case .disconnected:
            connection.disconnected(out: &out)
        case .timerFired(let t):
            timerFired(t, out: &out)
        case .received(let m):
            receive(m, now: now, out: &out)
        case .user(let cmd):
            user(cmd, out: &out)
        }
    }

    mutating func timerFired(_ t: TimerID, out: inout ClientOutbox<InstantUp>) {
        if t == Self.reconnectTimer {
            connection.reconnectTimerFired(out: &out)
            return
        }
        if let qi = queryTimers.firstIndex(where: { $0.0 == t }) {
            let k = queryTimers.remove(at: qi).1
            guard let i = queries.firstIndex(where: { $0.key == k }), !queries[i].timedOut else { return }
            queries[i].timedOut = true
            out(.event(.queryOnceFailed(QueryRequestID(UInt32(k.raw & 0xFFFF_FFFF)), offline: false, hasStaleResult: false)))
            return
        }
        guard let eventID = timeouts.fired(t) else { return }
        // Offline, the timeout does nothing: the mutation waits for the next init-ok.
        guard online, let i = pending.firstIndex(where: { $0.eventID == eventID }), pending[i].txID == nil else { return }
        let w = pending[i].write
        pending.remove(at: i)
        timeouts.answered(eventID, out: &out)
        persist(out: &out)
        out(.event(.writeRejected(w, .timeout)))
        refreshYields(out: &out)
    }

    mutating func receive(_ m: InstantDown, now: Int64, out: inout ClientOutbox<InstantUp>) {
        switch m {
        case .initOk:
            guard connection.initOk(out: &out) else { return }
            for q in queries { out(.send(.addQuery(q.key, q.query))) }
            flushPending(out: &out)
        case .addQueryOk(let k, let r, let tx), .refreshOk(let k, let r, let tx):
            guard let i = queries.firstIndex(where: { $0.key == k }) else { return }
            if k.isOnce {
                let q = queries.remove(at: i)
                out(.send(.removeQuery(k)))
                remember(q.query, r, tx, out: &out)
                if let qt = queryTimers.firstIndex(where: { $0.1 == k }) {
                    out(.cancelTimer(queryTimers[qt].0))
                    queryTimers.remove(at: qt)
                }
                if !q.timedOut { out(.event(.queryOnceResult(QueryRequestID(UInt32(k.raw & 0xFFFF_FFFF))))) }
                cleanupAged(now: now, out: &out)
                return
            }
            queries[i].setServer(r, processedTxID: tx)
            queries[i].fromCache = false
            remember(queries[i].query, r, tx, out: &out)
            cleanupConfirmed(out: &out)
            cleanupAged(now: now, out: &out)
            refreshYields(out: &out)
        case .transactOk(let eventID, let ws, let tx):
            timeouts.answered(eventID, out: &out)
            // A late transact-ok for a mutation already rejected by timeout is ignored.
            guard let i = pending.firstIndex(where: { $0.eventID == eventID }) else { return }
            pending[i].txID = tx
            pending[i].confirmedAt = now
            persist(out: &out)
            for w in ws { out(.event(.writeConfirmed(w))) }
            if cleanupAged(now: now, out: &out) { refreshYields(out: &out) }
        case .error(let eventID, let ws, let message):
            timeouts.answered(eventID, out: &out)
            guard let i = pending.firstIndex(where: { $0.eventID == eventID }) else { return }
            pending.remove(at: i)
            persist(out: &out)
            for w in ws { out(.event(.writeRejected(w, .serverError(message)))) }
            refreshYields(out: &out)
        }
    }

    mutating func user(_ cmd: UserCommand, out: inout ClientOutbox<InstantUp>) {
        switch cmd {
        case .write(let w):
            // A closure, not `map(step(for:))`: a partially applied method captures a copy of
            // the whole client.
            let steps = w.ops.map { step(for: $0) }
            var maxOrder: Int? = nil
            for p in pending.indices where maxOrder == nil || pending[p].order > maxOrder! { maxOrder = pending[p].order }
            let order = (maxOrder ?? 0) + 1
            var m = PendingMutation(eventID: random.next(), order: order, write: w.id, steps: steps, txID: nil)
            m.serial = nextSerial
            nextSerial += 1
            // The queue is sorted by (order, event id) and `order` is above every other, so the
            // new mutation sorts last: appended, the queue stays sorted (no sort pass).
            pending.append(m)
            persist(out: &out)
            if status == .authenticated && online { send(m, out: &out) }
            refreshYields(out: &out)
        case .subscribe(let s, let q):
            var st = QueryState(key: .subscription(s), query: q)
            if persistence, let c = cache.first(where: { $0.caches(q) }) {
                st.setServer(c.result, processedTxID: c.processedTxID)
                st.fromCache = true
            }
            queries.append(st)
            queries.sort { $0.key < $1.key }
            if status == .authenticated { out(.send(.addQuery(st.key, q))) }
            refreshYields(out: &out)
        case .unsubscribe(let s):
            queries.removeAll { $0.key == .subscription(s) }
            if status == .authenticated { out(.send(.removeQuery(.subscription(s)))) }
        case .queryOnce(let r, let q):
            guard online else {
                // The offline error carries the last known result: the cached server answer.
                if persistence, let c = cache.first(where: { $0.caches(q) }) {
                    if tracesNotes { out(.note("\(r)'s offline error carries the cached result (processed tx \(c.processedTxID)): \(c.result.lastKnownText)")) }
                    out(.event(.queryOnceFailedWithResult(r, offline: true, lastKnown: c.result)))
                } else {
                    out(.event(.queryOnceFailed(r, offline: true, hasStaleResult: false)))
                }
                return
            }
            let st = QueryState(key: .once(r), query: q)
            queries.append(st)
            queries.sort { $0.key < $1.key }
            if status == .authenticated { out(.send(.addQuery(st.key, q))) }
            let t = TimerID(nextTimer)
            nextTimer += 1
            queryTimers.append((t, st.key))
            out(.setTimer(t, afterMs: Self.queryOnceTimeoutMs))
        case .resolveConflict, .forceSync, .syncNow:
            out(.event(.invalidInput("instant has no conflict prompts or forced sync: \(cmd)")))
        case .dropOldestWrite:
            out(.event(.invalidInput("instant has no user-pruned queue: \(cmd)")))
        case .switchTenant, .logout:
            userChanged(out: &out)
        }
    }

    /// instaml: create mode for creates; update mode if the entity is in a cached store, else
    /// upsert. In `fullEntity` mode an update carries every field as the client sees it.
    func step(for op: Op) -> InstantStep {
        guard case .update(let e, let ns, let a) = op else { return InstantStep(op, upsert: false) }
        let known = queries.contains { $0.server?.contains(e) == true }
        guard fullEntity, let seen = currentRecord(e) else { return InstantStep(op, upsert: !known) }
        var full: [FieldAssignment] = []
        for f in schema.fields(of: ns) {
            if let x = a.first(where: { $0.field == f }) { full.append(x) } else if let v = seen[f] { full.append(FieldAssignment(f, v)) }
        }
        return InstantStep(.update(e, ns, full), upsert: !known)
    }

    /// The entity as the user currently sees it in any subscription.
    func currentRecord(_ e: EntityID) -> EntityRecord? {
        for i in queries.indices { if let r = queries[i].shown?.record(e) { return r } }
        return nil
    }

    mutating func send(_ m: PendingMutation, out: inout ClientOutbox<InstantUp>) {
        out(.send(.transact(eventID: m.eventID, write: m.write, steps: m.steps)))
        let t = TimerID(nextTimer)
        nextTimer += 1
        out(.setTimer(t, afterMs: timeouts.sending(m.eventID, stored: pending.count, baseMs: sendTimeoutMs, timer: t)))
    }

    mutating func flushPending(out: inout ClientOutbox<InstantUp>) {
        for m in pending where m.txID == nil { send(m, out: &out) }
    }

    mutating func remember(_ q: Query, _ r: QueryResult, _ tx: UInt64, out: inout ClientOutbox<InstantUp>) {
        guard persistence else { return }
        cache.removeAll { $0.caches(q) }
        cache.append(CachedResult(query: q, result: r, processedTxID: tx))
        persist(out: &out)
    }

    /// Removes confirmed mutations every loaded query has already seen. A subscription still
    /// showing its cached result counts with the cached processed tx id (Reactor takes the min
    /// over every loaded `querySubs` entry), so cleanup waits for it; 0 means "none" and is
    /// skipped, as Reactor skips a falsy processed tx id.
    mutating func cleanupConfirmed(out: inout ClientOutbox<InstantUp>) {
        var minTx: UInt64?
        for i in queries.indices where queries[i].server != nil && queries[i].processedTxID != 0 {
            let tx = queries[i].processedTxID
            if minTx == nil || tx < minTx! { minTx = tx }
        }
        guard let minTx else { return }
        // Asked first: `removeAll(where:)` makes the queue's storage unique even when it removes
        // nothing, which copies the whole queue whenever the simulator holds the last persisted
        // one (after every `.persist`), and most answers confirm nothing new to clean up.
        let seen: (PendingMutation) -> Bool = { $0.txID.map { $0 <= minTx } ?? false }
        guard pending.contains(where: seen) else { return }
        pending.removeAll(where: seen)
        persist(out: &out)
    }

    /// The second cleanup rule: once 200 or more mutations are stored, confirmed ones older than
    /// 30 s go, whether or not every query has seen them ("we assume the query is unaffected").
    /// Returns whether anything was removed.
    @discardableResult
    mutating func cleanupAged(now: Int64, out: inout ClientOutbox<InstantUp>) -> Bool {
        guard pending.count >= Self.cleanupThreshold else { return false }
        let aged: (PendingMutation) -> Bool = { m in m.confirmedAt.map { $0 + Self.cleanupAgeMs < now } ?? false }
        // Asked first, as in `cleanupConfirmed`: removing nothing would still copy a shared queue.
        guard pending.contains(where: aged) else { return false }
        pending.removeAll(where: aged)
        persist(out: &out)
        return true
    }

    mutating func persist(out: inout ClientOutbox<InstantUp>) {
        if persistence { out(.persist) }
    }

    /// Recomputes each subscription's view (server result + optimistic overlay) and yields the
    /// ones that changed.
    ///
    /// A view is a pure function of the server result and the visible pending mutations (in
    /// order), so each query keeps the inputs its `shown` was computed from: if they are the same,
    /// the view is `shown` and nothing yields; if only new mutations were appended, they are
    /// applied on top of the overlay store; otherwise (a new server answer, a mutation confirmed
    /// or removed) the store is rolled back to the answer it mirrors, patched where the new
    /// answer differs, and the visible steps applied again. Either way only the entities touched
    /// can change the view (`Query.mayChange`, `Query.patchTree`). Same results as recomputing from
    /// scratch; the cost follows what changed instead of the size of the answer.
    mutating func refreshYields(out: inout ClientOutbox<InstantUp>) {
        for i in queries.indices where !queries[i].key.isOnce {
            guard queries[i].server != nil else { continue }
            let ptx = queries[i].processedTxID
            // Compare the visible serials with the cached ones.
            var visible = 0
            var prefix = queries[i].overlayValid
            if prefix {
                queries[i].overlaySerials.withUnsafeBufferPointer { cached in
                    for p in pending.indices where pending[p].txID.map({ $0 > ptx }) ?? true {
                        if visible < cached.count && cached[visible] != pending[p].serial { prefix = false; break }
                        visible += 1
                    }
                    if prefix && visible < cached.count { prefix = false }
                }
            }
            if prefix {
                let done = queries[i].overlaySerials.count
                if visible == done { continue }  // same inputs: the view is `shown`
                if queries[i].overlayStore != nil && queries[i].storeShowsView {
                    // Only new mutations: apply the steps the store takes on top of it.
                    var store = queries[i].overlayStore.take()!  // keep it uniquely referenced
                    var log = EntityStore.UndoLog()
                    if !applyVisible(i, to: &store, above: ptx, after: done, undo: &log) {
                        // A new step names an entity the store left out: undo the new steps and
                        // build the store again from its base with every step (below).
                        store.rollBack(log)
                        queries[i].overlayStore = store
                        queries[i].overlaySerials.removeLast(queries[i].overlaySerials.count - done)
                        queries[i].overlayValid = false
                    } else if log.isEmpty {
                        // Nothing the view reads was written: it stands as shown.
                        queries[i].overlayStore = store
                        continue
                    } else {
                        let touched = store.touched(by: log)
                        queries[i].overlayUndo.absorb(log)
                        updateView(i, store, touched: touched, out: &out)
                        continue
                    }
                }
            }
            // Back to the server's answer, then every visible step again.
            var touched: [EntityID] = []
            var store: EntityStore
            var incremental = false
            if var old = queries[i].overlayStore.take(), let base = queries[i].overlayBase {
                touched = old.touched(by: queries[i].overlayUndo)
                old.rollBack(queries[i].overlayUndo)
                Self.patchBase(&old, from: base, to: queries[i].server!, touched: &touched)
                store = old
                incremental = queries[i].storeShowsView
            } else {
                store = EntityStore(entriesOf: queries[i].server!)
            }
            queries[i].overlayBase = queries[i].server
            queries[i].overlaySerials.removeAll(keepingCapacity: true)
            queries[i].overlayFilter.restart(query: queries[i].query, schema: schema)
            var undo = EntityStore.UndoLog()
            if !applyVisible(i, to: &store, above: ptx, after: 0, undo: &undo) {
                // A step named an entity a left-out one wrote: again, with every step.
                store.rollBack(undo)
                undo = EntityStore.UndoLog()
                queries[i].overlaySerials.removeAll(keepingCapacity: true)
                _ = applyVisible(i, to: &store, above: ptx, after: 0, undo: &undo)
            }
            queries[i].overlayUndo = undo
            queries[i].overlayValid = true
            if queries[i].overlaySerials.isEmpty {
                // No mutation is visible: the view is the server's answer itself. Without a
                // limit that answer is also the query over `store` (which holds exactly its
                // entries: every entry that is a root or a child over the server's data is one
                // over its own entries, and nothing else is there), so the next write patches
                // the view instead of evaluating it over the whole store. With a limit, a child
                // of the root namespace could pass for a root: the next write evaluates.
                queries[i].overlayStore = store
                queries[i].storeShowsView = queries[i].query.limit == nil
                assert(!queries[i].storeShowsView || queries[i].query.evaluates(store, to: queries[i].server!),
                       "a server answer without a limit is not the query over its own entries")
                if queries[i].server != queries[i].shown {
                    queries[i].shown = queries[i].server
                    out(.event(.subscriptionYielded(SubscriptionID(UInt32(queries[i].key.raw)), fromCache: queries[i].fromCache)))
                }
                continue
            }
            if incremental {
                touched += store.touched(by: queries[i].overlayUndo)
                updateView(i, store, touched: touched, out: &out)
            } else {
                updateView(i, store, touched: nil, out: &out)
            }
        }
    }

    /// Applies to `store` the steps query `i`'s store takes (`OverlayStepFilter`) of the visible
    /// mutations (those not in answers up to `ptx`) after the first `done`, logging them in
    /// `undo` and appending their serials. False when a step names an entity a left-out step
    /// wrote: the filter then takes every step, and the caller undoes `undo` and starts again.
    mutating func applyVisible(_ i: Int, to store: inout EntityStore, above ptx: UInt64, after done: Int,
                               undo: inout EntityStore.UndoLog) -> Bool {
        var k = 0
        for p in pending.indices where pending[p].txID.map({ $0 > ptx }) ?? true {
            defer { k += 1 }
            if k < done { continue }
            // Read in place: `for s in steps` copied every step (its op's payload retained and
            // released) only to read it.
            let steps = pending[p].steps
            let complete: Bool = steps.withUnsafeBufferPointer { sb in
                for k in sb.indices {
                    guard let takes = queries[i].overlayFilter.take(sb[k].op, schema: schema) else { return false }
                    if takes { _ = store.apply(sb[k].op, schema: schema, mode: .upsert, undo: &undo) }
                }
                return true
            }
            if !complete { return false }
            queries[i].overlaySerials.append(pending[p].serial)
        }
        return true
    }

    /// Makes query `i`'s view the query over `store`, which differs from the store its `shown`
    /// was computed from only in the entities `touched` (nil: unknown, evaluate in full), keeps
    /// `store`, and yields if the view changed.
    mutating func updateView(_ i: Int, _ store: EntityStore, touched: [EntityID]?, out: inout ClientOutbox<InstantUp>) {
        let query = queries[i].query
        queries[i].overlayStore = store
        if let touched, queries[i].storeShowsView, var view = queries[i].shown {
            if !query.mayChange(view, touched: touched, in: store, schema: schema) { return }
            // With at most one level of includes (and no limit), patch the view where the
            // touched entities are (`Query.patchTree`).
            queries[i].shown = nil  // `view` uniquely referenced: patched in place
            let changed = query.patchTree(&view, touched: touched, in: store)
            queries[i].shown = view
            if let changed {
                if changed {
                    out(.event(.subscriptionYielded(SubscriptionID(UInt32(queries[i].key.raw)), fromCache: queries[i].fromCache)))
                }
                return
            }
        }
        queries[i].storeShowsView = true
        if let view = query.evaluate(store, unlessEqualTo: queries[i].shown) {
            queries[i].shown = view
            out(.event(.subscriptionYielded(SubscriptionID(UInt32(queries[i].key.raw)), fromCache: queries[i].fromCache)))
        }
    }

    /// Entries `patchBase` passes with one bit comparison (`StorageWords.sameBits`).
    static let patchBlock = 16

    /// Brings `store`, which holds exactly `old`'s entries, to `new`'s entries: a merge walk over
    /// both (ascending ids) that writes only the slots that differ and notes them in `touched`.
    /// Returns how many entries it passed over by their storage words (tests: the shortcut
    /// below must fire on a patched answer).
    ///
    /// A new answer is usually the previous one patched by the server: its untouched entries
    /// keep their records' storage, so a run of them is passed over by comparing a few words per
    /// entry (`QueryResult.Entry.StorageWords`) instead of comparing records. The walk was most
    /// of the cost of an answer once answers held hundreds of entries (a fifth of instant's
    /// instructions at 3,000 actions, seed 1). Entries told apart by words are compared as
    /// before, so the writes and `touched` are those of the plain walk.
    @discardableResult
    static func patchBase(_ store: inout EntityStore, from old: QueryResult, to new: QueryResult, touched: inout [EntityID]) -> Int {
        // One merge walk, reading both entry buffers in place (no entry, so no record, is copied
        // to be compared). The walk writes nothing when the answers are equal; the same buffer
        // is told at once.
        let words = QueryResult.Entry.storageWords
        return old.entries.withUnsafeBufferPointer { o in
            new.entries.withUnsafeBufferPointer { n -> Int in
                if o.count == n.count && o.baseAddress == n.baseAddress { return 0 }
                var passed = 0
                var j = 0
                var k = 0
                while k < n.count {
                    if let words, j < o.count {
                        // Aligned entries in the same storage: equal, nothing to write.
                        let ob = o.baseAddress.unsafelyUnwrapped, nb = n.baseAddress.unsafelyUnwrapped
                        let j0 = j
                        // Whole blocks the same bits (the server copies an answer bit for bit
                        // before patching it, `QueryResult.copyBits`): one `memcmp` each.
                        while j + Self.patchBlock <= o.count && k + Self.patchBlock <= n.count
                                && words.sameBits(ob + j, nb + k, count: Self.patchBlock) {
                            j += Self.patchBlock
                            k += Self.patchBlock
                        }
                        while j < o.count && k < n.count && words.sameStorage(ob + j, nb + k) {
                            j += 1
                            k += 1
                        }
                        passed += j - j0
                        if k == n.count { break }
                    }
                    let id = n[k].id
                    while j < o.count && o[j].id < id {
                        store[o[j].id] = nil
                        touched.append(o[j].id)
                        j += 1
                    }
                    if j < o.count && o[j].id == id {
                        if o[j].record != n[k].record {
                            store[id] = n[k].record
                            touched.append(id)
                        }
                        j += 1
                    } else {
                        store[id] = n[k].record
                        touched.append(id)
                    }
                    k += 1
                }
                while j < o.count {
                    store[o[j].id] = nil
                    touched.append(o[j].id)
                    j += 1
                }
                return passed
            }
        }
    }

    func overlay(_ base: QueryResult, processedTxID: UInt64, query: Query) -> QueryResult {
        let visible = pending.filter { $0.txID.map { $0 > processedTxID } ?? true }
        if visible.isEmpty { return base }
        var store = EntityStore(entriesOf: base)
        for m in visible { for s in m.steps { _ = store.apply(s.op, schema: schema, mode: .upsert) } }
        return query.evaluate(store)
    }
}
