/// Everything a run produced: identity (seed, strategy, trace hash), final states, violations,
/// the history the oracles read, and the story lines when the trace was kept.
public struct RunResult: Sendable {
    /// A subscription the app still held open at the end of the run.
    public struct SubscriptionFinal: Sendable {
        public var id: SubscriptionID
        /// The query the app subscribed with.
        public var query: Query
        /// What the user sees (nil: the subscription never yielded).
        public var result: QueryResult?
        /// The server's answer to the same query.
        public var expected: QueryResult
    }

    /// One client's observable state at the end of the run.
    public struct ClientFinal: Sendable {
        public var client: ClientID
        /// Open subscriptions, in id order.
        public var subscriptions: [SubscriptionFinal]
        /// Writes the client still holds unconfirmed, in its own order.
        public var pendingWrites: [WriteID]
    }

    public var strategy: String
    public var seed: UInt64
    /// Events the simulator dispatched.
    public var events: Int
    /// Events that entered the trace hash.
    public var traceEvents: Int
    public var virtualDurationMs: Int64
    public var traceHash: UInt64
    public var server: EntityStore
    public var clients: [ClientFinal]
    /// Every violation found, built-in and user invariants alike, sorted (`Violation.<`). User
    /// invariants' violations carry their own ids only (see `CustomInvariant`).
    public var violations: [Violation]
    /// The user invariants this run was also judged by, in id order (empty: built-ins only).
    /// Lets a report tell "checked and held" from "not checked".
    public var customInvariants: [InvariantID] = []
    public var history: History
    public var trace: [TraceLine]
    public var settled: Bool
    /// The run was stopped from outside (`RunStop`: a time budget, Ctrl-C) before it ended: it
    /// is unfinished, neither passed nor failed, and must not be reported as either.
    public var interrupted = false

    public var traceHashHex: String {
        let s = String(traceHash, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// The distinct invariants violated, in catalog order (built-ins, then user invariants by id).
    public var violatedInvariants: [InvariantID] {
        Array(Set(violations.map(\.invariant))).sorted()
    }

    /// Virtual time from the start of the heal phase to settling (nil: never settled).
    public var convergenceMs: Int64? { history.settledTime.map { $0 - history.healTime } }
}
