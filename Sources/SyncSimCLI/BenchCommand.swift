import Foundation

struct BenchCommand: Command {
    static let name = "bench"
    static let summary = "Measure simulated events/s and schedules/s per strategy"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) bench [--strategy NAME]... [--seeds N] [--jobs N] [--json]

        The standard workload: seeds 0..<N (default 200) of the built-in generator with 3 clients,
        200 actions and swarm testing on, invariant checking on, trace recorded as a hash only. Each
        strategy runs once on one job and once on --jobs (default: all cores); the figures are
        simulated events per second, schedules per second, and the speed-up. Build with
        `-c release` for meaningful numbers:

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
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let names = try args.values("--strategy")
        let seeds = try args.int("--seeds", in: 1...1_000_000) ?? 200
        let jobs = try args.int("--jobs", in: FuzzConfiguration.jobsRange) ?? FuzzConfiguration.defaultJobs
        let json = args.flag("--json")
        try args.finish()
        let strategies = try ctx.strategies(named: names, option: "--strategy")
        let config = WorkloadGenerator.Config(clients: 3, actions: 200, swarm: true)
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
            let row = Row(strategy: s.name, schedules: seeds, events: ev, oneJobSeconds: t1,
                          oneJobEventsPerSecond: Double(ev) / t1, oneJobSchedulesPerSecond: Double(seeds) / t1,
                          jobs: jobs, manyJobsSeconds: tn, manyJobsEventsPerSecond: Double(ev) / tn, speedup: t1 / tn)
            rows.append(row)
            if !json {
                ctx.print(row.strategy.rightPad(14) + String(format: " %6ld schedules %9ld events | 1 job: %8.0f events/s %7.1f schedules/s | %ld jobs: %8.0f events/s (×%.2f)",
                             seeds, ev, row.oneJobEventsPerSecond, row.oneJobSchedulesPerSecond,
                             jobs, row.manyJobsEventsPerSecond, row.speedup))
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
            struct Out: Encodable { var strategies: [Row]; var shrink: Shrink }
            struct Shrink: Encodable { var failure: String; var fromActions: Int; var toActions: Int; var medianSeconds: Double }
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys, .prettyPrinted]
            let out = Out(strategies: rows, shrink: Shrink(failure: "sharedDiff noGhostDeletion seed 0", fromActions: standard.actions.count,
                                                           toActions: shrunk, medianSeconds: shrinkMedian))
            ctx.print(String(decoding: try e.encode(out), as: UTF8.self))
        } else {
            ctx.print("shrink (sharedDiff noGhostDeletion, seed 0): \(standard.actions.count) → \(shrunk) actions, median of 5: " + String(format: "%.3f s", shrinkMedian))
        }
        return ExitCode.ok
    }
}
