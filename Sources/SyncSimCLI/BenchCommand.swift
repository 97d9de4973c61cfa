import Foundation

struct BenchCommand: Command {
    static let name = "bench"
    static let summary = "Measure simulated events/s and schedules/s per strategy"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) bench [--strategy NAME]... [--seeds N] [--jobs N] [--long N] [--json]

        The standard workload: seeds 0..<N (default 200) of the built-in generator with 3 clients,
        200 actions and swarm testing on (the stress profile off, so action counts mean what they
        say), invariant checking on, trace recorded as a hash only. Each
        strategy runs once on one job and once on --jobs (default: all cores); the figures are
        simulated events per second, schedules per second, and the speed-up.

        Cost per event as a run grows: seed 1 with 200 and with 3,000 actions, one job, each
        strategy; the figure is nanoseconds per simulated event and the ratio (flat cost = 1.0).
        --long N also times one run of N actions per strategy (e.g. --long 10000).

        A debug build is several times slower and says so; build with `-c release` for
        meaningful numbers:

          swift build -c release && .build/release/\(tool) bench
        """
    }

    struct Row: Encodable {
        var strategy: String
        var schedules: Int
        var events: Int
        var oneJobSeconds: Double
        var oneJobEventsPerSecond: Double
        var oneJobSchedulesPerSecond: Double
        var jobs: Int
        var manyJobsSeconds: Double
        var manyJobsEventsPerSecond: Double
        var speedup: Double
        /// Nanoseconds per event on seed 1 with `flatShort` and `flatLong` actions, and their ratio.
        var nsPerEventShort: Double
        var nsPerEventLong: Double
        var costGrowth: Double
        /// Seconds for one run of `--long` actions (nil without `--long`).
        var longRunSeconds: Double?
        var longRunEvents: Int?
    }

    static let flatShort = 200
    static let flatLong = 3_000

    /// Whether this binary was compiled without optimisation (figures then mean little).
    static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// Median wall-clock seconds of `rounds` runs of `body` (which returns events simulated).
    static func timed(rounds: Int, _ body: () -> Int) -> (seconds: Double, events: Int) {
        var times: [Double] = []
        var events = 0
        for _ in 0..<rounds {
            let t0 = WallClock.seconds()
            events = body()
            times.append(WallClock.seconds() - t0)
        }
        return (times.sorted()[rounds / 2], events)
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let names = try args.values("--strategy")
        let seeds = try args.int("--seeds", in: 1...1_000_000) ?? 200
        let jobs = try args.int("--jobs", in: FuzzConfiguration.jobsRange) ?? FuzzConfiguration.defaultJobs
        let long = try args.int("--long", in: 1...100_000)
        let json = args.flag("--json")
        try args.finish()
        let build = isDebugBuild ? "debug" : "release"
        if isDebugBuild {
            ctx.printError("note: this is a debug build; figures are several times below a release build's (swift build -c release)")
        }
        let strategies = try ctx.strategies(named: names, option: "--strategy")
        // Stress off: a seed drawing a long run would make "200 actions" 800 and "3,000" 12,000.
        let config = WorkloadGenerator.Config(clients: 3, actions: 200, swarm: true, stress: false)
        var rows: [Row] = []
        for s in strategies {
            // Each strategy's own schema; strategies sharing one get the same schedules.
            let schedules = (0..<seeds).map { s.schedule(seed: UInt64($0), config) }
            func sweep(_ j: Int) -> (Double, Int) {
                let t0 = WallClock.seconds()
                let events = ParallelRunner.map(seeds, jobs: j) { i in (try? s.run(schedules[i], seed: UInt64(i)))?.events ?? 0 }
                return (WallClock.seconds() - t0, events.reduce(0, +))
            }
            let (t1, ev) = sweep(1)
            let (tn, _) = jobs > 1 ? sweep(jobs) : (t1, ev)
            // Flat cost: the same seed, short and long; the median of 3 (the long one once).
            func one(_ actions: Int) -> Int {
                var c = config
                c.actions = actions
                return (try? s.run(s.schedule(seed: 1, c), seed: 1))?.events ?? 0
            }
            let short = timed(rounds: 3) { one(flatShort) }
            let longer = timed(rounds: 1) { one(flatLong) }
            let nsShort = short.seconds * 1e9 / Double(max(1, short.events))
            let nsLong = longer.seconds * 1e9 / Double(max(1, longer.events))
            let longRun = long.map { n in timed(rounds: 1) { one(n) } }
            let row = Row(strategy: s.name, schedules: seeds, events: ev, oneJobSeconds: t1,
                          oneJobEventsPerSecond: Double(ev) / t1, oneJobSchedulesPerSecond: Double(seeds) / t1,
                          jobs: jobs, manyJobsSeconds: tn, manyJobsEventsPerSecond: Double(ev) / tn, speedup: t1 / tn,
                          nsPerEventShort: nsShort, nsPerEventLong: nsLong, costGrowth: nsLong / nsShort,
                          longRunSeconds: longRun?.seconds, longRunEvents: longRun?.events)
            rows.append(row)
            if !json {
                var line = row.strategy.rightPad(14) + String(format: " %6ld schedules %9ld events | 1 job: %8.0f events/s %7.1f schedules/s | %ld jobs: %8.0f events/s (×%.2f)",
                                                            seeds, ev, row.oneJobEventsPerSecond, row.oneJobSchedulesPerSecond,
                                                            jobs, row.manyJobsEventsPerSecond, row.speedup)
                line += String(format: " | ns/event %ld→%ld actions: %.0f→%.0f (×%.2f)", flatShort, flatLong, nsShort, nsLong, row.costGrowth)
                if let l = longRun { line += String(format: " | %ld actions: %.2f s", long ?? 0, l.seconds) }
                ctx.print(line)
            }
        }
        // The standard failure: sharedDiff's ghost deletion from seed 0 of the default generator
        // (a built-in whatever strategies this tool has: it measures the shrinker).
        let sharedDiff = AnyStrategy(SharedDiffStrategy())
        let standard = WorkloadGenerator().generate(seed: 0)
        var shrinkTimes: [Double] = []
        var shrunk = 0
        for _ in 0..<5 {
            let t0 = WallClock.seconds()
            let out = sharedDiff.shrink(standard, seed: 0, invariant: .noGhostDeletion)
            shrinkTimes.append(WallClock.seconds() - t0)
            shrunk = out?.schedule.actions.count ?? -1
        }
        let shrinkMedian = shrinkTimes.sorted()[2]
        if json {
            struct Out: Encodable { var build: String; var flatCostActions: [Int]; var longRunActions: Int?; var strategies: [Row]; var shrink: Shrink }
            struct Shrink: Encodable { var failure: String; var fromActions: Int; var toActions: Int; var medianSeconds: Double }
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys, .prettyPrinted]
            let out = Out(build: build, flatCostActions: [flatShort, flatLong], longRunActions: long, strategies: rows, shrink: Shrink(failure: "sharedDiff noGhostDeletion seed 0", fromActions: standard.actions.count,
                                                           toActions: shrunk, medianSeconds: shrinkMedian))
            ctx.print(String(decoding: try e.encode(out), as: UTF8.self))
        } else {
            ctx.print("shrink (sharedDiff noGhostDeletion, seed 0): \(standard.actions.count) → \(shrunk) actions, median of 5: " + String(format: "%.3f s", shrinkMedian))
        }
        return ExitCode.ok
    }
}
