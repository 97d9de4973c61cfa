/// What happened in a run, recorded by the simulator for the oracles: the users' intents, the
/// server's transaction log, what users were told, what their subscriptions showed (when asked
/// for), restarts and facts about the network. Oracles — the built-ins in `Monitor` and users'
/// `CustomInvariant`s — judge a strategy from this record and the final states, never by asking
/// the strategy what it meant.
///
/// Every list is in the order things happened (virtual time, then the simulator's event order),
/// which is deterministic: the same run always records the same history. Read-only outside the
/// simulator: oracles may not rewrite what happened.
public struct History: Sendable {
    /// A write someone asked for: a user on a client, or the server-side (admin) writer.
    public struct Intent: Sendable {
        /// The write as asked for: its id and operations (and typing-burst tag).
        public var write: UserWrite
        /// Who asked: `.client(c)` or `.admin`.
        public var origin: Origin
        /// Virtual time the user made it.
        public var time: Int64
        /// The device's clock at that moment (virtual time + skew): what a client timestamp says.
        public var clientTime: Int64
        /// Was the device offline or the server unreachable when the write was made?
        public var whileDisconnected: Bool
    }

    /// One entry of the server's transaction log: what the server committed, and when.
    public struct Applied: Sendable {
        /// Virtual time the server applied it.
        public var time: Int64
        /// The transaction: its origin, the user writes it carries and the operations applied.
        public var tx: AppliedTransaction
    }

    /// Something a user was shown (`UserEvent`): a rejection, a confirmation, a yield, a prompt…
    public struct Told: Sendable {
        public var time: Int64
        public var client: ClientID
        public var event: UserEvent
    }

    /// A client crash and relaunch, with what its write queue held either side of it.
    public struct Restart: Sendable {
        public var time: Int64
        public var client: ClientID
        /// Writes pending on the client at the moment it crashed.
        public var pendingAtCrash: [WriteID]
        /// Writes pending right after it relaunched (from durable storage).
        public var pendingAfter: [WriteID]
    }

    /// What a subscription showed the user when it yielded: the screen's content, as an outside
    /// observer would record it. Recorded only when some invariant of the run asks for
    /// observations (`CustomInvariant.needsObservations`), so runs that do not pay nothing.
    public struct Observation: Sendable {
        /// Virtual time of the yield.
        public var time: Int64
        public var client: ClientID
        public var subscription: SubscriptionID
        /// The query the app subscribed with; nil when the client yielded for a subscription the
        /// app does not hold open (itself worth an oracle's attention).
        public var query: Query?
        /// The client said the result came from its cache, before any server answer.
        public var fromCache: Bool
        /// What the subscription shows once the input that made it yield has been handled (the
        /// client's `result(of:)` then); nil if the client reports no result despite yielding.
        /// Several yields during one input all see that input's final result: the simulator
        /// observes machines between inputs, never inside one.
        public var result: QueryResult?
    }

    /// Every write asked for, in the order asked (user writes and admin writes alike).
    public internal(set) var intents: [Intent] = []
    /// The server's transaction log, in commit order (the initial data is not in it).
    public internal(set) var applied: [Applied] = []
    /// Every user-visible event, in order.
    public internal(set) var told: [Told] = []
    /// What subscriptions showed at each yield, in order; empty unless `recordsObservations`.
    public internal(set) var observations: [Observation] = []
    /// Whether this run recorded `observations` (some invariant asked for them). When false an
    /// empty `observations` says nothing about whether subscriptions yielded.
    public internal(set) var recordsObservations = false
    /// Client crashes and relaunches, in order.
    public internal(set) var restarts: [Restart] = []
    /// Tenant switches and logouts, in order (`History+Tenants.swift`); empty unless the
    /// schedule has `switchTenant` or `logout` actions.
    public internal(set) var tenantChanges: [TenantChange] = []
    /// Connection attempts made while the device was offline.
    public internal(set) var connectsWhileOffline: [(time: Int64, client: ClientID)] = []
    /// Deliveries to the server of a message carrying a write already delivered before.
    public internal(set) var duplicateWriteDeliveries = 0
    /// Messages handed to the network, both directions (including ones then lost).
    public internal(set) var messagesSent = 0
    /// Messages the network dropped, reset, or that were in flight when their link went down.
    public internal(set) var messagesLost = 0
    /// The largest number of writes pending on one client at any moment.
    public internal(set) var maxPendingWrites = 0
    /// When the heal phase started, and when the run settled (nil: it never did).
    public internal(set) var healTime: Int64 = 0
    public internal(set) var settledTime: Int64?

    /// Position in `intents` of each write id (write ids are dense, from 0); -1 if never made.
    var intentIndex: [Int32] = []

    /// The intent that made write `w`, or nil if no one made it (an id a strategy invented).
    public func intent(_ w: WriteID) -> Intent? {
        intentPosition(w).map { intents[$0] }
    }

    /// The position in `intents` of the intent that made write `w` (`intent(_:)` without the
    /// copy of the intent, for oracles that read it in place).
    func intentPosition(_ w: WriteID) -> Int? {
        let i = Int(w.raw)
        guard i < intentIndex.count, intentIndex[i] >= 0 else { return nil }
        return Int(intentIndex[i])
    }

    // MARK: - Recording (by the simulator only)
    //
    // The simulator is `@inlinable` and cannot reach the internal setters above, so it records
    // through these (`@usableFromInline`, compiled here; the setters stay internal).

    @usableFromInline
    mutating func recordIntent(_ write: UserWrite, origin: Origin, time: Int64, clientTime: Int64, whileDisconnected: Bool) {
        let intent = Intent(write: write, origin: origin, time: time, clientTime: clientTime, whileDisconnected: whileDisconnected)
        let i = Int(intent.write.id.raw)
        if i >= intentIndex.count { intentIndex.append(contentsOf: repeatElement(-1, count: i - intentIndex.count + 1)) }
        intentIndex[i] = Int32(intents.count)
        intents.append(intent)
    }

    @usableFromInline
    mutating func recordApplied(_ tx: AppliedTransaction, at time: Int64) { applied.append(.init(time: time, tx: tx)) }

    @usableFromInline
    mutating func recordTold(_ event: UserEvent, to client: ClientID, at time: Int64) {
        told.append(.init(time: time, client: client, event: event))
    }

    @usableFromInline
    mutating func recordRestart(_ client: ClientID, at time: Int64, pendingAtCrash: [WriteID], pendingAfter: [WriteID]) {
        restarts.append(.init(time: time, client: client, pendingAtCrash: pendingAtCrash, pendingAfter: pendingAfter))
    }

    @usableFromInline
    mutating func recordConnectWhileOffline(_ client: ClientID, at time: Int64) { connectsWhileOffline.append((time, client)) }

    @usableFromInline
    mutating func countDuplicateWriteDelivery() { duplicateWriteDeliveries += 1 }

    @usableFromInline
    mutating func countMessageSent() { messagesSent += 1 }

    @usableFromInline
    mutating func countMessageLost() { messagesLost += 1 }

    @usableFromInline
    mutating func notePendingWrites(_ n: Int) { if n > maxPendingWrites { maxPendingWrites = n } }

    @usableFromInline
    mutating func setRecordsObservations(_ on: Bool) { recordsObservations = on }

    @usableFromInline
    mutating func recordObservation(time: Int64, client: ClientID, subscription: SubscriptionID, query: Query?,
                                    fromCache: Bool, result: QueryResult?) {
        observations.append(.init(time: time, client: client, subscription: subscription, query: query,
                                  fromCache: fromCache, result: result))
    }

    @usableFromInline
    mutating func setHealTime(_ t: Int64) { healTime = t }

    @usableFromInline
    mutating func setSettledTime(_ t: Int64) { settledTime = t }

    /// Writes the user was told were rejected.
    public var rejectedWrites: Set<WriteID> {
        var s = Set<WriteID>()
        for t in told { if case .writeRejected(let w, _) = t.event { s.insert(w) } }
        return s
    }
}
