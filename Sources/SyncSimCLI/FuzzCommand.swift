import Foundation
import SyncSim

struct FuzzCommand: Command {
    static let name = "fuzz"
    static let summary = "Fuzz strategies over many seeds, shrink failures, write comparison reports"
    static let help = """
    USAGE: syncsim fuzz [options]

    Runs every selected strategy on the schedules generated from a range of seeds (the same
    schedule for every strategy, so they compare like for like), shrinks the first failure of
    each (strategy, invariant), and writes report.md, report.json, report.html and junit.xml.

    OPTIONS:
      --strategy NAME|all   a strategy to fuzz (repeatable; default all)
      --seeds A..B          seeds A up to B, B excluded (default 0..200)
      --count N --start S   the same as --seeds S..S+N
      --shard K/N           only the seeds at positions ≡ K-1 (mod N): disjoint shards for CI
                            matrices; 'syncsim merge' joins their report folders
      --jobs N              parallel simulations (default: all cores); each stays single-threaded
                            and deterministic, and the report does not depend on N
      --time-budget 60s     stop cleanly when the budget is spent (s, m or ms; default 240s) and
                            report what ran; 0 for no budget
      --stop-on-first       stop at the first contract violation
      --no-shrink           report failures without shrinking them
      --report-dir DIR      where to write (default Reports/<UTC time>-<run id>)
      --no-swarm            uniform mix instead of swarm testing
      --clients N, --actions N   as for 'syncsim run' (default: drawn per seed, 60 actions)
      --quiet               no progress lines

    EXIT CODES: 0 every strategy met its contract (a known-bad strategy failing an invariant it
    does not claim is expected and reported, not an error), 1 a contract violation, 2 bad input.

    EXAMPLES:
      syncsim fuzz
      syncsim fuzz --strategy instant --strategy reference --seeds 0..2000 --jobs 2
      syncsim fuzz --shard 1/4 --report-dir Reports/shard-1 && syncsim merge Reports/shard-*
    """

    static func parseBudget(_ s: String) throws -> Double {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        for (u, f) in units where s.hasSuffix(u) {
            if let v = Double(s.dropLast(u.count)), v >= 0 { return v * f }
        }
        if let v = Double(s), v >= 0 { return v }
        throw UsageError("--time-budget expects a duration such as 60s, 5m or 1500ms, got '\(s)'")
    }

    static func parseRange(_ s: String) throws -> Range<UInt64> {
        let parts = s.components(separatedBy: "..")
        guard parts.count == 2, let a = UInt64(parts[0]), let b = UInt64(parts[1].hasPrefix("<") ? String(parts[1].dropFirst()) : parts[1]), a < b else {
            throw UsageError("--seeds expects A..B with whole numbers A < B (B excluded), got '\(s)'")
        }
        return a..<b
    }

    static func run(_ args: inout Arguments) throws -> Int32 {
        var names = try args.values("--strategy")
        let seedsArg = try args.value("--seeds")
        let count = try args.int("--count", in: 1...100_000_000)
        let start = try args.seed("--start")
        let shardArg = try args.value("--shard")
        let jobs = try args.int("--jobs", in: 1...256) ?? defaultJobs
        let budget = try (args.value("--time-budget")).map(parseBudget) ?? 240
        let stopOnFirst = args.flag("--stop-on-first")
        let noShrink = args.flag("--no-shrink")
        let reportDirArg = try args.value("--report-dir")
        let noSwarm = args.flag("--no-swarm")
        _ = args.flag("--swarm")
        let clients = try args.int("--clients", in: 1...26)
        let actions = try args.int("--actions", in: 1...100_000) ?? 60
        let quiet = args.flag("--quiet")
        try args.finish()

        if names.isEmpty || names.contains("all") { names = StrategyRegistry.names }
        var strategies: [any SyncStrategy] = []
        for n in names {
            guard let s = StrategyRegistry.named(n) else {
                throw UsageError("unknown strategy '\(n)' for --strategy; valid values: all, \(StrategyRegistry.names.joined(separator: ", "))")
            }
            if !strategies.contains(where: { $0.info.name == n }) { strategies.append(s) }
        }
        if seedsArg != nil && (count != nil || start != nil) { throw UsageError("use either --seeds A..B or --count N --start S, not both") }
        let range: Range<UInt64>
        if let seedsArg { range = try parseRange(seedsArg) }
        else if let count { let s = start ?? 0; range = s..<(s + UInt64(count)) }
        else { range = (start ?? 0)..<((start ?? 0) + 200) }
        var shard: (k: Int, n: Int)?
        if let shardArg {
            let p = shardArg.split(separator: "/").compactMap { Int($0) }
            guard p.count == 2, p[1] >= 1, p[0] >= 1, p[0] <= p[1] else {
                throw UsageError("--shard expects K/N with 1 ≤ K ≤ N, e.g. 2/4, got '\(shardArg)'")
            }
            shard = (p[0], p[1])
        }
        let seeds = range.enumerated().filter { shard == nil || $0.offset % shard!.n == shard!.k - 1 }.map(\.element)
        let options = FuzzReport.Options(strategies: strategies.map(\.info.name), seeds: "\(range.lowerBound)..<\(range.upperBound)",
                                         shard: shard.map { "\($0.k)/\($0.n)" }, swarm: !noSwarm, clients: clients, actions: actions, shrink: !noShrink)
        let runID = String(StableHasher.digest(OptionsKey(options)).prefix(8))
        let reportDir = reportDirArg ?? "Reports/\(utcStamp())-\(runID)"

        let gen = WorkloadGenerator(.init(clients: clients, actions: actions, swarm: !noSwarm))
        let t0 = wallSeconds()
        let deadline = budget > 0 ? t0 + budget : Double.infinity
        // Jobs in seed-major order, so a budget cuts every strategy at about the same seed.
        let plan = seeds.flatMap { seed in strategies.indices.map { (seed, $0) } }
        let progress = Progress(total: plan.count, quiet: quiet)
        // Schedules are generated inside the jobs (cheap next to a run), so a huge seed range
        // costs nothing up front and a time budget is honoured from the first second.

        let stop = StopFlag()
        let chosen = strategies
        let results: [RunRecord?] = parallelMap(plan.count, jobs: jobs) { i in
            if stop.isSet || wallSeconds() > deadline { return nil }
            let (seed, si) = plan[i]
            let s = chosen[si]
            let schedule = gen.generate(seed: seed)
            guard let r = try? simulate(s, schedule, seed: seed) else { return nil }
            let rec = RunRecord(r, schedule: schedule)
            let contractBroken = r.violations.contains { s.info.contract.contains($0.invariant) }
            if stopOnFirst && contractBroken { stop.set() }
            progress.done(failed: !rec.violated.isEmpty)
            return rec
        }
        progress.finish()
        let records = results.compactMap { $0 }
        let complete = records.count == plan.count

        // Shrink the first failing seed of each (strategy, invariant).
        var cells: [(Int, InvariantID, UInt64)] = []
        for (si, s) in strategies.enumerated() {
            for inv in InvariantID.allCases {
                if let seed = records.filter({ $0.strategy == s.info.name && $0.violated.contains(inv.rawValue) }).map(\.seed).min() {
                    cells.append((si, inv, seed))
                }
            }
        }
        let ts = wallSeconds()
        let cellsToShrink = cells
        let chosenToShrink = strategies
        let failures: [FuzzReport.Failure] = parallelMap(cellsToShrink.count, jobs: jobs) { i in
            let (si, inv, seed) = cellsToShrink[i]
            return makeFailure(chosenToShrink[si], inv, seed: seed, schedule: gen.generate(seed: seed), shrink: !noShrink,
                               deadline: deadline, reportDir: reportDir, clients: clients, actions: actions, swarm: !noSwarm)
        }
        let shrinkSeconds = wallSeconds() - ts
        let wall = wallSeconds() - t0
        let timing = FuzzReport.Timing(startedAt: isoStamp(), wallSeconds: (wall * 100).rounded() / 100,
                                       runsPerSecond: (Double(records.count) / max(wall - shrinkSeconds, 1e-9) * 10).rounded() / 10,
                                       shrinkSeconds: (shrinkSeconds * 100).rounded() / 100)
        let report = FuzzReport.build(options: options, complete: complete, records: records, failures: failures, timing: timing)
        try ReportWriter.write(report, to: reportDir)
        printSummary(report, dir: reportDir)
        return report.allContractsMet ? ExitCode.ok : ExitCode.violation
    }

    /// The part of the options that identifies a run (for the run id).
    struct OptionsKey: StableHashable {
        let o: FuzzReport.Options
        init(_ o: FuzzReport.Options) { self.o = o }
        func stableHash(into h: inout StableHasher) {
            for s in o.strategies { h.combine(s) }
            h.combine(o.seeds); h.combine(o.shard ?? ""); h.combine(o.swarm); h.combine(o.clients ?? 0); h.combine(o.actions); h.combine(o.shrink)
        }
    }

    static func makeFailure(_ s: any SyncStrategy, _ inv: InvariantID, seed: UInt64, schedule: Schedule, shrink: Bool,
                            deadline: Double, reportDir: String, clients: Int?, actions: Int, swarm: Bool) -> FuzzReport.Failure {
        let name = s.info.name
        let original = (try? simulate(s, schedule, seed: seed))
        let first = original?.violations.first { $0.invariant == inv }
        var runCmd = "swift run syncsim run --strategy \(name) --seed \(seed)"
        if let clients { runCmd += " --clients \(clients)" }
        if actions != 60 { runCmd += " --actions \(actions)" }
        if !swarm { runCmd += " --no-swarm" }
        var failure = FuzzReport.Failure(strategy: name, invariant: inv.rawValue, seed: seed, claimed: s.info.contract.contains(inv),
                                         explanation: first?.explanation ?? "", originalActions: schedule.actions.count,
                                         shrunkActions: nil, scenario: nil, replay: runCmd, trace: [], clients: schedule.options.clients,
                                         violationTimeMs: first?.time, violationClient: first?.client?.index)
        guard shrink, wallSeconds() < deadline else { return failure }
        func open<S: SyncStrategy>(_ st: S) -> Shrinker.Outcome? {
            var sh = Shrinker(invariant: inv, run: { c in
                wallSeconds() > deadline ? nil : (try? Simulator.run(st, c, seed: seed))?.violations
            })
            sh.maxRuns = 3_000
            return sh.shrink(schedule)
        }
        guard let out = open(s), let shrunk = try? simulate(s, out.schedule, seed: seed, trace: .full),
              let v = shrunk.violations.first(where: { $0.invariant == inv }) else { return failure }
        let file = "scenarios/\(name)-\(inv.rawValue)-seed\(seed).json"
        let scenario = Scenario(title: "\(name) violates \(inv.rawValue) (shrunk from seed \(seed))", description: v.explanation,
                                strategy: name, expect: [name: .fails(inv)],
                                origin: .init(seed: seed, shrunkFrom: seed, originalActions: schedule.actions.count), schedule: out.schedule)
        guard let text = try? scenario.encoded(), (try? writeAtomically(text, to: "\(reportDir)/\(file)")) != nil else { return failure }
        failure.shrunkActions = out.schedule.actions.count
        failure.scenario = file
        failure.replay = "swift run syncsim replay \(reportDir)/\(file)"
        failure.explanation = v.explanation
        failure.trace = shrunk.trace
        failure.clients = out.schedule.options.clients
        failure.violationTimeMs = v.time
        failure.violationClient = v.client?.index
        return failure
    }

    static func printSummary(_ r: FuzzReport, dir: String) {
        print("fuzzed \(r.options.strategies.count) strategies × \(r.seedsRun) seeds (\(r.options.seeds)\(r.options.shard.map { ", shard \($0)" } ?? ""))\(r.complete ? "" : " — stopped early")")
        for s in r.strategies {
            let violated = s.cells.filter { $0.violations > 0 }.map { "\($0.invariant)\($0.claimed ? "!" : "") \($0.violations)" }
            print("  \(s.name.padding(toLength: 15, withPad: " ", startingAt: 0)) \(s.metContract ? "met its contract" : "CONTRACT VIOLATED: \(s.contractViolations.joined(separator: ", "))")" + (violated.isEmpty ? "" : "   [\(violated.joined(separator: ", "))]"))
        }
        print("report: \(dir)/report.md  (also report.html, report.json, junit.xml)")
    }
}

/// A flag any worker may raise.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}

/// Progress on standard error: a live line on a terminal, plain periodic lines otherwise.
final class Progress: @unchecked Sendable {
    let total: Int
    let quiet: Bool
    let tty = stderrIsTerminal
    let start = wallSeconds()
    var done = 0, failed = 0
    var lastPrint = 0.0
    let lock = NSLock()

    init(total: Int, quiet: Bool) { self.total = total; self.quiet = quiet }

    func done(failed f: Bool) {
        lock.lock(); defer { lock.unlock() }
        done += 1
        if f { failed += 1 }
        let now = wallSeconds()
        let interval = tty ? 0.2 : 10
        guard !quiet, now - lastPrint >= interval || done == total else { return }
        lastPrint = now
        let rate = Double(done) / max(now - start, 1e-9)
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let line = String(format: "runs %d/%d (%.0f%%)  %.1f runs/s  runs with violations %d  ETA %.0fs", done, total, 100 * Double(done) / Double(max(total, 1)), rate, failed, eta)
        if tty { writeStandardError("\r\u{1B}[K" + line) } else { writeStandardError(line + "\n") }
    }

    func finish() { if tty && !quiet { writeStandardError("\r\u{1B}[K") } }
}

func utcStamp() -> String {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "UTC")
    f.dateFormat = "yyyyMMdd-HHmmss"
    return f.string(from: Date())
}

func isoStamp() -> String {
    let f = ISO8601DateFormatter()
    return f.string(from: Date())
}
