/// What a user invariant's oracle judges: the public record of one finished run.
///
/// It holds what an outside observer of the system could know — the users' intents, the server's
/// transaction log, what users were told, what their screens showed (observations, when asked
/// for), restarts, network facts — plus the final states and the run's inputs. It holds nothing
/// a strategy "meant": like the built-in oracles, a user oracle judges behaviour, never intent.
///
/// `History`'s members are reachable directly (`run.applied`, `run.told`, `run.observations`, …)
/// as well as through `history`.
@dynamicMemberLookup
public struct RunHistory: Sendable {
    /// The strategy under test, as it describes itself (name, arbitration order, contract).
    public let strategy: StrategyInfo
    /// The schedule that drove the run (actions, faults, initial data and options).
    public let schedule: Schedule
    public let seed: UInt64
    /// What happened, in order.
    public let history: History
    /// Virtual time when the run ended (settled, or out of time or events).
    public let endTime: Int64
    /// Whether the run settled after heal (see `Simulator.isSettled()`).
    public let settled: Bool
    /// The server's data at the end.
    public let server: EntityStore
    /// Each client's final subscriptions (what the user sees, and the server's answer to the same
    /// query) and pending writes, in client order.
    public let clients: [RunResult.ClientFinal]

    /// The run's options (clients, persistence, queue cap, clock skews, …).
    public var options: SimulationOptions { schedule.options }
    /// How many clients took part; valid client indices are `0..<clientCount`.
    public var clientCount: Int { schedule.options.clients }

    public subscript<T>(dynamicMember keyPath: KeyPath<History, T>) -> T { history[keyPath: keyPath] }

    init(strategy: StrategyInfo, schedule: Schedule, result r: RunResult) {
        self.strategy = strategy
        self.schedule = schedule
        seed = r.seed
        history = r.history
        endTime = r.virtualDurationMs
        settled = r.settled
        server = r.server
        clients = r.clients
    }
}
