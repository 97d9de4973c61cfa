import Foundation

struct RunCommand: Command {
    static let name = "run"
    static let summary = "Run one seeded simulation and check the invariants"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) run --strategy NAME --seed N [options]

        Generates the schedule for the seed, runs it, and prints the seed, strategy, number of
        events, virtual duration, trace hash, the final state of the server and each client, and
        every invariant violation found.

        OPTIONS:
          --strategy NAME   the strategy to run (required); see '\(tool) list strategies'
          --seed N          the seed (required); the same seed replays the same run, byte for byte
          --clients N       number of clients, 1…26 (default: drawn from the seed, 2 or 3)
          --actions N       number of generated actions, 1…100000 (default 60)
          --no-swarm        uniform mix of every action and fault kind instead of swarm testing
          --tenants N       the schedule also switches tenant and logs out among N tenants (2…16)
          --also FEATURES   the generator's opt-in additions, comma-separated (syncNow, bulk,
                            richQueries, userChoices; see '\(tool) help fuzz')
          --trace           also print the run as a numbered story
          --history FILE    also write the run as a history (JSON Lines) that '\(tool) check FILE'
                            judges with the same oracles, finding exactly the run's violations
          --json            print one JSON object (strategy, seed, events, traceHash, contractMet,
                            violations each with claimed, and userInvariants when the tool has some, …)

        EXIT CODES: 0 the strategy met its contract (violations of invariants it does not claim are
        printed, marked not claimed: expected of a known-bad strategy, not an error), 1 a violation
        of an invariant the strategy claims, 2 bad usage.

        EXAMPLES:
          \(tool) run --strategy instant --seed 42
          \(tool) run --strategy instant --seed 42 --clients 3 --actions 200 --json
        """
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let strategy = try args.strategy(in: ctx)
        let seed = try args.seed("--seed")
        let clients = try args.int("--clients", in: 1...26)
        let actions = try args.int("--actions", in: 1...100_000)
        let noSwarm = args.flag("--no-swarm")
        let tenants = try args.int("--tenants", in: 2...(ScheduleLimits.maxTenant + 1)) ?? 0
        var features = WorkloadGenerator.Config()
        try args.also(into: &features)
        let json = args.flag("--json")
        let story = args.flag("--trace")
        let historyPath = try args.value("--history")
        try args.finish()
        guard let strategy else { throw ctx.missingStrategy() }
        if historyPath != nil && tenants > 1 {
            throw UsageError("--history cannot record tenants yet (the history format has no tenant lines); leave out --tenants")
        }
        guard let seed else { throw UsageError("--seed is required (a seed: a whole number in 0…\(UInt64.max))") }
        var config = WorkloadGenerator.Config(clients: clients, actions: actions ?? 60, swarm: !noSwarm)
        config.tenants = tenants
        for f in WorkloadFeature.allCases where f.isOn(in: features) { f.turnOn(in: &config) }
        let schedule = strategy.schedule(seed: seed, config)
        let result: RunResult
        if let historyPath {
            var lines: [String] = []
            result = try strategy.run(schedule, seed: seed, trace: story ? .full : .hashOnly, history: { lines.append($0) })
            try AtomicFile.write(lines.joined(separator: "\n") + "\n", to: historyPath)
        } else {
            result = try strategy.run(schedule, seed: seed, trace: story ? .full : .hashOnly)
        }
        let contract = strategy.info.contract
        if json {
            ctx.print(try RunReport(result, schedule: schedule, contract: contract).json())
        } else {
            if story { printStory(result, ctx) }
            printSummary(result, schedule: schedule, contract: contract, ctx)
        }
        return result.violations.contains { contract.contains($0.invariant) } ? ExitCode.violation : ExitCode.ok
    }

    static func printStory(_ r: RunResult, _ ctx: CLIContext) { printStory(lines: r.trace, ctx) }

    static func printStory(lines: [TraceLine], _ ctx: CLIContext) {
        for (i, l) in lines.enumerated() {
            ctx.print(String(i + 1).leftPad(5) + "  t=" + "\(l.time)ms".rightPad(8) + " " + l.text)
        }
        ctx.print("")
    }

    static func printSummary(_ r: RunResult, schedule: Schedule, contract: Set<InvariantID>, _ ctx: CLIContext) {
        ctx.print("strategy    \(r.strategy)")
        ctx.print("seed        \(r.seed)")
        ctx.print("clients     \(schedule.options.clients)   actions \(schedule.actions.count)   persistence \(schedule.options.persistence ? "on" : "off")")
        ctx.print("events      \(r.events)")
        ctx.print("virtual     \(r.virtualDurationMs) ms")
        ctx.print("trace hash  \(r.traceHashHex)   (schedule \(schedule.digest))")
        ctx.print("settled     " + (r.convergenceMs.map { "\($0) ms after heal" } ?? "no"))
        ctx.print("server      \(r.server.count) entities, digest \(StableHasher.digest(r.server))")
        // Which user invariants judged the run, so "violations  none" says they held (only when
        // there are some: the output of a tool without them is unchanged).
        if !r.customInvariants.isEmpty {
            ctx.print("invariants  the built-ins and \(r.customInvariants.map(\.rawValue).joined(separator: ", ")) (user)")
        }
        for c in r.clients {
            let subs = c.subscriptions.map { s in
                "\(s.id) \(s.result.map { $0 == s.expected ? "= server" : "≠ server" } ?? "no result")"
            }.joined(separator: ", ")
            ctx.print("client \(c.client)    pending \(c.pendingWrites.count); \(subs.isEmpty ? "no subscriptions" : subs)")
        }
        if r.violations.isEmpty {
            ctx.print("violations  none")
        } else {
            let claimed = r.violations.filter { contract.contains($0.invariant) }.count
            ctx.print("violations  \(r.violations.count): \(claimed) of invariants \(r.strategy) claims (contract violations), \(r.violations.count - claimed) of invariants it does not claim (expected of a known-bad strategy)")
            for v in r.violations { ctx.print("  \(contract.contains(v.invariant) ? "[claimed]    " : "[not claimed]") \(v)") }
        }
        ctx.print("contract    \(r.violations.contains { contract.contains($0.invariant) } ? "VIOLATED" : "met")")
    }
}
