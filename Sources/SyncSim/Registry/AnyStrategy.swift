/// A strategy with its type erased, so built-in and user strategies travel together in one list
/// (`[AnyStrategy]`) through the fuzz driver, the CLI and the reports, while every simulation
/// still runs on the concrete type.
///
/// Why closures and not `any SyncStrategy`: the generic initialiser captures the concrete `S`
/// in `@Sendable` closures that call `Simulator.run` and the `Shrinker` on `S` itself. Where the
/// initialiser is called with a concrete type (`AnyStrategy(InstantStrategy())`), the optimiser
/// specialises those closures, so the hot loop runs a fully specialised `Simulator<S>`; nothing
/// opens an existential per run, let alone per event. A user's strategy is wrapped the same way
/// in the user's own `main`, and from then on is a peer of the built-ins: its contract, summary
/// and arbitration travel with the value, never looked up by name.
public struct AnyStrategy: Sendable {
    /// Name, summary, contract, arbitration and known-bad flag, read once from the strategy.
    public let info: StrategyInfo
    public let transport: Transport
    /// The data model the strategy's schedules are generated over (`SyncStrategy.schema`).
    public let schema: Schema
    /// The wrapped strategy, for callers that need to inspect it (`base as? MyStrategy`).
    public let base: any SyncStrategy

    /// User invariants every run of this strategy is also judged by (see `judged(by:)`).
    public private(set) var invariants: [CustomInvariant] = []

    @usableFromInline let runner: @Sendable (Schedule, UInt64, TraceMode, [CustomInvariant]) throws -> RunResult
    @usableFromInline let shrinker: @Sendable (ShrinkRequest) -> Shrinker.Outcome?
    /// A run that also writes itself as a history (`Simulator.exportHistory(to:)`), one line per call of the sink.
    @usableFromInline let exporter: @Sendable (Schedule, UInt64, TraceMode, [CustomInvariant], @escaping (String) -> Void) throws -> RunResult

    /// The shrink closure's arguments (one value, so the stored closure type stays readable).
    @usableFromInline struct ShrinkRequest {
        @usableFromInline var schedule: Schedule
        @usableFromInline var seed: UInt64
        @usableFromInline var invariant: InvariantID
        @usableFromInline var maxRuns: Int
        @usableFromInline var shouldStop: @Sendable () -> Bool
        @usableFromInline var onProgress: ((Shrinker.Progress) -> Void)?
        @usableFromInline var invariants: [CustomInvariant]
        /// Another condition a candidate must meet to count as failing (differential mode: the
        /// baseline still passes it).
        @usableFromInline var alsoRequires: (@Sendable (Schedule) -> Bool)? = nil

        @usableFromInline init(schedule: Schedule, seed: UInt64, invariant: InvariantID, maxRuns: Int,
                               shouldStop: @escaping @Sendable () -> Bool, onProgress: ((Shrinker.Progress) -> Void)?,
                               invariants: [CustomInvariant]) {
            self.schedule = schedule
            self.seed = seed
            self.invariant = invariant
            self.maxRuns = maxRuns
            self.shouldStop = shouldStop
            self.onProgress = onProgress
            self.invariants = invariants
        }
    }

    public var name: String { info.name }

    ///
    /// `@inlinable` (with `shrink(_:_:)`): the closures are compiled where the initialiser is
    /// called with a concrete type, so a user's strategy wrapped in the user's module gets a
    /// simulator and shrinker specialised for it there, as the built-ins do here.
    @inlinable
    public init<S: SyncStrategy>(_ strategy: S) {
        info = strategy.info
        transport = strategy.transport
        schema = strategy.schema
        base = strategy
        runner = { schedule, seed, trace, invariants in
            try Simulator.run(strategy, schedule, seed: seed, trace: trace, invariants: invariants)
        }
        shrinker = { request in
            AnyStrategy.shrink(strategy, request)
        }
        exporter = { schedule, seed, trace, invariants, sink in
            var sim = try Simulator(strategy: strategy, schedule: schedule, seed: seed, trace: trace, invariants: invariants)
            sim.exportHistory(to: sink)
            return sim.run()
        }
    }

    /// Wraps a strategy known only as an existential. The built-ins get a concrete call site
    /// each, so they keep their specialised simulator; any other type opens the existential once,
    /// here, and takes the generic path.
    public init(erasing strategy: any SyncStrategy) {
        switch strategy {
        case let s as InstantStrategy: self.init(s)
        case let s as FullEntityStrategy: self.init(s)
        case let s as SharedDiffStrategy: self.init(s)
        case let s as ConflictPromptStrategy: self.init(s)
        case let s as PushPullStrategy: self.init(s)
        case let s as ReferenceStrategy: self.init(s)
        default: self.init(strategy)
        }
    }

    /// The six built-in strategies, in the order reports and `list strategies` show them.
    public static let builtIns: [AnyStrategy] = [
        AnyStrategy(InstantStrategy()),
        AnyStrategy(FullEntityStrategy()),
        AnyStrategy(SharedDiffStrategy()),
        AnyStrategy(ConflictPromptStrategy()),
        AnyStrategy(PushPullStrategy()),
        AnyStrategy(ReferenceStrategy()),
    ]

    /// The schedule `seed` generates for this strategy: `config` over the strategy's schema.
    /// Strategies sharing a schema get the same schedule for a seed, so they compare like for like.
    public func schedule(seed: UInt64, _ config: WorkloadGenerator.Config = .init()) -> Schedule {
        var c = config
        c.schema = schema
        return WorkloadGenerator(c).generate(seed: seed)
    }

    /// The same strategy, judged also by `invariants` (user oracles over the run's history) in
    /// every run and shrink. The fuzz driver and the CLI judge every strategy by the same ones,
    /// so strategies compare like for like. Two invariants with one id make runs throw
    /// `InvariantError.duplicateID`.
    public func judged(by invariants: [CustomInvariant]) -> AnyStrategy {
        var copy = self
        copy.invariants = invariants
        return copy
    }

    /// Runs one simulation: a pure function of (strategy, schedule, seed).
    public func run(_ schedule: Schedule, seed: UInt64, trace: TraceMode = .hashOnly) throws -> RunResult {
        try runner(schedule, seed, trace, invariants)
    }

    /// Runs one simulation and writes it as a history (the format `syncsim check` reads), one
    /// line per call of `history`, header first. The run is the same as `run(_:seed:trace:)`'s.
    public func run(_ schedule: Schedule, seed: UInt64, trace: TraceMode = .hashOnly, history: @escaping (String) -> Void) throws -> RunResult {
        try exporter(schedule, seed, trace, invariants, history)
    }

    /// Shrinks a schedule that fails `invariant` under this strategy and seed, running the
    /// `Shrinker` on the concrete strategy type.
    ///
    /// `shouldStop` is asked before every candidate run (a deadline): once it says stop, no
    /// further simulation runs and the shortest schedule found so far that still fails is
    /// returned. That schedule is a real, reproducible failure (it was run and violated the
    /// invariant), just possibly not minimal. Nil when the schedule does not fail `invariant`
    /// (or the stop came before the first run).
    public func shrink(_ schedule: Schedule, seed: UInt64, invariant: InvariantID, maxRuns: Int = 5_000,
                       shouldStop: @escaping @Sendable () -> Bool = { false },
                       onProgress: ((Shrinker.Progress) -> Void)? = nil,
                       alsoRequires: (@Sendable (Schedule) -> Bool)? = nil) -> Shrinker.Outcome? {
        var request = ShrinkRequest(schedule: schedule, seed: seed, invariant: invariant, maxRuns: maxRuns,
                                    shouldStop: shouldStop, onProgress: onProgress, invariants: invariants)
        request.alsoRequires = alsoRequires
        return shrinker(request)
    }

    /// The shrink loop for a concrete strategy type.
    @inlinable
    static func shrink<S: SyncStrategy>(_ strategy: S, _ request: ShrinkRequest) -> Shrinker.Outcome? {
        let found = ShortestFailure()
        let invariant = request.invariant, seed = request.seed, shouldStop = request.shouldStop
        var shrinker = Shrinker(invariant: invariant, run: { candidate in
            if found.stopped || shouldStop() {
                found.stopped = true
                return nil
            }
            found.simulated += 1
            guard let result = try? Simulator.run(strategy, candidate, seed: seed, invariants: request.invariants) else { return nil }
            // Stopped mid-run (`RunStop`): unfinished, so neither a failure nor a pass.
            if result.interrupted {
                found.stopped = true
                return nil
            }
            var violations = result.violations
            if let also = request.alsoRequires, violations.contains(where: { $0.invariant == invariant }), !also(candidate) {
                violations.removeAll { $0.invariant == invariant }
            }
            if let hit = violations.first(where: { $0.invariant == invariant }) { found.record(candidate, hit) }
            return violations
        }, onProgress: request.onProgress)
        shrinker.maxRuns = request.maxRuns
        // The run closure asks `shouldStop` (once per candidate, as documented) and records the
        // answer; the shrinker then ends every pass at once.
        shrinker.shouldStop = { found.stopped }
        let outcome = shrinker.shrink(request.schedule)
        if !found.stopped { return outcome }
        // Stopped: the shrinker keeps every candidate that still fails, so the last failing
        // candidate is its best so far. (The shrinker went on counting the candidates it was
        // refused; `runs` counts the simulations that really ran.)
        guard let last = found.last else { return nil }
        return Shrinker.Outcome(schedule: last.schedule, violation: last.violation, runs: found.simulated,
                                originalActions: request.schedule.actions.count)
    }
}

/// The last candidate that still failed, seen from inside the shrinker's run closure (one
/// thread: a shrink never spreads over threads).
@usableFromInline
final class ShortestFailure {
    @usableFromInline var last: (schedule: Schedule, violation: Violation)?
    @usableFromInline var stopped = false
    @usableFromInline var simulated = 0
    @usableFromInline init() {}
    @usableFromInline func record(_ schedule: Schedule, _ violation: Violation) { last = (schedule, violation) }
}
