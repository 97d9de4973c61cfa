/// The format's both-ways test: simulate a seed, export the run as a history, check the history,
/// and compare. A check of an exported run must report exactly the run's violations — same
/// invariants, entities, clients, times and explanations — or the history format (or the
/// replayer) lost something the oracles read. `swift test` runs it over a small seed range per
/// built-in; `syncsim check --roundtrip 0..<500` (and `.ci/check-history-roundtrip`) over more.
public enum HistoryRoundTrip {
    /// A seed whose check disagreed with its run.
    public struct Mismatch: Sendable, CustomStringConvertible {
        public var strategy: String
        public var seed: UInt64
        /// Violations of the run the check did not report.
        public var missing: [Violation]
        /// Violations the check reported that the run did not have.
        public var extra: [Violation]
        /// A format error in the exported history (the export wrote something the reader refuses).
        public var formatError: String?

        public var description: String {
            if let formatError { return "\(strategy) seed \(seed): the exported history does not read back: \(formatError)" }
            return "\(strategy) seed \(seed): check missed \(missing.count) and added \(extra.count) violation(s)"
                + (missing.first.map { "; first missed: \($0)" } ?? "") + (extra.first.map { "; first added: \($0)" } ?? "")
        }
    }

    /// Runs `seed` under `strategy` with export, checks the history, returns the disagreement (nil:
    /// exact), the number of history lines and of the run's violations (a check that agrees on
    /// zero violations proves less than one that agrees on several).
    public static func compare(_ strategy: AnyStrategy, seed: UInt64, _ config: WorkloadGenerator.Config = .init()) throws -> (Mismatch?, lines: Int, violations: Int) {
        let schedule = strategy.schedule(seed: seed, config)
        var lines: [String] = []
        let run = try strategy.run(schedule, seed: seed, history: { lines.append($0) })
        let result: HistoryCheck.Result
        do {
            result = try HistoryCheck.check(lines: lines, file: "\(strategy.name)-seed\(seed).jsonl")
        } catch {
            return (Mismatch(strategy: strategy.name, seed: seed, missing: [], extra: [], formatError: error.description), lines.count, run.violations.count)
        }
        let custom = Set(run.customInvariants)
        let expected = run.violations.filter { !custom.contains($0.invariant) }
        let got = result.violations
        if expected == got { return (nil, lines.count, expected.count) }
        let missing = expected.filter { !got.contains($0) }
        let extra = got.filter { !expected.contains($0) }
        return (Mismatch(strategy: strategy.name, seed: seed, missing: missing, extra: extra, formatError: nil), lines.count, expected.count)
    }
}
