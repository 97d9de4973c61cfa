/// What happened in a run, recorded by the simulator for the oracles: the users' intents, the
/// server's transaction log, what users were told, and facts about the network. Oracles judge a
/// strategy from this record and the final states, never by asking the strategy what it meant.
public struct History: Sendable {
    /// A write someone asked for.
    public struct Intent: Sendable {
        public var write: UserWrite
        public var origin: Origin
        /// Virtual time the user made it.
        public var time: Int64
        /// The device's clock at that moment (virtual time + skew): what a client timestamp says.
        public var clientTime: Int64
        /// Was the device offline or the server unreachable when the write was made?
        public var whileDisconnected: Bool
    }

    public struct Applied: Sendable {
        public var time: Int64
        public var tx: AppliedTransaction
    }

    public struct Told: Sendable {
        public var time: Int64
        public var client: ClientID
        public var event: UserEvent
    }

    public struct Restart: Sendable {
        public var time: Int64
        public var client: ClientID
        /// Writes pending on the client at the moment it crashed.
        public var pendingAtCrash: [WriteID]
        /// Writes pending right after it relaunched (from durable storage).
        public var pendingAfter: [WriteID]
    }

    public internal(set) var intents: [Intent] = []
    public internal(set) var applied: [Applied] = []
    /// Every user-visible event, in order.
    public internal(set) var told: [Told] = []
    public internal(set) var restarts: [Restart] = []
    /// Connection attempts made while the device was offline.
    public internal(set) var connectsWhileOffline: [(time: Int64, client: ClientID)] = []
    /// Deliveries to the server of a message carrying a write already delivered before.
    public internal(set) var duplicateWriteDeliveries = 0
    public internal(set) var messagesSent = 0
    public internal(set) var messagesLost = 0
    public internal(set) var maxPendingWrites = 0
    /// When the heal phase started, and when the run settled (nil: it never did).
    public internal(set) var healTime: Int64 = 0
    public internal(set) var settledTime: Int64?

    /// Position in `intents` of each write id (write ids are dense, from 0); -1 if never made.
    var intentIndex: [Int32] = []

    public func intent(_ w: WriteID) -> Intent? {
        let i = Int(w.raw)
        guard i < intentIndex.count, intentIndex[i] >= 0 else { return nil }
        return intents[Int(intentIndex[i])]
    }

    mutating func record(_ intent: Intent) {
        let i = Int(intent.write.id.raw)
        if i >= intentIndex.count { intentIndex.append(contentsOf: repeatElement(-1, count: i - intentIndex.count + 1)) }
        intentIndex[i] = Int32(intents.count)
        intents.append(intent)
    }

    /// Writes the user was told were rejected.
    public var rejectedWrites: Set<WriteID> {
        var s = Set<WriteID>()
        for t in told { if case .writeRejected(let w, _) = t.event { s.insert(w) } }
        return s
    }
}
