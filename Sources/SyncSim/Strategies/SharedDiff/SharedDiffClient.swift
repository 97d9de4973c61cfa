/// The `sharedDiff` client: SharingInstant's `@Shared` collections over InstantDB's wire protocol.
/// The rules and their sources are listed in `SharedDiffStrategy.swift`; this file is the state
/// machine (connection, inputs, pending save transactions), `SharedDiffViews.swift` computes what
/// each collection shows, and `SharedDiffSave.swift` turns a collection into a save transaction.
public struct SharedDiffClient: ClientMachine {
    public typealias Up = InstantUp
    public typealias Down = InstantDown
    public typealias Status = InstantClient.Status

    /// A transaction `save()` produced: the Reactor's pending mutation, but its steps were derived
    /// from a collection diff, and it carries only the user writes it reflects (possibly none).
    public struct SaveMutation: Sendable, Hashable {
        public var eventID: UInt64
        public var order: Int
        public var writes: [WriteID]
        public var steps: [InstantStep]
        public var txID: UInt64?
    }

    /// A user write already applied to the collections but not yet saved by every collection
    /// that must save it (`owedBy`: the subscriptions whose `save()` has not run yet).
    public struct UnsavedWrite: Sendable, Hashable {
        public var write: UserWrite
        public var owedBy: [SubscriptionID]
    }

    public struct Durable: Sendable {
        public var pending: [SaveMutation]
        public var cache: [InstantClient.CachedResult]
    }

    /// One `@Shared` collection (a subscription) or one in-flight `queryOnce`.
    struct Collection {
        var key: InstantQueryKey
        var query: Query
        /// The server's answer (or the cached one) and its processed tx id.
        var server: QueryResult?
        var processedTxID: UInt64 = 0
        var fromCache = false
        /// The collection's value: what the UI shows, and what `save()` diffs.
        var shown: QueryResult?
        /// Namespaces a scheduled `save()` must diff, ascending; empty: no save scheduled.
        var saveDue: [NamespaceID] = []
        /// User writes that scheduled or joined the pending save, in write order.
        var saveWrites: [WriteID] = []
        /// The server answer with the visible saves laid over, kept between refreshes, in a box
        /// (`OverlaySlot`) that copies of the collection share until one of them writes.
        var overlay: SharedDiffOverlay? {
            get { slot.overlay }
            set {
                if isKnownUniquelyReferenced(&slot) { slot.overlay = newValue } else { slot = OverlaySlot(newValue) }
            }
        }
        var slot = OverlaySlot(nil)
        /// The update steps its saves sent, reused by the next save where the values are the
        /// same (`SharedDiffStepCache`).
        var stepCache = SharedDiffStepCache()

        var subscription: SubscriptionID? { key.isOnce ? nil : SubscriptionID(UInt32(key.raw)) }

        /// The namespaces this collection holds: its roots and the entities it reaches by link.
        func holds(_ ns: NamespaceID, in schema: Schema) -> Bool { query.namespace == ns || query.reachedNamespaces(in: schema).contains(ns) }
    }

    /// Where a collection keeps its overlay: a box, so the refresh loop changes the overlay where
    /// it is while it reads the collections through their buffer.
    ///
    /// Why: the overlay is a struct of some 50 words, and the loop (which cannot hand out the
    /// collection's own field while it reads the collections) swapped it out of the collection
    /// and back for every view of every refresh: six copies of it per view (seed 1, 3,000 actions
    /// without swarm: 650 instructions per event). Copy on write: a collection copied (the client
    /// is a value) shares the box until one copy writes, which first takes a box of its own
    /// (`Collection.overlay`'s setter, and the refresh loop), so no copy sees another's writes.
    ///
    /// `@exclusivity(unchecked)`: the loop passes the overlay `inout` for the whole view, and a
    /// class property is checked for overlapping accesses at run time on every access; nothing
    /// in a view reads any collection's overlay. `@unchecked Sendable`: a box is written only
    /// while its collection holds the only reference (both writers check first), so a box is
    /// never written while shared, as `EntityRecord`'s box.
    final class OverlaySlot: @unchecked Sendable {
        @exclusivity(unchecked) var overlay: SharedDiffOverlay?
        init(_ overlay: SharedDiffOverlay?) { self.overlay = overlay }
    }

    public let id: ClientID
    let persistence: Bool
    let sendTimeoutMs: Int64
    var random: SimRandom

    /// Online flag, socket status and backoff (shared with every InstantDB client).
    public private(set) var connection = ReactorConnection()
    public var online: Bool { connection.online }
    public var status: Status { connection.status }
    public internal(set) var pending: [SaveMutation] = [] {
        didSet {
            pendingVersion &+= 1
            pendingWritesValue = Self.pendingWrites(unsaved, pending)
        }
    }
    public internal(set) var unsaved: [UnsavedWrite] = [] {
        didSet {
            unsavedVersion &+= 1
            pendingWritesValue = Self.pendingWrites(unsaved, pending)
        }
    }
    /// `pendingWrites`, kept up to date by the observers of `pending` and `unsaved`: the simulator
    /// asks for it after every input the client handles, and building the list there (an
    /// allocation and a search per write) was 3% of the bench sweep; the two lists change far
    /// less often.
    private(set) var pendingWritesValue: [WriteID] = []
    /// Bumped by every change to `pending` or `unsaved` (any field of any element): a view whose
    /// inputs were read at these versions needs no second evaluation while they stand
    /// (`SharedDiffOverlay.Evaluation`). Observers, so no mutation can forget to bump them.
    var pendingVersion: UInt64 = 0
    var unsavedVersion: UInt64 = 0
    var confirmed = Set<WriteID>()
    /// Send timeouts of pending saves (shared Reactor rules).
    var timeouts = ReactorSendTimeouts()
    var nextTimer: UInt32 = 1
    var collections: [Collection] = []
    /// Bumped whenever what the collections show (`seen`) may have changed: a view changed, a
    /// collection came or went. An overlay whose lookups were checked at this version needs no
    /// second check (`SharedDiffOverlay.verifiedAt`).
    var shownVersion: UInt64 = 0
    /// The entities whose `seen` answer changed at each `shownVersion` since the last change
    /// it cannot list entity by entity (`SharedDiffSeenChanges`).
    var seenChanges = SharedDiffSeenChanges()
    var cache: [InstantClient.CachedResult] = []
    /// The namespace of every entity the client was given, so an overlay can leave out the steps
    /// of a save that its view cannot read (`SharedDiffNamespaceClaims`).
    var claims = SharedDiffNamespaceClaims()

    static let reconnectTimer = ReactorConnection.reconnectTimer
    /// Save timers live above this bit (`saveTimerBit | subscription`); send timeouts below it.
    static let saveTimerBit: UInt32 = 1 << 31
    /// `save()` runs this many ms after the write that triggered it (SharingInstant saves in an
    /// async task; two collections' saves land "milliseconds apart", seed 001 §Evidence).
    /// The save delay range (`StrategyOptions.saveDelayMinMs…saveDelayMaxMs`, 2…40 ms by default).
    let saveDelayMs: ClosedRange<Int>
    /// Whether a save is one transaction (`StrategyOptions.sharedDiffAtomicSaves`, default) or
    /// one per operation.
    let atomicSaves: Bool
    /// Whether a save's traversal follows links through every entity the client knows
    /// (`StrategyOptions.sharedDiffTraverseKnown`) or only through the saving collection.
    let traverseKnown: Bool

    /// The run's data model.
    let schema: Schema

    public init(context: ClientContext, restoring durable: Durable?) {
        id = context.id
        schema = context.schema
        persistence = context.persistence
        sendTimeoutMs = context.options.sendTimeoutMs
        // Ranges are checked when a schedule compiles; a context built by hand with inverted or
        // negative bounds gets the nearest valid range rather than a trap.
        let lo = Int(max(0, context.options.saveDelayMinMs))
        saveDelayMs = lo...max(lo, Int(context.options.saveDelayMaxMs))
        atomicSaves = context.options.sharedDiffAtomicSaves
        traverseKnown = context.options.sharedDiffTraverseKnown
        random = context.random
        if let durable {
            pending = durable.pending
            pendingWritesValue = Self.pendingWrites(unsaved, pending)
            cache = durable.cache
            // Saved in an earlier life: what they name was claimed then, not in this one.
            for m in pending { for s in m.steps { _ = claims.claim(s.op) } }
            for c in cache { _ = claims.claim(c.result) }
        }
    }

    public var durableState: Durable { Durable(pending: persistence ? pending : [], cache: persistence ? cache : []) }

    public func result(of subscription: SubscriptionID) -> QueryResult? {
        collections.first { $0.key == .subscription(subscription) }?.shown
    }

    /// Writes not yet saved by every collection that owes a save, then writes carried by a save
    /// transaction the server has not confirmed; each once, in that order.
    public var pendingWrites: [WriteID] { pendingWritesValue }

    /// `pendingWrites` of these lists.
    static func pendingWrites(_ unsaved: [UnsavedWrite], _ pending: [SaveMutation]) -> [WriteID] {
        var out: [WriteID] = []
        if unsaved.isEmpty && pending.isEmpty { return out }
        for u in unsaved where !out.contains(u.write.id) { out.append(u.write.id) }
        for m in pending where m.txID == nil { for w in m.writes where !out.contains(w) { out.append(w) } }
        return out
    }

    // MARK: - Inputs

    public mutating func handle(_ input: ClientInput<InstantDown>, now: Int64, out: inout ClientOutbox<InstantUp>) {
        switch input {
        case .network(let d):
            connection.network(d, out: &out)
        case .connected:
            connection.connected(out: &out)
            timeouts.connectionStarted()
        case .disconnected:
            connection.disconnected(out: &out)
        case .timerFired(let t):
            timerFired(t, out: &out)
        case .received(let m):
            receive(m, out: &out)
        case .user(let cmd):
            user(cmd, out: &out)
        }
    }

    mutating func timerFired(_ t: TimerID, out: inout ClientOutbox<InstantUp>) {
        if t == Self.reconnectTimer {
            connection.reconnectTimerFired(out: &out)
            return
        }
        if t.raw & Self.saveTimerBit != 0 {
            runSave(SubscriptionID(t.raw & ~Self.saveTimerBit), out: &out)
            return
        }
        guard let eventID = timeouts.fired(t) else { return }
        // Offline, the timeout does nothing: the mutation waits for the next init-ok.
        guard online, let i = pending.firstIndex(where: { $0.eventID == eventID }), pending[i].txID == nil else { return }
        let m = pending.remove(at: i)
        timeouts.answered(eventID, out: &out)
        persist(out: &out)
        reject(m.writes, .timeout, out: &out)
        refreshViews(out: &out)
    }

    mutating func receive(_ m: InstantDown, out: inout ClientOutbox<InstantUp>) {
        switch m {
        case .initOk:
            guard connection.initOk(out: &out) else { return }
            // By index: `for c in collections` copied every collection (a retain and a release
            // per array it and its overlay own) on every init-ok.
            for i in collections.indices { out(.send(.addQuery(collections[i].key, collections[i].query))) }
            for m in pending where m.txID == nil { send(m, out: &out) }
        case .addQueryOk(let k, let r, let tx), .refreshOk(let k, let r, let tx):
            guard let i = collections.firstIndex(where: { $0.key == k }) else { return }
            claim(r, replacing: collections[i].server)
            if k.isOnce {
                let c = collections.remove(at: i)
                collectionsChanged()
                out(.send(.removeQuery(k)))
                remember(c.query, r, tx, out: &out)
                out(.event(.queryOnceResult(QueryRequestID(UInt32(k.raw & 0xFFFF_FFFF)))))
                return
            }
            collections[i].server = r
            collections[i].processedTxID = tx
            collections[i].fromCache = false
            remember(collections[i].query, r, tx, out: &out)
            cleanupConfirmed(out: &out)
            refreshViews(out: &out)
        case .transactOk(let eventID, _, let tx):
            timeouts.answered(eventID, out: &out)
            // A late transact-ok for a save already rejected by timeout is ignored.
            guard let i = pending.firstIndex(where: { $0.eventID == eventID }) else { return }
            pending[i].txID = tx
            persist(out: &out)
            for w in pending[i].writes where !confirmed.contains(w) {
                confirmed.insert(w)
                out(.event(.writeConfirmed(w)))
            }
        case .error(let eventID, _, let message):
            timeouts.answered(eventID, out: &out)
            guard let i = pending.firstIndex(where: { $0.eventID == eventID }) else { return }
            let m = pending.remove(at: i)
            persist(out: &out)
            reject(m.writes, .serverError(message), out: &out)
            refreshViews(out: &out)
        }
    }

    /// Tells the user a failed save's writes were rejected, except those confirmed by another
    /// save, carried by another pending save, or still owed a save by some collection.
    mutating func reject(_ writes: [WriteID], _ reason: RejectReason, out: inout ClientOutbox<InstantUp>) {
        for w in writes {
            if confirmed.contains(w) { continue }
            if pending.contains(where: { $0.writes.contains(w) }) { continue }
            if unsaved.contains(where: { $0.write.id == w }) { continue }
            out(.event(.writeRejected(w, reason)))
        }
    }

    mutating func user(_ cmd: UserCommand, out: inout ClientOutbox<InstantUp>) {
        switch cmd {
        case .write(let w):
            write(w, out: &out)
        case .subscribe(let s, let q):
            guard !collections.contains(where: { $0.key == .subscription(s) }) else {
                out(.event(.invalidInput("\(s) is already open")))
                return
            }
            var c = Collection(key: .subscription(s), query: q)
            if persistence, let cached = cache.first(where: { $0.query == q }) {
                c.server = cached.result
                c.processedTxID = cached.processedTxID
                c.fromCache = true
            }
            collections.append(c)
            collections.sort { $0.key < $1.key }
            collectionsChanged()
            if status == .authenticated { out(.send(.addQuery(c.key, q))) }
            refreshViews(out: &out)
        case .unsubscribe(let s):
            guard let i = collections.firstIndex(where: { $0.key == .subscription(s) }) else {
                out(.event(.invalidInput("\(s) is not open")))
                return
            }
            if !collections[i].saveDue.isEmpty { out(.cancelTimer(Self.saveTimer(s))) }
            collections.remove(at: i)
            collectionsChanged()
            // The collection is gone before its save ran: nothing will save it from here.
            settleOwed(by: s)
            if status == .authenticated { out(.send(.removeQuery(.subscription(s)))) }
            refreshViews(out: &out)
        case .queryOnce(let r, let q):
            guard online else {
                let stale = persistence && cache.contains { $0.query == q }
                out(.event(.queryOnceFailed(r, offline: true, hasStaleResult: stale)))
                return
            }
            let c = Collection(key: .once(r), query: q)
            collections.append(c)
            collections.sort { $0.key < $1.key }
            collectionsChanged()
            if status == .authenticated { out(.send(.addQuery(c.key, q))) }
        case .resolveConflict, .forceSync, .syncNow:
            out(.event(.invalidInput("sharedDiff has no conflict prompts or forced sync: \(cmd)")))
        case .dropOldestWrite:
            out(.event(.invalidInput("sharedDiff has no user-pruned queue: \(cmd)")))
        case .switchTenant, .logout:
            userChanged(out: &out)
        }
    }

    static func saveTimer(_ s: SubscriptionID) -> TimerID { TimerID(saveTimerBit | s.raw) }

    /// Removes a subscription from every unsaved write's debt; writes nobody owes any more leave
    /// the unsaved list (whether or not a save carried them).
    mutating func settleOwed(by s: SubscriptionID) {
        for i in unsaved.indices { unsaved[i].owedBy.removeAll { $0 == s } }
        unsaved.removeAll { $0.owedBy.isEmpty }
    }

    mutating func send(_ m: SaveMutation, out: inout ClientOutbox<InstantUp>) {
        out(.send(.transact(eventID: m.eventID, writes: m.writes, steps: m.steps)))
        let t = TimerID(nextTimer)
        nextTimer += 1
        out(.setTimer(t, afterMs: timeouts.sending(m.eventID, stored: pending.count, baseMs: sendTimeoutMs, timer: t)))
    }

    mutating func remember(_ q: Query, _ r: QueryResult, _ tx: UInt64, out: inout ClientOutbox<InstantUp>) {
        guard persistence else { return }
        cache.removeAll { $0.query == q }
        cache.append(InstantClient.CachedResult(query: q, result: r, processedTxID: tx))
        persist(out: &out)
    }

    /// Removes confirmed saves every loaded collection has already seen (Reactor §6): cached
    /// ones count with their cached processed tx id, and 0 ("none") is skipped, as in
    /// `InstantClient.cleanupConfirmed`.
    mutating func cleanupConfirmed(out: inout ClientOutbox<InstantUp>) {
        var minTx: UInt64?
        // By index: `for c in collections` copied every collection on every answer.
        for i in collections.indices where collections[i].server != nil && collections[i].processedTxID != 0 {
            let tx = collections[i].processedTxID
            if minTx == nil || tx < minTx! { minTx = tx }
        }
        guard let minTx else { return }
        // Asked first, as in `InstantClient.cleanupConfirmed`: removing nothing would still copy
        // the queue the simulator shares as the last persisted state.
        let seen: (SaveMutation) -> Bool = { $0.txID.map { $0 <= minTx } ?? false }
        guard pending.contains(where: seen) else { return }
        pending.removeAll(where: seen)
        persist(out: &out)
    }

    /// A collection came or went, or every collection lost its value: what the collections show
    /// changed in a way `seenChanges` does not list entity by entity.
    mutating func collectionsChanged() {
        shownVersion &+= 1
        seenChanges.forget(upTo: shownVersion)
    }

    mutating func persist(out: inout ClientOutbox<InstantUp>) {
        if persistence { out(.persist) }
    }

    /// Claims the namespaces of a server answer's records (`SharedDiffNamespaceClaims`), passing
    /// over the entries the answer it replaces (claimed when it came) already claimed.
    mutating func claim(_ r: QueryResult, replacing old: QueryResult?) {
        if claims.claim(r, since: old) { claimsMixed() }
    }

    /// An entity was named with a second namespace: overlays laid leaving steps out may hold
    /// other records than a full laying from now on, so every one is dropped (each is built again,
    /// in full, at its next refresh: the same views).
    mutating func claimsMixed() {
        for i in collections.indices { collections[i].overlay = nil }
    }
}
