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

    EXAMPLE:
      syncsim shrink --strategy sharedDiff --seed 0 --invariant noGhostDeletion
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let strategy = try args.strategy()
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
            guard let i = InvariantID(rawValue: invName) else {
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
            if interactive { fputs("\r\u{1B}[K" + line, stderr) } else { printError(line) }
        }) else {
            printError("the failure did not reproduce while shrinking")
            return ExitCode.violation
        }
        if interactive { fputs("\r\u{1B}[K", stderr) }
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
