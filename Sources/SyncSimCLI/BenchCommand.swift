import Foundation
import SyncSim

struct BenchCommand: Command {
    static let name = "bench"
    static let summary = "Measure simulated events/s and schedules/s per strategy"
    static let help = """
    USAGE: syncsim bench [--strategy NAME]... [--seeds N] [--jobs N] [--json]

    The standard workload: seeds 0..<N (default 200) of the built-in generator with 3 clients,
    200 actions and swarm testing on, invariant checking on, trace recorded as a hash only. Each
    strategy runs once on one job and once on --jobs (default: all cores); the figures are
    simulated events per second, schedules per second, and the speed-up. Build with
    `-c release` for meaningful numbers:

      swift build -c release && .build/release/syncsim bench
    """

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

    static func run(_ args: inout Arguments) throws -> Int32 {
        let names = try args.values("--strategy")
        let seeds = try args.int("--seeds", in: 1...1_000_000) ?? 200
        let jobs = try args.int("--jobs", in: 1...256) ?? defaultJobs
        let json = args.flag("--json")
        try args.finish()
        var strategies: [any SyncStrategy] = []
        for n in names {
            guard let s = StrategyRegistry.named(n) else {
                throw UsageError("unknown strategy '\(n)' for --strategy; valid values: \(StrategyRegistry.names.joined(separator: ", "))")
            }
            strategies.append(s)
        }
        if strategies.isEmpty { strategies = StrategyRegistry.builtIn }
        let gen = WorkloadGenerator(.init(clients: 3, actions: 200, swarm: true))
        let schedules = (0..<seeds).map { gen.generate(seed: UInt64($0)) }
        var rows: [Row] = []
        for s in strategies {
            func sweep(_ j: Int) -> (Double, Int) {
                let t0 = wallSeconds()
                let events = parallelMap(seeds, jobs: j) { i in (try? simulate(s, schedules[i], seed: UInt64(i)))?.events ?? 0 }
                return (wallSeconds() - t0, events.reduce(0, +))
            }
            let (t1, ev) = sweep(1)
            let (tn, _) = jobs > 1 ? sweep(jobs) : (t1, ev)
            let row = Row(strategy: s.info.name, schedules: seeds, events: ev, oneJobSeconds: t1,
                          oneJobEventsPerSecond: Double(ev) / t1, oneJobSchedulesPerSecond: Double(seeds) / t1,
                          jobs: jobs, manyJobsSeconds: tn, manyJobsEventsPerSecond: Double(ev) / tn, speedup: t1 / tn)
            rows.append(row)
            if !json {
                print(row.strategy.padding(toLength: 14, withPad: " ", startingAt: 0) + String(format: " %6d schedules %9d events | 1 job: %8.0f events/s %7.1f schedules/s | %d jobs: %8.0f events/s (×%.2f)",
                             seeds, ev, row.oneJobEventsPerSecond, row.oneJobSchedulesPerSecond,
                             jobs, row.manyJobsEventsPerSecond, row.speedup))
            }
        }
        // The standard failure: sharedDiff's ghost deletion from seed 0 of the default generator.
        let standard = WorkloadGenerator().generate(seed: 0)
        var shrinkTimes: [Double] = []
        var shrunk = 0
        for _ in 0..<5 {
            let t0 = wallSeconds()
            let out = shrinkFailure(SharedDiffStrategy(), standard, seed: 0, invariant: .noGhostDeletion)
            shrinkTimes.append(wallSeconds() - t0)
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
            print(String(decoding: try e.encode(out), as: UTF8.self))
        } else {
            print(String(format: "shrink (sharedDiff noGhostDeletion, seed 0): %d → %d actions, median of 5: %.3f s", standard.actions.count, shrunk, shrinkMedian))
        }
        return ExitCode.ok
    }
}
