import Foundation

struct FuzzCommand: Command {
    static let name = "fuzz"
    static let summary = "Fuzz strategies over many seeds, shrink failures, write comparison reports"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) fuzz [options]

        Runs every selected strategy on the schedules generated from a range of seeds (the same
        schedule for every strategy, so they compare like for like), shrinks the first failure of
        each (strategy, invariant), and writes report.md, report.json, report.html and junit.xml.

        OPTIONS:
          --strategy NAME|all   a strategy to fuzz (repeatable; default all); see '\(tool) list strategies'
          --seeds A..<B         seeds A up to B, B excluded (also A..B; A...B includes B; default 0..<200)
          --seeds random        fresh seeds: --count N (default 200) from a start drawn at random,
                                printed so that '--seeds <printed range>' replays the run exactly
          --count N --start S   the same as --seeds S..S+N (S default 0, N default 200); without
                                --seeds and --start, S is $SYNCSIM_SEED_START when CI sets it
          --shard K/N           only the seeds at positions ≡ K-1 (mod N): disjoint shards for CI
                                matrices; '\(tool) merge' joins their report folders
          --jobs N              parallel simulations (default: all cores); each stays single-threaded
                                and deterministic, and the report does not depend on N
          --time-budget 60s     stop cleanly when the budget is spent (ms, s, m or h; default 240s):
                                checked inside runs and shrinking too, so it ends within a second
                                of the budget; the report keeps what finished, marked incomplete,
                                and names the failures left unshrunk; 0 for no budget
          --stop-on-first       stop at the first contract violation
          --failures DIR        known failures (scenario files) replayed before the seeds; the
                                summary says which are still failing, fixed or new
                                (default Scenarios/found when it exists)
          --no-failures         do not replay known failures
          --save-failures       write each new shrunk failure into the failures folder
          --explain-runs N      counterfactual replays per shrunk failure for its explanation in
                                the report (default 600; 0 explains nothing)
          --no-shrink           report failures without shrinking them
          --report-dir DIR      where to write (default Reports/<UTC time>-<run id>)
          --no-swarm            uniform mix instead of swarm testing
          --clients N, --actions N   as for '\(tool) run' (default: drawn per seed, 60 actions)
          --tenants N           schedules also switch tenant and log out among N tenants (2…16;
                                default off): the tenantIsolation oracle is judged only then
          --also FEATURES       the generator's opt-in additions, comma-separated: syncNow,
                                bulk (bulk creates, small pushPull batches and pages),
                                richQueries (conditions, limits, include trees), userChoices
                                (the merge policy, "drop oldest" taps); off by default
          --quiet               no progress lines
          --baseline NAME       differential mode: report only the violations a strategy shows on a
                                seed where NAME (run on the same schedule) does not violate that
                                invariant, and shrink them while NAME still passes it

        EXIT CODES: 0 every strategy met its contract (a known-bad strategy failing an invariant it
        does not claim is expected and reported, not an error), 1 a contract violation, 2 bad input,
        130/143 stopped by SIGINT/SIGTERM (Ctrl-C): the report is written with every finished run,
        marked interrupted; a second Ctrl-C ends at once.

        EXAMPLES:
          \(tool) fuzz
          \(tool) fuzz --strategy instant --strategy reference --seeds 0..2000 --jobs 2
          \(tool) fuzz --shard 1/4 --report-dir Reports/shard-1 && \(tool) merge Reports/shard-*
          \(tool) fuzz --seeds random --count 500 --save-failures
        """
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let names = try args.values("--strategy")
        let seedsArg = try args.value("--seeds")
        let count = try args.int("--count", in: 1...100_000_000)
        let start = try args.seed("--start")
        let shardArg = try args.value("--shard")
        let jobs = try args.int("--jobs", in: FuzzConfiguration.jobsRange) ?? FuzzConfiguration.defaultJobs
        let budget = try args.value("--time-budget").map { try OptionValues.budget($0) } ?? 240
        let stopOnFirst = args.flag("--stop-on-first")
        let noShrink = args.flag("--no-shrink")
        let reportDirArg = try args.value("--report-dir").map(Self.reportFolder)
        let noSwarm = args.flag("--no-swarm")
        let tenants = try args.int("--tenants", in: 2...(ScheduleLimits.maxTenant + 1)) ?? 0
        var features = WorkloadGenerator.Config()
        try args.also(into: &features)
        _ = args.flag("--swarm")
        let clients = try args.int("--clients", in: FuzzConfiguration.clientsRange)
        let actions = try args.int("--actions", in: FuzzConfiguration.actionsRange) ?? 60
        let quiet = args.flag("--quiet")
        let failuresArg = try args.value("--failures")
        let noFailures = args.flag("--no-failures")
        let saveFailures = args.flag("--save-failures")
        let explainRuns = try args.int("--explain-runs", in: 0...ExplainBudget.maxRunsRange.upperBound)
        let baselineName = try args.value("--baseline")
        try args.finish()
        if failuresArg != nil && noFailures { throw UsageError("use either --failures DIR or --no-failures, not both") }
        if saveFailures && noFailures { throw UsageError("--save-failures writes into the failures folder; it cannot go with --no-failures") }
        if failuresArg == "" { throw UsageError("--failures is empty; name a folder, e.g. --failures Scenarios/found") }

        let strategies = try ctx.strategies(named: names, option: "--strategy")
        let seeds: SeedRange
        var seedNote: String?
        if seedsArg == "random" {
            if start != nil { throw UsageError("--seeds random draws the start; leave --start out (or give --seeds A..<B)") }
            // The only place a seed comes from the system: printed below, so the run can be replayed.
            seeds = try FreshSeeds.random(draw: UInt64.random(in: 0..<FreshSeeds.randomStartBound), count: UInt64(count ?? 200))
            seedNote = "random start"
        } else if let seedsArg {
            if count != nil || start != nil { throw UsageError("use either --seeds A..B or --count N --start S, not both") }
            seeds = try OptionValues.seedRange(seedsArg)
        } else if start == nil, let env = ProcessInfo.processInfo.environment[FreshSeeds.environmentVariable] {
            do {
                seeds = try FreshSeeds.fromEnvironment(env, count: UInt64(count ?? 200))
            } catch {
                throw UsageError("\(error)")
            }
            seedNote = "start from \(FreshSeeds.environmentVariable)"
        } else {
            do {
                seeds = try SeedRange(start: start ?? 0, count: UInt64(count ?? 200))
            } catch let e as SeedRangeError {
                throw UsageError("--start \(start ?? 0) --count \(count ?? 200): \(e)")
            }
        }
        // Known failures: loaded (and every file checked) before anything runs.
        var database: FailureDatabase?
        if !noFailures {
            do {
                // A folder named on the command line is checked strictly (a typo in a strategy
                // name is an error); the default one may hold files for strategies this tool
                // does not have (another tool's, in a shared repository): those are not replayed.
                database = try FailureDatabase.load(folder: failuresArg ?? "Scenarios/found", strategies: failuresArg == nil ? nil : ctx.strategies.names,
                                                    mustExist: failuresArg != nil && !saveFailures)
            } catch let e as ScenarioError {
                throw UsageError("--failures: \(e)")
            }
        }
        var configuration = FuzzConfiguration(
            seeds: seeds, shard: try shardArg.map { try OptionValues.shard($0) }, jobs: jobs, timeBudgetSeconds: budget,
            stopOnFirstContractViolation: stopOnFirst, shrink: !noShrink,
            generator: Self.generator(clients: clients, actions: actions, swarm: !noSwarm, tenants: tenants, features: features), commandPrefix: ctx.commands.prefix)
        configuration.failureDatabase = database
        configuration.saveNewFailures = saveFailures
        if let explainRuns { configuration.explainMaxRuns = explainRuns }
        if baselineName == "all" { throw UsageError("--baseline names one strategy, not 'all'") }
        if let baselineName { configuration.baseline = try ctx.strategies(named: [baselineName], option: "--baseline").first }
        var driver: FuzzDriver
        do {
            driver = try FuzzDriver(strategies: strategies, configuration: configuration)
            let runID = String(StableHasher.digest(OptionsKey(driver.options)).prefix(8))
            configuration.reportDirectory = reportDirArg ?? "Reports/\(utcStamp())-\(runID)"
            driver = try FuzzDriver(strategies: strategies, configuration: configuration)
        } catch let e as FuzzConfigurationError {
            if case .tooManyRuns = e { throw UsageError("--seeds: \(e)") }
            throw UsageError("\(e)")
        }
        let dir = configuration.reportDirectory!
        // Before any simulation: a run that could never write its report fails now.
        do {
            try ReportWriter.prepareFolder(dir)
        } catch let e as ReportFileError {
            throw UsageError("--report-dir '\(OptionValues.shown(dir))' cannot hold the report: \(e.message); choose another folder")
        }
        ctx.noteIfDebugBuild()
        if let seedNote { ctx.print("seeds \(seeds) (\(seedNote)); rerun exactly with --seeds \(seeds) and the same other options") }
        let printer = ProgressPrinter(output: ctx.output, quiet: quiet)
        let result = try Interruption.whileHandling { interrupted in
            var c = configuration
            c.interrupt = interrupted
            return try FuzzDriver(strategies: strategies, configuration: c).run(progress: { printer.show($0) })
        }
        printer.finish()
        printSummary(result.report, dir: dir, knownFailuresFolder: database?.folder, ctx)
        if result.report.stopReason == .interrupted, Interruption.signalNumber != 0 {
            ctx.printError("interrupted by \(Interruption.signalName): the report holds the runs that finished and is marked incomplete")
            return Interruption.exitStatus
        }
        return result.report.allContractsMet && !(result.report.failureDatabase?.breaksContract ?? false) ? ExitCode.ok : ExitCode.violation
    }

    /// `--report-dir`'s value, refused when empty (it would write into the current folder's
    /// parent or the filesystem root).
    static func reportFolder(_ s: String) throws -> String {
        guard !s.isEmpty else { throw UsageError("--report-dir is empty; name a folder, e.g. --report-dir Reports/run-1") }
        return s
    }

    /// The part of the options that identifies a run (for the run id).
    struct OptionsKey: StableHashable {
        let o: FuzzReport.Options
        init(_ o: FuzzReport.Options) { self.o = o }
        func stableHash(into h: inout StableHasher) {
            for s in o.strategies { h.combine(s) }
            h.combine(o.seeds); h.combine(o.shard ?? ""); h.combine(o.swarm); h.combine(o.clients ?? 0); h.combine(o.actions); h.combine(o.shrink)
            // Only when set, so run ids of default runs stay what they were.
            if let t = o.tenants { h.combine("tenants"); h.combine(t) }
            if let a = o.also { h.combine("also"); for f in a { h.combine(f) } }
        }
    }

    static func printSummary(_ r: FuzzReport, dir: String, knownFailuresFolder: String? = nil, _ ctx: CLIContext) {
        let why: String
        switch r.stopReason {
        case let reason? where r.complete && reason != .firstContractViolation:
            why = " — every run finished, but shrinking was cut short: \(reason.sentence)"
        case .timeBudget?: why = " — INCOMPLETE: the time budget ran out (runs it stopped are left out)"
        case .interrupted?: why = " — INCOMPLETE: interrupted (runs it stopped are left out)"
        case .firstContractViolation?: why = " — stopped at the first contract violation"
        case nil: why = r.complete ? "" : " — INCOMPLETE"
        }
        ctx.print("fuzzed \(r.options.strategies.count) strategies × \(r.seedsRun) seeds (\(r.options.seeds)\(r.options.shard.map { ", shard \($0)" } ?? ""))\(why)")
        for line in FuzzSummary.knownFailures(r.failureDatabase) { ctx.print(line) }
        if r.failureDatabase == nil, let folder = knownFailuresFolder {
            ctx.print("known failures (\(folder)): none recorded (--save-failures keeps this run's shrunk failures there)")
        }
        for line in FuzzSummary.strategies(r) { ctx.print(line) }
        for line in FuzzSummary.contractViolations(r) { ctx.print(line) }
        for line in FuzzSummary.coverage(r) { ctx.print(line) }
        let unshrunk = r.failures.filter { $0.shrinkStopped == true && $0.shrunkActions == nil }
        let partly = r.failures.filter { $0.shrinkStopped == true && $0.shrunkActions != nil }
        if !unshrunk.isEmpty {
            ctx.print("left unshrunk (out of time): \(unshrunk.map { "\($0.strategy)/\($0.invariant) seed \($0.seed)" }.joined(separator: ", ")); reproduce and shrink with:")
            let g = r.options.generator
            for f in unshrunk { ctx.print("  " + ctx.commands.shrink(strategy: f.strategy, seed: f.seed, invariant: f.invariant, generator: g)) }
        }
        if !partly.isEmpty {
            ctx.print("shrinking stopped early (may not be minimal): \(partly.map { "\($0.strategy)/\($0.invariant) seed \($0.seed)" }.joined(separator: ", "))")
        }
        ctx.print("report: \(dir)/report.md  (also report.html, report.json, junit.xml)")
    }

    static func utcStamp() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd-HHmmss"
        return f.string(from: Date())
    }
}

extension FuzzCommand {
    /// The generator options of `fuzz`: `--tenants` adds tenant switches and logouts, `--also`
    /// the features turned on in `features`.
    static func generator(clients: Int?, actions: Int, swarm: Bool, tenants: Int, features: WorkloadGenerator.Config = .init()) -> WorkloadGenerator.Config {
        var g = WorkloadGenerator.Config(clients: clients, actions: actions, swarm: swarm)
        g.tenants = tenants
        for f in WorkloadFeature.allCases where f.isOn(in: features) { f.turnOn(in: &g) }
        return g
    }
}
