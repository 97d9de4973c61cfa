import Foundation

/// What a fuzz run does: which seeds, how many threads, for how long, whether to shrink, where
/// to write. `FuzzDriver.init` checks it; every field has the CLI's default.
public struct FuzzConfiguration: Sendable {
    /// The planned seeds (the same schedule for every strategy at each seed).
    public var seeds: SeedRange
    /// Only this shard of `seeds` (nil: all of them).
    public var shard: Shard?
    /// Simulations in parallel (1…1024). The report does not depend on it.
    public var jobs: Int
    /// Stop cleanly once this many seconds have passed (nil: no budget). Checked before each
    /// run is started, every `RunStop.checkInterval` events inside a run, and before each
    /// shrink run: the work ends within milliseconds of the budget, whatever the run length
    /// (writing the report follows). A run it stops is unfinished and left out of the report.
    public var timeBudgetSeconds: Double?
    /// Asked with the budget, everywhere the budget is: true stops the run as the budget does,
    /// and the report says it was interrupted (the CLI sets it on SIGINT/SIGTERM). Must be
    /// cheap, thread-safe and stay true once true. Nil: never interrupted.
    public var interrupt: (@Sendable () -> Bool)?
    /// Stop at the first run that breaks its strategy's contract. The report keeps exactly the
    /// runs up to that one in plan order, so it does not depend on `jobs` either.
    public var stopOnFirstContractViolation: Bool
    /// Shrink the first failing seed of each (strategy, invariant).
    public var shrink: Bool
    /// Simulations one shrink may spend.
    public var shrinkMaxRuns: Int
    /// Counterfactual replays (`Explainer`) each shrunk failure may spend on its explanation
    /// (`FuzzReport.Failure.explain`); 0 explains nothing. Obeys the time budget and interrupts.
    public var explainMaxRuns: Int = 600
    /// Known failures replayed before the seeds (`FailureDatabase`); the report says which are
    /// still failing, fixed or new (`FuzzReport.failureDatabase`). Nil: none.
    public var failureDatabase: FailureDatabase? = nil
    /// Write each new shrunk failure into the failure database's folder
    /// (`<strategy>-<invariant>-seed<N>.json`, never over an existing file).
    public var saveNewFailures = false
    /// The workload generator's options (clients, actions, swarm, tenants, `--also` features).
    public var generator: WorkloadGenerator.Config
    /// Where to write the report files and shrunk scenarios (`scenarios/…`); nil keeps
    /// everything in memory (`FuzzResult`).
    public var reportDirectory: String?
    /// How reports spell the command that reproduces a failure: `swift run syncsim`, or a
    /// user tool's own (`swift run notes-sim`, `.build/release/notes-sim`).
    public var commandPrefix: String
    /// Monotonic seconds for the time budget and timing. Tests may substitute a fake clock;
    /// simulations never see it.
    public var clock: @Sendable () -> Double
    /// Differential mode: every run of a strategy is compared with this strategy's run of the
    /// same schedule and seed, and keeps only the violations of invariants the baseline did not
    /// violate there (what a change to an engine broke); failures are shrunk while the baseline
    /// still passes the invariant. Nil: each strategy is judged alone.
    public var baseline: AnyStrategy?

    public init(seeds: SeedRange = SeedRange(0..<200), shard: Shard? = nil, jobs: Int = FuzzConfiguration.defaultJobs,
                timeBudgetSeconds: Double? = nil, stopOnFirstContractViolation: Bool = false, shrink: Bool = true,
                shrinkMaxRuns: Int = 3_000, generator: WorkloadGenerator.Config = .init(), reportDirectory: String? = nil,
                commandPrefix: String = "swift run syncsim", clock: @escaping @Sendable () -> Double = WallClock.seconds) {
        self.seeds = seeds
        self.shard = shard
        self.jobs = jobs
        self.timeBudgetSeconds = timeBudgetSeconds
        self.stopOnFirstContractViolation = stopOnFirstContractViolation
        self.shrink = shrink
        self.shrinkMaxRuns = shrinkMaxRuns
        self.generator = generator
        self.reportDirectory = reportDirectory
        self.commandPrefix = commandPrefix
        self.clock = clock
        self.interrupt = nil
    }

    /// All cores.
    public static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    public static let jobsRange = 1...1024
    public static let clientsRange = 1...26
    public static let actionsRange = 1...100_000

    /// The problems with this configuration, if any (`FuzzDriver.init` throws the first).
    func validate() throws {
        guard Self.jobsRange.contains(jobs) else { throw FuzzConfigurationError.jobs(jobs) }
        if let b = timeBudgetSeconds, b.isNaN || b < 0 { throw FuzzConfigurationError.timeBudget(b) }
        guard shrinkMaxRuns >= 1 else { throw FuzzConfigurationError.shrinkMaxRuns(shrinkMaxRuns) }
        guard explainMaxRuns >= 0 && explainMaxRuns <= ExplainBudget.maxRunsRange.upperBound else { throw FuzzConfigurationError.explainMaxRuns(explainMaxRuns) }
        if let c = generator.clients, !Self.clientsRange.contains(c) { throw FuzzConfigurationError.clients(c) }
        guard Self.actionsRange.contains(generator.actions) else { throw FuzzConfigurationError.actions(generator.actions) }
    }
}

/// A configuration the driver refuses, with what would be accepted.
public enum FuzzConfigurationError: Error, Equatable, CustomStringConvertible {
    case noStrategies
    case jobs(Int)
    case timeBudget(Double)
    case shrinkMaxRuns(Int)
    case explainMaxRuns(Int)
    case clients(Int)
    case actions(Int)
    /// Seeds × strategies does not fit in a run counter.
    case tooManyRuns(seeds: UInt64, strategies: Int)
    /// A strategy's user invariants cannot judge a run (two share an id, or one has a
    /// built-in's); see `FuzzDriver.checkInvariants(of:)` for this and the cases below.
    case invalidInvariants(strategy: String, InvariantError)
    /// Two strategies are judged by different user invariants under one id.
    case invariantsDiffer(InvariantID, firstStrategy: String, secondStrategy: String)
    /// Two invariant ids (the first may be a built-in) differ only in case.
    case invariantIDsEqualIgnoringCase(String, String)
    /// A strategy claims a user invariant it is not judged by.
    case unjudgedClaim(strategy: String, invariant: InvariantID, suggestion: String?)
    /// Two `strategy/invariant` pairs would write the same scenario file.
    case scenarioFilesCollide(String, String)

    public var description: String {
        switch self {
        case .noStrategies: return "no strategy to fuzz"
        case .jobs(let j): return "jobs must be in \(FuzzConfiguration.jobsRange.lowerBound)…\(FuzzConfiguration.jobsRange.upperBound), got \(j)"
        case .timeBudget(let b): return "the time budget must be a number of seconds ≥ 0, got \(b)"
        case .shrinkMaxRuns(let n): return "shrinkMaxRuns must be at least 1, got \(n)"
        case .explainMaxRuns(let n): return "explainMaxRuns must be in 0…\(ExplainBudget.maxRunsRange.upperBound), got \(n)"
        case .clients(let c): return "clients must be in 1…26, got \(c)"
        case .actions(let a): return "actions must be in 1…100000, got \(a)"
        case .tooManyRuns(let s, let n): return "\(s) seeds × \(n) strategies is more runs than can be counted; use a smaller seed range"
        case .invalidInvariants(let s, let e):
            return "strategy '\(s)' is judged by invalid user invariants: \(e)"
        case .invariantsDiffer(let id, let a, let b):
            return "strategies '\(a)' and '\(b)' are judged by two different user invariants named '\(id)' (summary, documentation or needsObservations differ); one id must mean one invariant: rename one, or judge both by the same CustomInvariant"
        case .invariantIDsEqualIgnoringCase(let a, let b):
            let kind = InvariantID(builtIn: a) != nil ? "the built-in invariant" : "user invariant"
            return "user invariant '\(b)' differs from \(kind) '\(a)' only in case (readers would confuse them, and their scenario files would be one file on macOS); rename '\(b)'"
        case .unjudgedClaim(let s, let inv, let suggestion):
            return "strategy '\(s)' claims invariant '\(inv)'\(suggestion.map { " (did you mean '\($0)'?)" } ?? ""), which is neither a built-in nor a user invariant it is judged by: a claim nobody checks would always look met; pass the CustomInvariant named '\(inv)' to AnyStrategy.judged(by:) or SyncSimCLI's invariants:, or drop the claim"
        case .scenarioFilesCollide(let a, let b):
            return "'\(a)' and '\(b)' (strategy/invariant) would write the same scenario file ('<strategy>-<invariant>-seed<N>.json', ignoring case); rename a strategy or an invariant"
        }
    }
}
