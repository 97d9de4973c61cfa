import Testing
@testable import SyncSim

/// `FuzzConfiguration.baseline` (`fuzz --baseline S`): a strategy keeps only the violations its
/// baseline does not show on the same schedule, and those are shrunk while the baseline passes.
@Suite struct DifferentialFuzzTests {
    /// fullEntity is instant with whole-entity saves: against instant, only what whole-entity
    /// saves break remains (disjointFieldMerge), not what both do (noResurrection).
    @Test func keepsOnlyWhatTheBaselineDoesNotAlsoBreak() throws {
        var alone = FuzzConfiguration(seeds: SeedRange(0..<6), jobs: 1, shrink: false)
        let solo = try FuzzDriver(strategies: [.init(FullEntityStrategy())], configuration: alone).run().report
        let soloCells = try #require(solo.strategies.first).cells
        #expect(soloCells.contains { $0.invariant == "noResurrection" && $0.violations > 0 })
        #expect(soloCells.contains { $0.invariant == "disjointFieldMerge" && $0.violations > 0 })

        alone.baseline = AnyStrategy(InstantStrategy())
        alone.shrink = true
        alone.shrinkMaxRuns = 150
        let result = try FuzzDriver(strategies: [.init(FullEntityStrategy())], configuration: alone).run()
        let cells = try #require(result.report.strategies.first).cells
        #expect(!cells.contains { $0.invariant == "noResurrection" && $0.violations > 0 })
        #expect(cells.contains { $0.invariant == "disjointFieldMerge" && $0.violations > 0 })
        // Shrunk while the baseline still passes: instant keeps disjointFieldMerge on the result.
        let shrunk = try #require(result.scenarios.first { $0.file.contains("disjointFieldMerge") })
        let seed = try #require(shrunk.scenario.origin?.seed)
        let base = try AnyStrategy(InstantStrategy()).run(shrunk.scenario.schedule, seed: seed)
        #expect(!base.violations.contains { $0.invariant == .disjointFieldMerge })
        let mine = try AnyStrategy(FullEntityStrategy()).run(shrunk.scenario.schedule, seed: seed)
        #expect(mine.violations.contains { $0.invariant == .disjointFieldMerge })
    }
}
