import Foundation

struct BenchCommand: Command {
    static let name = "bench"
    static let summary = "Measure simulated events/s and schedules/s per strategy"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) bench [--strategy NAME]... [--seeds N] [--jobs N] [--rounds N] [--flat SHORT,LONG]
                     [--long N] [--json]

        The standard workload: seeds 0..<N (default 200) of the built-in generator with 3 clients,
        200 actions and swarm testing on (the stress profile off, so action counts mean what they
        say), invariant checking on, trace recorded as a hash only. Each strategy runs the seeds
        on one job and on --jobs (default: all cores), alternating, --rounds times (default 3);
        the figures are the medians of simulated events per second and schedules per second,
        and the speed-up is the median of the rounds' ratios, with its lowest and highest (a
        wide spread says the machine was busy). The CPU seconds of both sweeps are reported
        too: the many-jobs sweep using more CPU than the one-job sweep means the jobs slow each
        other down. Every sweep must simulate the same events for the same seeds; a difference
        is a determinism bug, reported with exit status 1.

        Cost per event as a run grows: exactly the runs of `\(tool) run --strategy S --seed 1
        --actions SHORT` and `--actions LONG` (--flat, default 200,3000: the run command's own
        workload, stress profile included; seed 1 draws its long run, so the schedules hold
        800 and 12,001 actions and the store grows to thousands of entities), one job, each
        strategy (median of the rounds, at least 3); the figures are nanoseconds per simulated
        event, by the wall clock and by the thread's CPU time (steadier on a shared machine),
        and their ratios (flat cost = 1.0). Profile the same runs with any tool through `run`.
        --long N also times one run of N actions per strategy on the standard workload
        (e.g. --long 10000).

        A debug build is several times slower and says so; build with `-c release` for
        meaningful numbers:

          swift build -c release && .build/release/\(tool) bench
        """
    }

    struct Row: Encodable {
        var strategy: String
        var schedules: Int
        var events: Int
        /// How many times each sweep ran; the figures below are medians over them.
        var rounds: Int
        var oneJobSeconds: Double
        var oneJobEventsPerSecond: Double
        var oneJobSchedulesPerSecond: Double
        var oneJobCPUSeconds: Double
        var jobs: Int
        var manyJobsSeconds: Double
        var manyJobsEventsPerSecond: Double
        var manyJobsCPUSeconds: Double
        /// The median of the rounds' one-job / many-jobs wall-time ratios, and their extremes.
        var speedup: Double
        var speedupMin: Double
        var speedupMax: Double
        /// The events of the runs `run --strategy S --seed 1 --actions SHORT` and `LONG`.
        var flatEventsShort: Int
        var flatEventsLong: Int
        /// Nanoseconds per event of those runs, and their ratio.
        var nsPerEventShort: Double
        var nsPerEventLong: Double
        var costGrowth: Double
        /// The same by the thread's CPU time.
        var cpuNsPerEventShort: Double
        var cpuNsPerEventLong: Double
        var cpuCostGrowth: Double
        /// Seconds for one run of `--long` actions (nil without `--long`).
        var longRunSeconds: Double?
        var longRunEvents: Int?
    }

    /// The default `--flat` pair: the "200 vs 3,000 actions on seed 1".
    static let flatDefault = (short: 200, long: 3_000)

    /// The workload of `syncsim run --strategy S --seed N --actions A` without other options
    /// (`RunCommand`): the flat-cost runs are those runs, so anyone can profile the same run.
    static func runWorkload(actions: Int) -> WorkloadGenerator.Config {
        WorkloadGenerator.Config(clients: nil, actions: actions, swarm: true)
    }

    /// `--flat SHORT,LONG`: two action counts, each 1…100,000, SHORT below LONG.
    static func flatPair(_ text: String?) throws -> (short: Int, long: Int) {
        guard let text else { return flatDefault }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]),
              (1...100_000).contains(a), (1...100_000).contains(b), a < b else {
            throw UsageError("--flat expects two action counts SHORT,LONG with 1 ≤ SHORT < LONG ≤ 100000 (e.g. --flat 200,3000), got '\(OptionValues.shown(text))'")
        }
        return (a, b)
    }

    /// Whether this binary was compiled without optimisation (figures then mean little).
    static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// Median wall-clock and thread-CPU seconds of `rounds` runs of `body` (which returns events
    /// simulated).
    static func timed(rounds: Int, _ body: () -> Int) -> (seconds: Double, cpuSeconds: Double, events: Int) {
        var times: [Double] = []
        var cpu: [Double] = []
        var events = 0
        for _ in 0..<rounds {
            let c0 = CPUClock.threadSeconds()
            let t0 = WallClock.seconds()
            events = body()
            times.append(WallClock.seconds() - t0)
            cpu.append(CPUClock.threadSeconds() - c0)
        }
        return (BenchSpread(times).median, BenchSpread(cpu).median, events)
    }

    /// One sweep of every schedule on `jobs` jobs: wall seconds, the process's CPU seconds, and
    /// the events each schedule simulated (in seed order, whatever the number of jobs).
    static func sweep(_ s: AnyStrategy, _ schedules: [Schedule], jobs: Int) -> (seconds: Double, cpuSeconds: Double, events: [Int]) {
        let c0 = CPUClock.processSeconds()
        let t0 = WallClock.seconds()
        let events = ParallelRunner.map(schedules.count, jobs: jobs) { i in (try? s.run(schedules[i], seed: UInt64(i)))?.events ?? 0 }
        return (WallClock.seconds() - t0, CPUClock.processSeconds() - c0, events)
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let names = try args.values("--strategy")
        let seeds = try args.int("--seeds", in: 1...1_000_000) ?? 200
        let jobs = try args.int("--jobs", in: FuzzConfiguration.jobsRange) ?? FuzzConfiguration.defaultJobs
        let rounds = try args.int("--rounds", in: 1...100) ?? 3
        let flat = try flatPair(try args.value("--flat"))
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
            // One job and many, alternating, so a busy spell of the machine falls on both sides
            // of a round's pair rather than on one whole side.
            var one: [Double] = [], oneCPU: [Double] = [], many: [Double] = [], manyCPU: [Double] = []
            var expected: [Int]?
            for _ in 0..<rounds {
                var sweeps = [sweep(s, schedules, jobs: 1)]
                if jobs > 1 { sweeps.append(sweep(s, schedules, jobs: jobs)) }
                for (k, w) in sweeps.enumerated() {
                    if let e = expected, e != w.events {
                        let i = e.indices.first { $0 < w.events.count && e[$0] != w.events[$0] } ?? 0
                        ctx.printError("error: \(s.name) simulated \(w.events[i]) events for seed \(i) on \(k == 0 ? 1 : jobs) job(s), \(e[i]) in an earlier sweep: the same schedule and seed must give the same run (a determinism bug, or state shared between runs)")
                        return ExitCode.violation
                    }
                    expected = w.events
                }
                one.append(sweeps[0].seconds)
                oneCPU.append(sweeps[0].cpuSeconds)
                many.append(sweeps.last!.seconds)
                manyCPU.append(sweeps.last!.cpuSeconds)
            }
            let ev = (expected ?? []).reduce(0, +)
            let t1 = BenchSpread(one).median, tn = BenchSpread(many).median
            let speedup = BenchSpread.ratios(one, many)
            // Flat cost: `run --seed 1` short and long (schedules made once, outside the
            // timing); the median of the rounds (at least 3).
            func runs(_ c: WorkloadGenerator.Config) -> () -> Int {
                let schedule = s.schedule(seed: 1, c)
                return { (try? s.run(schedule, seed: 1))?.events ?? 0 }
            }
            let short = timed(rounds: max(3, rounds), runs(runWorkload(actions: flat.short)))
            let longer = timed(rounds: max(3, rounds), runs(runWorkload(actions: flat.long)))
            func perEvent(_ seconds: Double, _ events: Int) -> Double { seconds * 1e9 / Double(max(1, events)) }
            let nsShort = perEvent(short.seconds, short.events), nsLong = perEvent(longer.seconds, longer.events)
            let cpuShort = perEvent(short.cpuSeconds, short.events), cpuLong = perEvent(longer.cpuSeconds, longer.events)
            let longRun = long.map { n -> (seconds: Double, cpuSeconds: Double, events: Int) in
                var c = config
                c.actions = n
                return timed(rounds: 1, runs(c))
            }
            let row = Row(strategy: s.name, schedules: seeds, events: ev, rounds: rounds, oneJobSeconds: t1,
                          oneJobEventsPerSecond: Double(ev) / t1, oneJobSchedulesPerSecond: Double(seeds) / t1,
                          oneJobCPUSeconds: BenchSpread(oneCPU).median,
                          jobs: jobs, manyJobsSeconds: tn, manyJobsEventsPerSecond: Double(ev) / tn,
                          manyJobsCPUSeconds: BenchSpread(manyCPU).median,
                          speedup: speedup.median, speedupMin: speedup.min, speedupMax: speedup.max,
                          flatEventsShort: short.events, flatEventsLong: longer.events,
                          nsPerEventShort: nsShort, nsPerEventLong: nsLong, costGrowth: nsLong / nsShort,
                          cpuNsPerEventShort: cpuShort, cpuNsPerEventLong: cpuLong,
                          cpuCostGrowth: cpuShort > 0 ? cpuLong / cpuShort : 0,
                          longRunSeconds: longRun?.seconds, longRunEvents: longRun?.events)
            rows.append(row)
            if !json {
                var line = row.strategy.rightPad(14) + String(format: " %6ld schedules %9ld events | 1 job: %8.0f events/s %7.1f schedules/s | %ld jobs: %8.0f events/s (×%.2f",
                                                            seeds, ev, row.oneJobEventsPerSecond, row.oneJobSchedulesPerSecond,
                                                            jobs, row.manyJobsEventsPerSecond, row.speedup)
                if rounds > 1 { line += String(format: ", ×%.2f–×%.2f in %ld rounds", row.speedupMin, row.speedupMax, rounds) }
                line += String(format: "; cpu ×%.2f)", row.oneJobCPUSeconds > 0 ? row.manyJobsCPUSeconds / row.oneJobCPUSeconds : 0)
                line += String(format: " | ns/event run --seed 1 --actions %ld→%ld (%ld→%ld events): %.0f→%.0f (×%.2f; cpu ×%.2f)",
                               flat.short, flat.long, short.events, longer.events, nsShort, nsLong, row.costGrowth, row.cpuCostGrowth)
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
            struct Out: Encodable { var build: String; var flatCostActions: [Int]; var flatCostCommand: String; var longRunActions: Int?; var strategies: [Row]; var shrink: Shrink }
            struct Shrink: Encodable { var failure: String; var fromActions: Int; var toActions: Int; var medianSeconds: Double }
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys, .prettyPrinted]
            let out = Out(build: build, flatCostActions: [flat.short, flat.long], flatCostCommand: "run --strategy S --seed 1 --actions N", longRunActions: long, strategies: rows, shrink: Shrink(failure: "sharedDiff noGhostDeletion seed 0", fromActions: standard.actions.count,
                                                           toActions: shrunk, medianSeconds: shrinkMedian))
            ctx.print(String(decoding: try e.encode(out), as: UTF8.self))
        } else {
            ctx.print("shrink (sharedDiff noGhostDeletion, seed 0): \(standard.actions.count) → \(shrunk) actions, median of 5: " + String(format: "%.3f s", shrinkMedian))
        }
        return ExitCode.ok
    }
}
