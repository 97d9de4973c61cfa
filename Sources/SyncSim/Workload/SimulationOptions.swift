/// Everything about a run that is not an action: part of the schedule, so a scenario file is a
/// complete, self-contained reproduction. Rates are integers in parts per million (no floating
/// point in the reproducibility contract); times are virtual milliseconds.
public struct SimulationOptions: Hashable, Sendable {
    public var clients = 3
    /// The app enabled local persistence (durable query cache and pending queue).
    public var persistence = true
    /// One-way latency is drawn uniformly from this range per message; the spread is the jitter
    /// that reorders datagrams.
    public var latencyMinMs: Int64 = 5
    public var latencyMaxMs: Int64 = 60
    /// Per message: datagram lost, or (stream transports) the connection reset.
    public var dropPpm: UInt32 = 0
    /// Per datagram: delivered twice (streams never duplicate).
    public var duplicatePpm: UInt32 = 0
    /// Extra delay added to a message with probability `delayPpm` (reorders datagrams, slows streams).
    public var delayPpm: UInt32 = 0
    public var delayMaxMs: Int64 = 2_000
    /// Per-client clock offset: the client's `now` is virtual time plus this.
    public var clockSkewMs: [Int64] = []
    /// How the simulated user answers a conflict prompt.
    public var conflictPolicy: ConflictPolicy = .keepLocal
    public var conflictThinkMs: Int64 = 500
    public var queueCap = 200
    /// Stream transports: a connection attempt to an unreachable server fails after this long.
    public var connectTimeoutMs: Int64 = 3_000
    /// Stream transports: an open connection notices the server became unreachable after this long.
    public var unreachableDetectMs: Int64 = 1_000
    /// After the heal phase starts, the run must settle within this much virtual time.
    public var settleLimitMs: Int64 = 120_000
    /// A hard bound on delivered events: a strategy that never settles cannot hang a run.
    public var maxEvents = 2_000_000
    public var strategy = StrategyOptions()

    public init() {}

    public func skew(of c: ClientID) -> Int64 { c.index < clockSkewMs.count ? clockSkewMs[c.index] : 0 }
}

/// The simulated user's answer to conflict prompts.
public enum ConflictPolicy: String, Hashable, Sendable, Codable, CaseIterable {
    case keepLocal, keepServer
    /// keepLocal, keepServer, keepLocal, … in prompt order.
    case alternate
    /// Always "merge" (seed 003's text merge). Scenario files only: the generator does not
    /// draw it (see `generated`).
    case merge

    /// The policies the workload generator draws from, in their historical order, so a seed
    /// names the schedule it always did and strategies without a merge never meet one.
    public static let generated: [ConflictPolicy] = [.keepLocal, .keepServer, .alternate]

    public func choice(forPrompt n: Int) -> ConflictChoice {
        switch self {
        case .keepLocal: return .keepLocal
        case .keepServer: return .keepServer
        case .alternate: return n % 2 == 0 ? .keepLocal : .keepServer
        case .merge: return .merge
        }
    }
}
