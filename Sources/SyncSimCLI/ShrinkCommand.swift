import Foundation

struct ShrinkCommand: Command {
    static let name = "shrink"
    static let summary = "Minimise a failing seed to the shortest schedule that still fails"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) shrink --strategy NAME --seed N [--invariant ID] [--out FILE] [generator options]

        Generates the schedule for the seed, runs it, and shrinks it while the same invariant still
        fails: removes actions (delta debugging) and initial data, shortens typing bursts, drops
        clients, turns faults off, pulls times earlier and simplifies values. Deterministic: the same
        input always gives the same minimal scenario. Writes a scenario file and prints the command
        that replays it.

        OPTIONS:
          --strategy NAME    the strategy (required); see '\(tool) list strategies'
          --seed N           the failing seed (required)
          --invariant ID     the invariant to keep failing: a built-in or one of this tool's user
                             invariants (default: the first one violated); see '\(tool) list invariants'
          --out FILE         where to write the scenario (default Scenarios/found/<strategy>-<invariant>-seed<N>.json)
          --clients N, --actions N, --no-swarm, --tenants N, --also F   as for '\(tool) run' (must match the failing run)
          --time-budget 60s  stop cleanly when spent (also inside runs): one seed's shrink writes the
                             shortest failing schedule found so far (said to be possibly not
                             minimal); a sweep leaves what it stopped out of the figures

        EXIT CODES: 0 shrunk and written, 1 nothing written (the seed does not fail, or the budget ran
        out before its run finished), 2 bad usage, 130/143 stopped by SIGINT/SIGTERM.

        SWEEP MODE: --seeds A..<B (or A...B) instead of --seed shrinks every failure found in that range (each
        violated invariant of each failing seed), writes nothing, and prints the distribution of
        actions before and after and of shrink time, per invariant, with --jobs N in parallel.

        EXAMPLES:
          \(tool) shrink --strategy sharedDiff --seed 0 --invariant noGhostDeletion
          \(tool) shrink --strategy fullEntity --seeds 0..200
        """
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let strategy = try args.strategy(in: ctx)
        if let range = try args.value("--seeds") {
            let jobs = try args.int("--jobs", in: FuzzConfiguration.jobsRange) ?? FuzzConfiguration.defaultJobs
            let clients = try args.int("--clients", in: FuzzConfiguration.clientsRange)
            let actions = try args.int("--actions", in: FuzzConfiguration.actionsRange)
            let noSwarm = args.flag("--no-swarm")
            let tenants = try args.int("--tenants", in: 2...(ScheduleLimits.maxTenant + 1)) ?? 0
            var features = WorkloadGenerator.Config()
            try args.also(into: &features)
            let budget = try args.value("--time-budget").map { try OptionValues.budget($0) } ?? nil
            try args.finish()
            guard let strategy else { throw ctx.missingStrategy() }
            let seeds = try OptionValues.seedRange(range)
            guard seeds.count <= ShrinkSweep.maxSeeds else {
                throw UsageError("--seeds: a sweep covers at most \(ShrinkSweep.maxSeeds) seeds, got \(seeds.count) in '\(OptionValues.shown(range))'")
            }
            ctx.noteIfDebugBuild()
            var config = WorkloadGenerator.Config(clients: clients, actions: actions ?? 60, swarm: !noSwarm)
            config.tenants = tenants
            for f in WorkloadFeature.allCases where f.isOn(in: features) { f.turnOn(in: &config) }
            let status = Interruption.whileHandling { interrupted in
                ShrinkSweep.run(strategy, seeds, jobs: jobs, config: config, budgetSeconds: budget, interrupted: interrupted, ctx)
            }
            return Interruption.signalNumber != 0 ? Interruption.exitStatus : status
        }
        let seed = try args.seed("--seed")
        let invName = try args.value("--invariant")
        let out = try args.value("--out")
        let clients = try args.int("--clients", in: FuzzConfiguration.clientsRange)
        let actions = try args.int("--actions", in: FuzzConfiguration.actionsRange)
        let noSwarm = args.flag("--no-swarm")
        let tenants = try args.int("--tenants", in: 2...(ScheduleLimits.maxTenant + 1)) ?? 0
        var features = WorkloadGenerator.Config()
        try args.also(into: &features)
        let budget = try args.value("--time-budget").map { try OptionValues.budget($0) } ?? nil
        try args.finish()
        guard let strategy else { throw ctx.missingStrategy() }
        if out == "" { throw UsageError("--out is empty; name a file, e.g. --out Scenarios/found/case.json") }
        guard let seed else { throw UsageError("--seed is required (a seed: a whole number in 0…\(UInt64.max)), or --seeds A..<B for a sweep") }
        ctx.noteIfDebugBuild()
        let invariant = try invName.map { try ctx.invariant(named: $0, option: "--invariant") }
        var config = WorkloadGenerator.Config(clients: clients, actions: actions ?? 60, swarm: !noSwarm)
        config.tenants = tenants
        for f in WorkloadFeature.allCases where f.isOn(in: features) { f.turnOn(in: &config) }
        let schedule = strategy.schedule(seed: seed, config)
        let deadline = budget.map { WallClock.seconds() + $0 } ?? .infinity
        return try Interruption.whileHandling { interrupted in
            let halt = RunStop { WallClock.seconds() > deadline || interrupted() }
            let status = try RunStop.$current.withValue(halt) {
                try shrinkOne(strategy, schedule, seed: seed, invariant: invariant, out: out, halt: halt, ctx)
            }
            return Interruption.signalNumber != 0 ? Interruption.exitStatus : status
        }
    }

    /// Shrinks one seed's failure and writes the scenario; `halt` (budget, Ctrl-C) stops it
    /// with the shortest failing schedule found so far, said to be possibly not minimal.
    static func shrinkOne(_ strategy: AnyStrategy, _ schedule: Schedule, seed: UInt64, invariant: InvariantID?, out: String?,
                          halt: RunStop, _ ctx: CLIContext) throws -> Int32 {
        let name = strategy.name
        let first = try strategy.run(schedule, seed: seed)
        if first.interrupted {
            ctx.printError("\(Interruption.signalNumber != 0 ? "interrupted" : "the time budget ran out") before seed \(seed)'s run finished: nothing shrunk, nothing written")
            return ExitCode.violation
        }
        guard let target = invariant ?? first.violations.first?.invariant else {
            ctx.printError("seed \(seed) does not fail under \(name): nothing to shrink")
            return ExitCode.violation
        }
        guard first.violations.contains(where: { $0.invariant == target }) else {
            ctx.printError("seed \(seed) does not violate \(target) under \(name) (it violates: \(first.violatedInvariants.map(\.rawValue).joined(separator: ", ").ifEmpty("nothing")))")
            return ExitCode.violation
        }
        let t0 = WallClock.seconds()
        let live = ctx.output.errorIsTerminal
        guard let outcome = strategy.shrink(schedule, seed: seed, invariant: target, shouldStop: halt.shouldStop, onProgress: { p in
            let line = "shrinking: \(p.actions) actions after \(p.runs) runs (\(p.pass))"
            if live { ctx.output.standardError("\r\u{1B}[K" + line) } else { ctx.printError(line) }
        }) else {
            ctx.printError("the failure did not reproduce while shrinking")
            return ExitCode.violation
        }
        if live { ctx.output.standardError("\r\u{1B}[K") }
        let scenario = Scenario(
            title: "\(name) violates \(target) (shrunk from seed \(seed))",
            description: outcome.violation.explanation,
            strategy: name,
            expect: [name: .fails(target)],
            origin: .init(seed: seed, shrunkFrom: seed, originalActions: schedule.actions.count),
            schedule: outcome.schedule)
        let path = out ?? "Scenarios/found/\(name)-\(target.rawValue)-seed\(seed).json"
        try AtomicFile.write(try scenario.encoded(), to: path)
        ctx.print("shrunk \(schedule.actions.count) → \(outcome.schedule.actions.count) actions in \(outcome.runs) runs, " + String(format: "%.2f s", WallClock.seconds() - t0))
        if halt.shouldStop() {
            ctx.print("stopped by \(Interruption.signalNumber != 0 ? "an interrupt" : "the time budget"): the scenario still fails but may not be minimal")
        }
        ctx.print("violation: \(outcome.violation)")
        ctx.print("wrote \(path)")
        ctx.print("replay:  \(ctx.commands.replay(path: path))")
        return ExitCode.ok
    }
}
