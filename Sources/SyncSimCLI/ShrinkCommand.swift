import Foundation
import SyncSim

struct ShrinkCommand: Command {
    static let name = "shrink"
    static let summary = "Minimise a failing seed to the shortest schedule that still fails"
    static let help = """
    USAGE: syncsim shrink --strategy NAME --seed N [--invariant ID] [--out FILE] [generator options]

    Generates the schedule for the seed, runs it, and shrinks it while the same invariant still
    fails: removes actions (delta debugging) and initial data, shortens typing bursts, drops
    clients, turns faults off, pulls times earlier and simplifies values. Deterministic: the same
    input always gives the same minimal scenario. Writes a scenario file and prints the command
    that replays it.

    OPTIONS:
      --strategy NAME    the strategy (required); see 'syncsim list strategies'
      --seed N           the failing seed (required)
      --invariant ID     the invariant to keep failing (default: the first one violated)
      --out FILE         where to write the scenario (default Scenarios/found/<strategy>-<invariant>-seed<N>.json)
      --clients N, --actions N, --no-swarm   as for 'syncsim run' (must match the failing run)

    EXIT CODES: 0 shrunk and written, 1 the seed does not fail (nothing to shrink), 2 bad usage.

    SWEEP MODE: --seeds A..B instead of --seed shrinks every failure found in that range (each
    violated invariant of each failing seed), writes nothing, and prints the distribution of
    actions before and after and of shrink time, per invariant, with --jobs N in parallel.

    EXAMPLES:
      syncsim shrink --strategy sharedDiff --seed 0 --invariant noGhostDeletion
      syncsim shrink --strategy fullEntity --seeds 0..200
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let strategy = try args.strategy()
        if let range = try args.value("--seeds") {
            let jobs = try args.int("--jobs", in: 1...256) ?? defaultJobs
            let clients = try args.int("--clients", in: 1...26)
            let actions = try args.int("--actions", in: 1...100_000)
            let noSwarm = args.flag("--no-swarm")
            try args.finish()
            guard let strategy else { throw UsageError("--strategy is required; valid values: \(StrategyRegistry.names.joined(separator: ", "))") }
            return try sweep(strategy, FuzzCommand.parseRange(range), jobs: jobs,
                             config: .init(clients: clients, actions: actions ?? 60, swarm: !noSwarm))
        }
        let seed = try args.seed("--seed")
        let invName = try args.value("--invariant")
        let out = try args.value("--out")
        let clients = try args.int("--clients", in: 1...26)
        let actions = try args.int("--actions", in: 1...100_000)
        let noSwarm = args.flag("--no-swarm")
        try args.finish()
        guard let strategy else { throw UsageError("--strategy is required; valid values: \(StrategyRegistry.names.joined(separator: ", "))") }
        guard let seed else { throw UsageError("--seed is required") }
        var invariant: InvariantID?
        if let invName {
            guard let i = InvariantID(builtIn: invName) else {
                throw UsageError("unknown invariant '\(invName)' for --invariant; valid values: \(InvariantID.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            invariant = i
        }
        let config = WorkloadGenerator.Config(clients: clients, actions: actions ?? 60, swarm: !noSwarm)
        let schedule = WorkloadGenerator(config).generate(seed: seed)
        let first = try simulate(strategy, schedule, seed: seed)
        guard let target = invariant ?? first.violations.first?.invariant else {
            printError("seed \(seed) does not fail under \(strategy.info.name): nothing to shrink")
            return ExitCode.violation
        }
        guard first.violations.contains(where: { $0.invariant == target }) else {
            printError("seed \(seed) does not violate \(target) under \(strategy.info.name) (it violates: \(first.violatedInvariants.map(\.rawValue).joined(separator: ", ").ifEmpty("nothing")))")
            return ExitCode.violation
        }
        let t0 = wallSeconds()
        let interactive = stderrIsTerminal
        guard let outcome = shrinkFailure(strategy, schedule, seed: seed, invariant: target, progress: { p in
            let line = "shrinking: \(p.actions) actions after \(p.runs) runs (\(p.pass))"
            if interactive { writeStandardError("\r\u{1B}[K" + line) } else { printError(line) }
        }) else {
            printError("the failure did not reproduce while shrinking")
            return ExitCode.violation
        }
        if interactive { writeStandardError("\r\u{1B}[K") }
        let scenario = Scenario(
            title: "\(strategy.info.name) violates \(target) (shrunk from seed \(seed))",
            description: outcome.violation.explanation,
            strategy: strategy.info.name,
            expect: [strategy.info.name: .fails(target)],
            origin: .init(seed: seed, shrunkFrom: seed, originalActions: schedule.actions.count),
            schedule: outcome.schedule)
        let path = out ?? "Scenarios/found/\(strategy.info.name)-\(target.rawValue)-seed\(seed).json"
        try writeAtomically(try scenario.encoded(), to: path)
        print(String(format: "shrunk %d → %d actions in %d runs, %.2f s", schedule.actions.count, outcome.schedule.actions.count, outcome.runs, wallSeconds() - t0))
        print("violation: \(outcome.violation)")
        print("wrote \(path)")
        print("replay:  swift run syncsim replay \(path)")
        return ExitCode.ok
    }
}

extension ShrinkCommand {
    static func sweep(_ strategy: any SyncStrategy, _ range: Range<UInt64>, jobs: Int, config: WorkloadGenerator.Config) throws -> Int32 {
        let gen = WorkloadGenerator(config)
        let seeds = Array(range)
        let firsts: [[InvariantID]] = parallelMap(seeds.count, jobs: jobs) { i in
            (try? simulate(strategy, gen.generate(seed: seeds[i]), seed: seeds[i]))?.violatedInvariants ?? []
        }
        var work: [(UInt64, InvariantID)] = []
        for (i, invs) in firsts.enumerated() { for inv in invs { work.append((seeds[i], inv)) } }
        let work0 = work
        struct Row: Sendable { var inv: InvariantID; var seed: UInt64; var before: Int; var after: Int; var seconds: Double; var kept: Bool }
        let rows: [Row] = parallelMap(work.count, jobs: jobs) { i in
            let (seed, inv) = work0[i]
            let s = gen.generate(seed: seed)
            let t0 = wallSeconds()
            let out = shrinkFailure(strategy, s, seed: seed, invariant: inv)
            let dt = wallSeconds() - t0
            // The shrunk schedule must replay to the same invariant.
            let kept = out.map { o in (try? simulate(strategy, o.schedule, seed: seed))?.violations.contains { $0.invariant == inv } ?? false } ?? false
            return Row(inv: inv, seed: seed, before: s.actions.count, after: out?.schedule.actions.count ?? -1, seconds: dt, kept: kept)
        }
        func med<T: Comparable>(_ x: [T]) -> T { x.sorted()[x.count / 2] }
        print("\(strategy.info.name): \(rows.count) failures in seeds \(range.lowerBound)..<\(range.upperBound) (\(Set(rows.map(\.seed)).count) failing seeds)")
        print("invariant                         n   actions before med/max   after med/max   seconds med/max")
        for inv in InvariantID.allCases {
            let r = rows.filter { $0.inv == inv }
            guard !r.isEmpty else { continue }
            let worst = r.max { ($0.after, $1.seed) < ($1.after, $0.seed) }!
            print(inv.rawValue.padding(toLength: 30, withPad: " ", startingAt: 0) + String(format: " %4d   %6d / %-6d          %3d / %-3d       %.3f / %.3f   (longest: seed %d)", r.count,
                         med(r.map(\.before)), r.map(\.before).max()!, med(r.map(\.after)), r.map(\.after).max()!,
                         med(r.map(\.seconds)), r.map(\.seconds).max()!, worst.seed))
        }
        let all = rows
        if !all.isEmpty {
            print(String(format: "all                            %4d   %6d / %-6d          %3d / %-3d       %.3f / %.3f", all.count,
                         med(all.map(\.before)), all.map(\.before).max()!, med(all.map(\.after)), all.map(\.after).max()!,
                         med(all.map(\.seconds)), all.map(\.seconds).max()!))
        }
        let big = rows.filter { $0.after > 10 }, slow = rows.filter { $0.seconds > 2 }, lost = rows.filter { !$0.kept }
        print("over 10 actions: \(big.count)\(big.prefix(5).map { " [seed \($0.seed) \($0.inv) → \($0.after)]" }.joined())")
        print("over 2 s: \(slow.count)\(slow.prefix(5).map { " [seed \($0.seed) \($0.inv) \(String(format: "%.2f", $0.seconds)) s]" }.joined())")
        print("shrunk schedule no longer violating the same invariant: \(lost.count)")
        return big.isEmpty && slow.isEmpty && lost.isEmpty ? ExitCode.ok : ExitCode.violation
    }
}

/// Shrinks a failure (opening the strategy existential once).
func shrinkFailure(_ strategy: any SyncStrategy, _ schedule: Schedule, seed: UInt64, invariant: InvariantID,
                   progress: ((Shrinker.Progress) -> Void)? = nil) -> Shrinker.Outcome? {
    func open<S: SyncStrategy>(_ s: S) -> Shrinker.Outcome? {
        var sh = Shrinker(strategy: s, seed: seed, invariant: invariant, onProgress: progress)
        return sh.shrink(schedule)
    }
    return open(strategy)
}

extension String {
    func ifEmpty(_ s: String) -> String { isEmpty ? s : self }
}
