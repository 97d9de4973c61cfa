import Foundation
import Testing
@testable import SyncSim

/// Fuzz explains each shrunk failure within its budget, and every report format shows it.
@Suite struct FuzzExplanationTests {
    static let legacy = AnyStrategy(Relabelled(InstantStrategy(), name: "legacy", contract: []))

    @Test func shrunkFailuresCarryTheirExplanationIntoEveryReport() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-fuzz-explain-\(getpid())").path
        var c = FuzzConfiguration(seeds: SeedRange(1..<2), jobs: 1, shrinkMaxRuns: 80, reportDirectory: dir)
        c.explainMaxRuns = 300
        let r = try FuzzDriver(strategies: [Self.legacy], configuration: c).run().report
        let f = try #require(r.failures.first { $0.invariant == "noResurrection" })
        let e = try #require(f.explain)
        #expect(e.invariant == "noResurrection" && e.strategy == "legacy" && e.actions.count == f.shrunkActions)
        #expect(!e.necessaryActions.isEmpty && e.runs <= 301)
        // The same explanation replayed from the scenario file the run wrote.
        let sc = try Scenario.load(path: "\(dir)/\(try #require(f.scenario))")
        let again = try Explainer(strategy: Self.legacy, seed: sc.seed, budget: ExplainBudget(maxRuns: 300)).explain(sc.schedule, invariant: .noResurrection)
        #expect(again == e)
        let json = try String(contentsOfFile: "\(dir)/report.json", encoding: .utf8)
        #expect(json.contains("\"necessaryActions\""))
        let md = try String(contentsOfFile: "\(dir)/report.md", encoding: .utf8)
        #expect(md.contains("**Explanation** (\(e.runs) counterfactual replays)") && md.contains("point of no return"))
        let html = try String(contentsOfFile: "\(dir)/report.html", encoding: .utf8)
        #expect(html.contains("<details class=\"explanation\" open><summary>Explanation: the failure needs actions #"))
        // The diagram rings the necessary actions, located through the shrunk schedule.
        let marks = try #require(f.necessaryMarks)
        #expect(marks.map(\.index) .allSatisfy { e.necessaryActions.contains($0) } && !marks.isEmpty)
        #expect(html.contains("stroke=\"#f9a825\" stroke-width=\"2.5\""))
        #expect(html.contains("necessary action (#n: its index in the scenario file)"))

        // explainMaxRuns 0: no explanation, and the report JSON has no trace of one.
        c.explainMaxRuns = 0
        c.reportDirectory = nil
        let plain = try FuzzDriver(strategies: [Self.legacy], configuration: c).run().report
        #expect(plain.failures.allSatisfy { $0.explain == nil })
        #expect(plain.failures.allSatisfy { $0.necessaryMarks == nil })
        #expect(!(try ReportWriter.json(plain)).contains("necessaryActions"))
    }
}
