import Foundation

/// Fuzzes any list of strategies, built-in or a user's own, exactly as `syncsim fuzz` does: the
/// same generated schedule for every strategy at each seed, runs spread over `jobs` threads,
/// the first failing seed of each (strategy, invariant) shrunk to a scenario, and a report in
/// four formats.
///
/// Each strategy is judged by the contract its own `AnyStrategy` value carries. Nothing here
/// looks a strategy up by name, so a user strategy breaking an invariant it claims is a
/// contract violation in the report and a `<failure>` in `junit.xml`, never a false green.
///
/// Determinism: everything in the report outside `timing` is a pure function of the strategies
/// and the configuration, whatever `jobs`: runs are claimed in plan order (seed-major, then
/// strategy order) and results kept in that order; a stop (time budget, first contract
/// violation) keeps a prefix of the plan. Only the driver reads the clock and touches files,
/// between and after simulations.
public struct FuzzDriver: Sendable {
    public let strategies: [AnyStrategy]
    public let configuration: FuzzConfiguration
    public let plan: SeedPlan
    /// Seeds × strategies.
    public let totalRuns: Int

    /// Checks the strategies (names valid and distinct, at least one), the user invariants they
    /// are judged by (`checkInvariants(of:)`) and the configuration.
    public init(strategies: [AnyStrategy], configuration: FuzzConfiguration = FuzzConfiguration()) throws {
        guard !strategies.isEmpty else { throw FuzzConfigurationError.noStrategies }
        _ = try StrategySet(strategies)
        try Self.checkInvariants(of: strategies)
        try configuration.validate()
        let plan = SeedPlan(configuration.seeds, shard: configuration.shard)
        let (total, overflow) = plan.count.multipliedReportingOverflow(by: UInt64(strategies.count))
        guard !overflow, total <= UInt64(Int.max) else {
            throw FuzzConfigurationError.tooManyRuns(seeds: plan.count, strategies: strategies.count)
        }
        self.strategies = strategies
        self.configuration = configuration
        self.plan = plan
        self.totalRuns = Int(total)
    }

    /// The report's options: what identifies this run.
    public var options: FuzzReport.Options {
        let g = configuration.generator
        return FuzzReport.Options(strategies: strategies.map(\.name), seeds: configuration.seeds.description,
                                  shard: configuration.shard?.description, swarm: g.swarm, clients: g.clients,
                                  actions: g.actions, shrink: configuration.shrink)
    }

    /// Runs the plan, shrinks, builds the report and, with a report directory, writes the
    /// scenario files and the four report files (each atomically).
    ///
    /// Throws `FuzzRunError` when a simulation throws (a schedule the simulator rejects: a bug,
    /// reported rather than skipped, since a skipped run could hide a violation) and
    /// `ReportFileError` when a file cannot be written.
    public func run(progress: (@Sendable (FuzzProgress) -> Void)? = nil) throws -> FuzzResult {
        let clock = configuration.clock
        let t0 = clock()
        let startedAt = WallClock.isoNow()
        let deadline = configuration.timeBudgetSeconds.map { t0 + $0 } ?? .infinity
        let tally = ProgressTally(total: totalRuns, clock: clock, start: t0, report: progress)
        let generatorConfig = configuration.generator

        // Runs, in plan order: index i is seed position i / n, strategy i % n.
        let strategies = self.strategies, plan = self.plan, n = strategies.count
        let stopOnFirst = configuration.stopOnFirstContractViolation
        let stop = StopFlag()
        var outcomes = ParallelRunner.prefix(totalRuns, jobs: configuration.jobs, shouldStop: { stop.isSet || clock() > deadline }) { i in
            let seed = plan.seed(at: UInt64(i / n))
            let strategy = strategies[i % n]
            // Generated inside the job (cheap next to a run), so nothing is planned up front.
            let schedule = strategy.schedule(seed: seed, generatorConfig)
            do {
                let r = try strategy.run(schedule, seed: seed)
                let broken = r.violations.contains { strategy.info.claims($0.invariant, under: schedule.options) }
                if broken && stopOnFirst { stop.set() }
                let record = RunRecord(r, schedule: schedule)
                tally.runDone(violated: !record.violated.isEmpty, contractBroken: broken)
                return RunOutcome.ran(record, contractBroken: broken)
            } catch {
                stop.set()
                return RunOutcome.failed(FuzzRunError(strategy: strategy.name, seed: seed, message: "\(error)"))
            }
        }
        if let error = outcomes.lazy.compactMap(\.error).first { throw error }
        if stopOnFirst, let first = outcomes.firstIndex(where: \.contractBroken) {
            // Later runs may have finished on other threads; dropping them keeps the report
            // independent of `jobs`.
            outcomes.removeSubrange((first + 1)...)
        }
        let records = outcomes.compactMap(\.record)
        let complete = records.count == totalRuns
        let tRuns = clock()

        // Shrink the first failing seed of each (strategy, invariant).
        let cells = Self.firstFailures(records, strategies: strategies)
        tally.startShrinking(total: cells.count)
        let shrinking = FailureShrinker(generator: generatorConfig, configuration: configuration, deadline: deadline)
        let shrunk: [(FuzzReport.Failure, FuzzResult.ShrunkScenario?)] = ParallelRunner.map(cells.count, jobs: configuration.jobs) { i in
            let (si, invariant, seed) = cells[i]
            let out = shrinking.failure(strategies[si], invariant, seed: seed)
            tally.shrinkDone()
            return out
        }
        let tEnd = clock()

        let wall = tEnd - t0, shrinkSeconds = tEnd - tRuns
        let timing = FuzzReport.Timing(startedAt: startedAt, wallSeconds: (wall * 100).rounded() / 100,
                                       runsPerSecond: (Double(records.count) / max(tRuns - t0, 1e-9) * 10).rounded() / 10,
                                       shrinkSeconds: (shrinkSeconds * 100).rounded() / 100)
        let report = FuzzReport.build(strategies: strategies.map(FuzzReport.StrategyDescription.init), options: options,
                                      complete: complete, records: records, failures: shrunk.map(\.0), timing: timing)
        let scenarios = shrunk.compactMap(\.1)
        if let dir = configuration.reportDirectory {
            for s in scenarios { try AtomicFile.write(try s.scenario.encoded(), to: "\(dir)/\(s.file)") }
            try ReportWriter.write(report, to: dir)
        }
        return FuzzResult(report: report, scenarios: scenarios, reportDirectory: configuration.reportDirectory)
    }

    /// (strategy index, invariant, smallest failing seed) per violated pair, in strategy order,
    /// then each strategy's invariants in order: the built-ins in catalog order, then the user
    /// invariants it is judged by, by id. The list of invariants comes from the strategy (never
    /// from iterating the dictionary of first seeds), so the order is deterministic.
    static func firstFailures(_ records: [RunRecord], strategies: [AnyStrategy]) -> [(Int, InvariantID, UInt64)] {
        // A run where the (possibly conditional) claim held comes before any run where it did
        // not, so a conditional contract failure is the one shrunk and reported as claimed.
        var first: [String: [String: (broken: Bool, seed: UInt64)]] = [:]
        var conditional: [String: [ConditionalClaim]] = [:]
        for s in strategies where conditional[s.name] == nil { conditional[s.name] = s.info.conditionalContract }
        for r in records {
            for inv in r.violated {
                let broken = (conditional[r.strategy] ?? []).contains { $0.invariant.rawValue == inv && (r.conditions ?? []).contains($0.condition.rawValue) }
                if let f = first[r.strategy]?[inv], (f.broken ? 0 : 1, f.seed) <= (broken ? 0 : 1, r.seed) { continue }
                first[r.strategy, default: [:]][inv] = (broken, r.seed)
            }
        }
        var cells: [(Int, InvariantID, UInt64)] = []
        for (si, s) in strategies.enumerated() {
            for inv in InvariantID.builtIns + s.invariants.map(\.id).sorted() {
                if let f = first[s.name]?[inv.rawValue] { cells.append((si, inv, f.seed)) }
            }
        }
        return cells
    }
}

/// One planned run's outcome.
private enum RunOutcome: Sendable {
    case ran(RunRecord, contractBroken: Bool)
    case failed(FuzzRunError)

    var record: RunRecord? { if case .ran(let r, _) = self { return r } else { return nil } }
    var contractBroken: Bool { if case .ran(_, let b) = self { return b } else { return false } }
    var error: FuzzRunError? { if case .failed(let e) = self { return e } else { return nil } }
}

/// A simulation that threw during a fuzz run.
public struct FuzzRunError: Error, Equatable, CustomStringConvertible {
    public var strategy: String
    public var seed: UInt64
    public var message: String
    public var description: String { "the run of \(strategy) at seed \(seed) failed: \(message)" }
}

/// A flag any worker may raise.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}
