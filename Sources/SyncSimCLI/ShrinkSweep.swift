import Foundation

/// `shrink --seeds A..B`: shrinks every failure in a range and prints the distribution of
/// shrunk lengths and shrink times per invariant — the shrinker's own benchmark and regression
/// check (exit 1 when a case stays over 10 actions, takes over 2 s, or stops failing).
///
/// `budget` (and Ctrl-C) bound the sweep like `fuzz --time-budget`: checked before each seed and
/// shrink, inside runs and inside shrinking. Seeds and shrinks it stops are unfinished: left out
/// of the figures (never counted as passed or failed) and named in the output.
enum ShrinkSweep {
    /// Sweeps materialise per-seed results; more seeds than this is a usage error.
    static let maxSeeds: UInt64 = 1_000_000

    struct Row: Sendable { var inv: InvariantID; var seed: UInt64; var before: Int; var after: Int; var seconds: Double; var kept: Bool }

    static func run(_ strategy: AnyStrategy, _ range: SeedRange, jobs: Int, config: WorkloadGenerator.Config,
                    budgetSeconds: Double?, interrupted: @escaping @Sendable () -> Bool, _ ctx: CLIContext) -> Int32 {
        let lower = range.lowerBound
        let deadline = budgetSeconds.map { WallClock.seconds() + $0 } ?? .infinity
        let halt = RunStop { WallClock.seconds() > deadline || interrupted() }
        // Seed by seed: run it, then shrink each invariant it violates, so a budget yields
        // whole seeds (a sample of the range), not a first phase that eats it all. nil: the
        // seed's run or one of its shrinks was stopped half-way (unfinished).
        var perSeed: [[Row]?] = ParallelRunner.prefix(Int(range.count), jobs: jobs, shouldStop: halt.shouldStop) { i in
            let seed = lower + UInt64(i)
            let s = strategy.schedule(seed: seed, config)
            return RunStop.$current.withValue(halt) { () -> [Row]? in
                guard let r = try? strategy.run(s, seed: seed) else { return [] }
                if r.interrupted { return nil }
                var rows: [Row] = []
                for inv in r.violatedInvariants {
                    let t0 = WallClock.seconds()
                    let out = strategy.shrink(s, seed: seed, invariant: inv, shouldStop: halt.shouldStop)
                    let dt = WallClock.seconds() - t0
                    if halt.shouldStop() { return nil }
                    // The shrunk schedule must replay to the same invariant.
                    let kept = out.map { o in (try? strategy.run(o.schedule, seed: seed))?.violations.contains { $0.invariant == inv } ?? false } ?? false
                    rows.append(Row(inv: inv, seed: seed, before: s.actions.count, after: out?.schedule.actions.count ?? -1, seconds: dt, kept: kept))
                }
                return rows
            }
        }
        if let cut = perSeed.firstIndex(where: { $0 == nil }) { perSeed.removeSubrange(cut...) }
        let rows = perSeed.flatMap { $0 ?? [] }
        if perSeed.count < Int(range.count) {
            let why = interrupted() ? "interrupted" : "the time budget ran out"
            ctx.print("INCOMPLETE (\(why)): \(perSeed.count) of \(range.count) seeds run and shrunk; the figures below cover those seeds only (the seed in progress is left out)")
        }
        func med<T: Comparable>(_ x: [T]) -> T { x.sorted()[x.count / 2] }
        func line(_ label: String, _ r: [Row]) -> String {
            label.rightPad(30) + String(format: " %4ld   %6ld / %-6ld          %3ld / %-3ld       %.3f / %.3f", r.count,
                                        med(r.map(\.before)), r.map(\.before).max()!, med(r.map(\.after)), r.map(\.after).max()!,
                                        med(r.map(\.seconds)), r.map(\.seconds).max()!)
        }
        let covered = perSeed.count < Int(range.count) ? "\(lower)..<\(lower + UInt64(perSeed.count))" : "\(range)"
        ctx.print("\(strategy.name): \(rows.count) failures in seeds \(covered) (\(Set(rows.map(\.seed)).count) failing seeds)")
        ctx.print("invariant                         n   actions before med/max   after med/max   seconds med/max")
        for inv in ctx.invariants.ids {
            let r = rows.filter { $0.inv == inv }
            guard !r.isEmpty else { continue }
            let worst = r.max { ($0.after, $1.seed) < ($1.after, $0.seed) }!
            ctx.print(line(inv.rawValue, r) + "   (longest: seed \(worst.seed))")
        }
        if !rows.isEmpty { ctx.print(line("all", rows)) }
        let big = rows.filter { $0.after > 10 }, slow = rows.filter { $0.seconds > 2 }, lost = rows.filter { !$0.kept }
        ctx.print("over 10 actions: \(big.count)\(big.prefix(5).map { " [seed \($0.seed) \($0.inv) → \($0.after)]" }.joined())")
        ctx.print("over 2 s: \(slow.count)\(slow.prefix(5).map { " [seed \($0.seed) \($0.inv) \(String(format: "%.2f", $0.seconds)) s]" }.joined())")
        ctx.print("shrunk schedule no longer violating the same invariant: \(lost.count)")
        return big.isEmpty && slow.isEmpty && lost.isEmpty ? ExitCode.ok : ExitCode.violation
    }
}
