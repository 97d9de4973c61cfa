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
        var o = FuzzReport.Options(strategies: strategies.map(\.name), seeds: configuration.seeds.description,
                                  shard: configuration.shard?.description, swarm: g.swarm, clients: g.clients,
                                  actions: g.actions, shrink: configuration.shrink)
        o.baseline = configuration.baseline?.name
        o.tenants = g.tenants > 0 ? g.tenants : nil
        let also = WorkloadFeature.allCases.filter { $0.isOn(in: g) }.map(\.rawValue)
        o.also = also.isEmpty ? nil : also
        return o
    }

    /// Runs the plan, shrinks, builds the report and, with a report directory, writes the
    /// scenario files and the four report files (each atomically).
    ///
    /// The report folder is checked first (`ReportWriter.prepareFolder`), before any simulation.
    /// The time budget and `configuration.interrupt` are checked before each run is started, every
    /// `RunStop.checkInterval` events inside a run, and inside shrinking, so a budget ends the
    /// work within milliseconds whatever the length of a run. A run they stop is unfinished: it
    /// is dropped with every later one (the report keeps a prefix of the plan), never reported as
    /// passed or failed, and the report says why it stopped (`FuzzReport.stopReason`).
    ///
    /// Throws `FuzzRunError` when a simulation throws (a schedule the simulator rejects: a bug,
    /// reported rather than skipped, since a skipped run could hide a violation) and
    /// `ReportFileError` when the folder or a file cannot be written.
    public func run(progress: (@Sendable (FuzzProgress) -> Void)? = nil) throws -> FuzzResult {
        if let dir = configuration.reportDirectory { try ReportWriter.prepareFolder(dir) }
        let clock = configuration.clock
        let t0 = clock()
        let startedAt = WallClock.isoNow()
        let deadline = configuration.timeBudgetSeconds.map { t0 + $0 } ?? .infinity
        let tally = ProgressTally(total: totalRuns, clock: clock, start: t0, report: progress)
        let generatorConfig = configuration.generator
        let interrupt = configuration.interrupt
        // Out of budget or interrupted: asked between runs and (through `RunStop`) inside them.
        let halt = RunStop { clock() > deadline || (interrupt?() ?? false) }

        // Known failures first: a CI run on fresh seeds still checks every failure found before.
        var database = configuration.failureDatabase.map {
            KnownFailureReplay.replay($0, strategies: self.strategies, commands: ReplayCommands(prefix: configuration.commandPrefix), halt: halt)
        }

        // Runs, in plan order: index i is seed position i / n, strategy i % n.
        let strategies = self.strategies, plan = self.plan, n = strategies.count
        let stopOnFirst = configuration.stopOnFirstContractViolation
        let baseline = configuration.baseline
        let stop = StopFlag()
        var outcomes = ParallelRunner.prefix(totalRuns, jobs: configuration.jobs, shouldStop: { stop.isSet || halt.shouldStop() }) { i in
            let seed = plan.seed(at: UInt64(i / n))
            let strategy = strategies[i % n]
            // Generated inside the job (cheap next to a run), so nothing is planned up front.
            let schedule = strategy.schedule(seed: seed, generatorConfig)
            do {
                var r = try RunStop.$current.withValue(halt) { try strategy.run(schedule, seed: seed) }
                if r.interrupted { return RunOutcome.unfinished }
                var shared: [String]? = nil
                if let b = baseline, b.name != strategy.name, !r.violations.isEmpty {
                    // Differential: only what the baseline does not also violate on this schedule.
                    let base = try RunStop.$current.withValue(halt) { try b.run(schedule, seed: seed) }
                    if base.interrupted { return RunOutcome.unfinished }
                    let both = r.violatedInvariants.filter { i in base.violations.contains { $0.invariant == i } }
                    if !both.isEmpty { shared = both.map(\.rawValue) }
                    r.violations.removeAll { v in base.violations.contains { $0.invariant == v.invariant } }
                }
                let broken = r.violations.contains { strategy.info.claims($0.invariant, under: schedule.options) }
                if broken && stopOnFirst { stop.set() }
                var record = RunRecord(r, schedule: schedule)
                record.baselineShared = shared
                tally.runDone(violated: !record.violated.isEmpty, contractBroken: broken)
                return RunOutcome.ran(record, contractBroken: broken)
            } catch {
                stop.set()
                return RunOutcome.failed(FuzzRunError(strategy: strategy.name, seed: seed, message: "\(error)"))
            }
        }
        if let error = outcomes.lazy.compactMap(\.error).first { throw error }
        // A run stopped half-way is unfinished: keep the prefix of the plan before it.
        if let cut = outcomes.firstIndex(where: \.isUnfinished) { outcomes.removeSubrange(cut...) }
        var stopReason: FuzzReport.StopReason?
        if stopOnFirst, let first = outcomes.firstIndex(where: \.contractBroken) {
            // Later runs may have finished on other threads; dropping them keeps the report
            // independent of `jobs`.
            outcomes.removeSubrange((first + 1)...)
            if outcomes.count < totalRuns { stopReason = .firstContractViolation }
        }
        let records = outcomes.compactMap(\.record)
        let complete = records.count == totalRuns
        if !complete && stopReason == nil { stopReason = interrupt?() == true ? .interrupted : .timeBudget }
        let tRuns = clock()

        // Shrink the first failing seed of each (strategy, invariant).
        let cells = Self.firstFailures(records, strategies: strategies)
        tally.startShrinking(total: cells.count)
        let shrinking = FailureShrinker(generator: generatorConfig, configuration: configuration, halt: halt)
        let shrunk: [(FuzzReport.Failure, FuzzResult.ShrunkScenario?)] = ParallelRunner.map(cells.count, jobs: configuration.jobs) { i in
            let (si, invariant, seed, explanation) = cells[i]
            let out = shrinking.failure(strategies[si], invariant, seed: seed, explanation: explanation)
            tally.shrinkDone()
            return out
        }
        // Stopped during shrinking: every run finished (complete), but shrinking was cut short.
        if stopReason == nil && shrunk.contains(where: { $0.0.shrinkStopped == true }) {
            stopReason = interrupt?() == true ? .interrupted : .timeBudget
        }
        let tEnd = clock()

        let wall = tEnd - t0, shrinkSeconds = tEnd - tRuns
        let timing = FuzzReport.Timing(startedAt: startedAt, wallSeconds: (wall * 100).rounded() / 100,
                                       runsPerSecond: (Double(records.count) / max(tRuns - t0, 1e-9) * 10).rounded() / 10,
                                       shrinkSeconds: (shrinkSeconds * 100).rounded() / 100)
        var report = FuzzReport.build(strategies: strategies.map(FuzzReport.StrategyDescription.init), options: options,
                                      complete: complete, records: records, failures: shrunk.map(\.0), timing: timing)
        report.stopReason = stopReason
        let scenarios = shrunk.compactMap(\.1)
        // An empty database that nothing is saved into leaves the report as it was without one
        // (so, e.g., shards still merge into exactly the unsharded report).
        if var db = database, !(configuration.failureDatabase?.entries.isEmpty ?? true) || configuration.saveNewFailures {
            try KnownFailureReplay.newFailures(&db, failures: report.failures, scenarios: scenarios, save: configuration.saveNewFailures)
            database = db
            report.failureDatabase = db
        }
        if let dir = configuration.reportDirectory {
            for s in scenarios { try AtomicFile.write(try s.scenario.encoded(), to: "\(dir)/\(s.file)") }
            try ReportWriter.write(report, to: dir)
        }
        return FuzzResult(report: report, scenarios: scenarios, reportDirectory: configuration.reportDirectory)
    }

    /// (strategy index, invariant, smallest failing seed, its explanation) per violated pair, in strategy order,
    /// then each strategy's invariants in order: the built-ins in catalog order, then the user
    /// invariants it is judged by, by id. The list of invariants comes from the strategy (never
    /// from iterating the dictionary of first seeds), so the order is deterministic.
    static func firstFailures(_ records: [RunRecord], strategies: [AnyStrategy]) -> [(Int, InvariantID, UInt64, String)] {
        // A run where the (possibly conditional) claim held comes before any run where it did
        // not, so a conditional contract failure is the one shrunk and reported as claimed.
        var first: [String: [String: (broken: Bool, seed: UInt64, explanation: String)]] = [:]
        var conditional: [String: [ConditionalClaim]] = [:]
        for s in strategies where conditional[s.name] == nil { conditional[s.name] = s.info.conditionalContract }
        for r in records {
            for (k, inv) in r.violated.enumerated() {
                let broken = (conditional[r.strategy] ?? []).contains { $0.invariant.rawValue == inv && (r.conditions ?? []).contains($0.condition.rawValue) }
                if let f = first[r.strategy]?[inv], (f.broken ? 0 : 1, f.seed) <= (broken ? 0 : 1, r.seed) { continue }
                first[r.strategy, default: [:]][inv] = (broken, r.seed, k < r.explanations.count ? r.explanations[k] : "")
            }
        }
        var cells: [(Int, InvariantID, UInt64, String)] = []
        for (si, s) in strategies.enumerated() {
            for inv in InvariantID.builtIns + s.invariants.map(\.id).sorted() {
                if let f = first[s.name]?[inv.rawValue] { cells.append((si, inv, f.seed, f.explanation)) }
            }
        }
        return cells
    }
}

/// One planned run's outcome.
private enum RunOutcome: Sendable {
    case ran(RunRecord, contractBroken: Bool)
    case failed(FuzzRunError)
    /// Stopped half-way by the budget or an interrupt: neither passed nor failed.
    case unfinished

    var isUnfinished: Bool { if case .unfinished = self { return true } else { return false } }
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
