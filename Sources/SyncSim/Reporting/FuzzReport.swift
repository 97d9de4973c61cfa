/// The result of a fuzz run: the strategy comparison, coverage, and every shrunk failure.
/// `report.json` is this value; `report.md`, `report.html` and `junit.xml` render it. Everything
/// outside `timing` is a pure function of the options and the seeds run, so the same options give
/// the same report whatever `--jobs`, and shards merge into exactly the unsharded report.
public struct FuzzReport: Codable, Sendable {
    public struct Options: Codable, Hashable, Sendable {
        public var strategies: [String]
        /// The seeds planned, as a description (`0..<200`, `shard 1/2 of 0..<200`).
        public var seeds: String
        /// `K/N` when this report covers one shard of `seeds`; nil for the whole range.
        public var shard: String?
        public var swarm: Bool
        public var clients: Int?
        public var actions: Int
        public var shrink: Bool
        /// Differential mode (`fuzz --baseline S`): the baseline strategy's name. Every violation
        /// the report counts is then baseline-free: on that seed and schedule the baseline did
        /// not violate the invariant (`Cell.sharedWithBaseline` counts the ones set aside).
        public var baseline: String? = nil
        /// The generator's tenants (`fuzz --tenants N`, 2…16); absent when the schedules use none,
        /// so reports of default runs read as they always did. Part of what identifies the
        /// workload: shards with different tenants do not merge.
        public var tenants: Int? = nil
        /// The generator's opt-in additions (`fuzz --also`), in `WorkloadFeature` order; absent
        /// when none is on. Like `tenants`, needed to regenerate a seed's schedule from the report.
        public var also: [String]? = nil
        public init(strategies: [String], seeds: String, shard: String?, swarm: Bool, clients: Int?, actions: Int, shrink: Bool) {
            self.strategies = strategies
            self.seeds = seeds
            self.shard = shard
            self.swarm = swarm
            self.clients = clients
            self.actions = actions
            self.shrink = shrink
        }
    }

    /// Wall-clock facts: the only part that differs between two identical runs.
    public struct Timing: Codable, Sendable {
        public var startedAt: String
        public var wallSeconds: Double
        public var runsPerSecond: Double
        public var shrinkSeconds: Double
        public init(startedAt: String, wallSeconds: Double, runsPerSecond: Double, shrinkSeconds: Double) {
            self.startedAt = startedAt
            self.wallSeconds = wallSeconds
            self.runsPerSecond = runsPerSecond
            self.shrinkSeconds = shrinkSeconds
        }
    }

    public struct Cell: Codable, Hashable, Sendable {
        public var invariant: String
        public var claimed: Bool
        /// Runs that violated it.
        public var violations: Int
        public var firstSeed: UInt64?
        public var shrunkActions: Int?
        /// The shrunk scenario, relative to the report folder.
        public var scenario: String?
        /// The situation a run must reach to test this invariant (`InvariantReach`); absent when
        /// it has none (every run tests it, or a user invariant).
        public var reachSituation: String? = nil
        /// Runs that reached `reachSituation`.
        public var reachedRuns: Int? = nil
        /// Differential mode only: runs that violated it where the baseline violated it too on
        /// the same schedule, so they were set aside (not in `violations`). Nil otherwise.
        public var sharedWithBaseline: Int? = nil

        /// Claimed, with a reach goal reached in under `InvariantReach.vacuousBelow` of the runs:
        /// the claim held, but was hardly tested.
        public func isBarelyReached(runs: Int) -> Bool {
            guard claimed, let n = reachedRuns, runs > 0 else { return false }
            return Double(n) < InvariantReach.vacuousBelow * Double(runs)
        }

        /// For an invariant claimed only under a condition: the condition's text ("when
        /// persistence is on") and the runs that violated it while the condition held (each a
        /// contract failure). Absent otherwise.
        public var condition: String? = nil
        public var violationsUnderCondition: Int? = nil

        /// Whether this cell is a contract failure: claimed and violated, or violated in a run
        /// where its condition held.
        public var breaksContract: Bool { (claimed && violations > 0) || (violationsUnderCondition ?? 0) > 0 }
    }

    public struct Metrics: Codable, Hashable, Sendable {
        public var convergeMedianMs: Int64?
        public var convergeP99Ms: Int64?
        public var messagesPerWrite: Double
        public var maxPendingQueue: Int
        public var writesLost: Int
        public var staleOverwrites: Int
        public var unsettledRuns: Int
        public var events: Int
    }

    public struct StrategyReport: Codable, Hashable, Sendable {
        public var name: String
        public var summary: String
        public var knownBad: Bool
        public var arbitration: String
        public var contract: [String]
        public var runs: Int
        public var metContract: Bool
        /// Claimed invariants that were violated.
        public var contractViolations: [String]
        public var cells: [Cell]
        public var metrics: Metrics
        /// The user invariants the strategy was judged by, in id order; absent (nil) when none,
        /// so a report without user invariants is the same JSON as before they existed.
        public var userInvariants: [InvariantSummary]? = nil
        /// The strategy's conditional claims; absent (nil) when it has none, as `userInvariants`.
        public var conditional: [ConditionalClaimSummary]? = nil
        /// When each situation and reach goal was first reached, in seed order (recomputed from
        /// `runs` by `build`, so merged shards get the unsharded curve). Absent from reports
        /// written before it existed; read it through `FuzzReport.timeline(of:)`, which computes
        /// it from the run records then. Optional, so report format 1 still reads both ways.
        public var coverageTimeline: CoverageTimeline? = nil
    }

    public struct Failure: Codable, Sendable {
        public var strategy: String
        public var invariant: String
        public var seed: UInt64
        /// True when the strategy claims the invariant (a contract violation).
        public var claimed: Bool
        public var explanation: String
        public var originalActions: Int
        public var shrunkActions: Int?
        public var scenario: String?
        public var replay: String
        /// The story of the shrunk run (or the original, unshrunk), for sequence diagrams.
        public var trace: [TraceLine]
        public var clients: Int
        /// Virtual time of the violation in the shrunk run.
        public var violationTimeMs: Int64?
        public var violationClient: Int?
        /// True when the time budget (or an interrupt) stopped shrinking: with `shrunkActions`,
        /// the scenario still fails but may not be minimal; without, the failure was left
        /// unshrunk (absent from report.json otherwise).
        public var shrinkStopped: Bool?
        /// Counterfactual replays of the shrunk scenario (`Explainer`): which actions the failure
        /// needs (`explain.necessaryActions`, what the diagram highlights), which are free, which
        /// hang on their time, and the point of no return. Absent when not shrunk or not explained.
        public var explain: Explanation? = nil
        /// Where the necessary actions of `explain` are in `trace` (located through the shrunk
        /// schedule when the failure was explained), for the diagram's rings. Absent without
        /// an explanation.
        public var necessaryMarks: [SequenceDiagram.ActionMark]? = nil

        public init(strategy: String, invariant: String, seed: UInt64, claimed: Bool, explanation: String, originalActions: Int,
                    shrunkActions: Int?, scenario: String?, replay: String, trace: [TraceLine], clients: Int,
                    violationTimeMs: Int64?, violationClient: Int?, shrinkStopped: Bool? = nil) {
            self.strategy = strategy
            self.invariant = invariant
            self.seed = seed
            self.claimed = claimed
            self.explanation = explanation
            self.originalActions = originalActions
            self.shrunkActions = shrunkActions
            self.scenario = scenario
            self.replay = replay
            self.trace = trace
            self.clients = clients
            self.violationTimeMs = violationTimeMs
            self.violationClient = violationClient
            self.shrinkStopped = shrinkStopped
        }
    }

    public struct Coverage: Codable, Hashable, Sendable {
        public var runs: Int
        /// Total actions of each kind across all runs.
        public var actions: [String: Int]
        /// Runs in which each action kind occurred.
        public var runsWithAction: [String: Int]
        public var runsWithFault: [String: Int]
        public var runsReaching: [String: Int]
        /// Action kinds, fault kinds and situations no run reached.
        public var neverReached: [String]
    }

    /// The version of this JSON shape (`report.json`'s `format`).
    public static let currentFormat = 1

    public var format = FuzzReport.currentFormat
    public var tool = "syncsim"
    public var options: Options
    /// True when every planned seed ran (false: stopped by the time budget or --stop-on-first).
    public var complete: Bool
    /// Why the fuzz run was cut short (nil: it was not; absent from report.json then, so a
    /// complete report's JSON is unchanged). With `complete` true, every run finished and only
    /// shrinking was cut short (see `Failure.shrinkStopped`).
    public var stopReason: StopReason?

    /// What cut a fuzz run short. Runs it stopped half-way are left out (neither passed nor
    /// failed); failures it left unshrunk are marked `Failure.shrinkStopped`.
    public enum StopReason: String, Codable, Sendable {
        /// `--time-budget` was spent.
        case timeBudget
        /// SIGINT or SIGTERM (Ctrl-C, a cancelled CI job), or `FuzzConfiguration.interrupt`.
        case interrupted
        /// `--stop-on-first`: a run broke its strategy's contract.
        case firstContractViolation

        /// How reports say it.
        public var sentence: String {
            switch self {
            case .timeBudget: return "the time budget ran out"
            case .interrupted: return "interrupted (SIGINT/SIGTERM)"
            case .firstContractViolation: return "stopped at the first contract violation"
            }
        }
    }
    public var seedsRun: Int
    /// The failure database replayed before the seeds, and which of this run's failures are new
    /// (absent when the run had none, so such a report's JSON is unchanged).
    public var failureDatabase: FailureDatabaseReport? = nil
    public var strategies: [StrategyReport]
    public var coverage: Coverage
    public var failures: [Failure]
    /// Every run's record, sorted by (strategy order, seed): the raw data `merge` needs.
    public var runs: [RunRecord]
    public var timing: Timing

    /// Exit status: every strategy met its contract.
    public var allContractsMet: Bool { strategies.allSatisfy(\.metContract) }

    /// The invariants the matrix shows, in order: every cell's invariant, the built-ins in
    /// catalog order, then the others by id (`columnPrecedes`). Sorted rather than taken in
    /// first-appearance order so that the columns do not depend on which strategy came first
    /// or was judged by which user invariants; renderers read this instead of the catalog, so no
    /// judged cell is left out of a view.
    public var invariantColumns: [String] {
        var seen = Set<String>()
        var out: [String] = []
        for s in strategies { for c in s.cells where seen.insert(c.invariant).inserted { out.append(c.invariant) } }
        return out.sorted(by: Self.columnPrecedes)
    }

    /// The user invariants the report's strategies were judged by, with their summaries, in id
    /// order (one entry per id; descriptions of one id agree, which the fuzz driver and `merge`
    /// check). Empty for a report judged by the built-ins only.
    public var userInvariants: [InvariantSummary] {
        var byID: [String: InvariantSummary] = [:]
        for s in strategies { for u in s.userInvariants ?? [] where byID[u.id] == nil { byID[u.id] = u } }
        return byID.keys.sorted(by: Self.columnPrecedes).map { byID[$0]! }
    }

    /// Whether `invariant` (a column) is a user invariant rather than a built-in: renderers mark
    /// those, since a reader cannot look them up in SyncSim's documentation.
    public static func isUserInvariant(_ invariant: String) -> Bool { InvariantID(builtIn: invariant) == nil }

    /// The order of invariant columns and failures: built-ins in catalog order, then any other id
    /// by its bytes (the order of `InvariantID`, also for names this build could not parse).
    public static func columnPrecedes(_ a: String, _ b: String) -> Bool {
        func rank(_ s: String) -> Int { InvariantID(builtIn: s).flatMap { InvariantID.builtIns.firstIndex(of: $0) } ?? Int.max }
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

