import Foundation
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

    /// The report says which baseline it was judged against and counts, per cell, the runs set
    /// aside because the baseline violated the invariant too; a plain report says nothing.
    @Test func reportRecordsTheBaseline() throws {
        var config = FuzzConfiguration(seeds: SeedRange(0..<6), jobs: 1, shrink: false)
        let plain = try FuzzDriver(strategies: [.init(FullEntityStrategy())], configuration: config).run().report
        #expect(plain.options.baseline == nil)
        #expect(plain.strategies[0].cells.allSatisfy { $0.sharedWithBaseline == nil })
        #expect(!MarkdownReport.render(plain).contains("Differential mode"))
        let soloResurrections = try #require(plain.strategies[0].cells.first { $0.invariant == "noResurrection" }).violations
        #expect(soloResurrections > 0)

        config.baseline = AnyStrategy(InstantStrategy())
        let diff = try FuzzDriver(strategies: [.init(FullEntityStrategy())], configuration: config).run().report
        #expect(diff.options.baseline == "instant")
        let res = try #require(diff.strategies[0].cells.first { $0.invariant == "noResurrection" })
        // Every resurrection fullEntity shows, instant shows on the same schedule: all set aside.
        #expect(res.violations == 0 && res.sharedWithBaseline == soloResurrections, "\(res)")
        let dfm = try #require(diff.strategies[0].cells.first { $0.invariant == "disjointFieldMerge" })
        #expect(dfm.violations > 0 && dfm.sharedWithBaseline == 0)
        let md = MarkdownReport.render(diff)
        #expect(md.contains("Differential mode: baseline `instant`"), "\(md.prefix(600))")
        #expect(md.contains("noResurrection \(soloResurrections)"))
        let html = HTMLReport.render(diff)
        #expect(html.contains("Differential mode: baseline instant"))
        // report.json keeps it (a merged or reloaded report still says so).
        let json = try JSONEncoder().encode(diff)
        let back = try JSONDecoder().decode(FuzzReport.self, from: json)
        #expect(back.options.baseline == "instant" && back.strategies[0].cells == diff.strategies[0].cells)
    }
}
