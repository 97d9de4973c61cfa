import Testing
@testable import SyncSim

/// Export a simulated run as a history, check it, compare: the check must report exactly the
/// run's violations (same invariant, time, client, entity and explanation), for every built-in
/// strategy. The seeds include runs with violations (the known-bad strategies fail on most), so
/// equality is not vacuous; `syncsim check --roundtrip 0..<500` runs the same over more seeds.
@Suite struct HistoryRoundTripTests {
    @Test(arguments: AnyStrategy.builtIns.map(\.name))
    func exportedRunChecksToTheSameViolations(_ name: String) throws {
        let strategy = AnyStrategy.builtIns.first { $0.name == name }!
        // Short schedules keep `swift test` fast; the stress profile still draws its share.
        let config = WorkloadGenerator.Config(actions: 25)
        var violations = 0
        for seed in UInt64(0)..<6 {
            let (mismatch, lines, v) = try HistoryRoundTrip.compare(strategy, seed: seed, config)
            #expect(mismatch == nil, "\(mismatch!)")
            #expect(lines > 10)
            violations += v
        }
        if strategy.info.knownBad { #expect(violations > 0, "a known-bad strategy with no violation makes this test vacuous") }
    }

    /// Exporting changes nothing about the run.
    @Test func exportLeavesTheRunUnchanged() throws {
        for strategy in AnyStrategy.builtIns {
            let schedule = strategy.schedule(seed: 3, .init(actions: 25))
            let plain = try strategy.run(schedule, seed: 3)
            var n = 0
            let exported = try strategy.run(schedule, seed: 3, history: { _ in n += 1 })
            #expect(plain.traceHash == exported.traceHash)
            #expect(plain.violations == exported.violations)
            #expect(n > 0)
        }
    }
}
