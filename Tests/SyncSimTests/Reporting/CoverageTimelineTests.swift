import Foundation
import Testing
@testable import SyncSim

/// Coverage over time: novelty by run in seed order, independent of the order records arrive in
/// (jobs, shards), carried in report.json and recomputed for reports written before it existed.
@Suite struct CoverageTimelineTests {
    static let lost = Situation.messageLost.rawValue, offline = Situation.writeWhileOffline.rawValue
    static let queue = Situation.queueFull.rawValue, unsettled = Situation.unsettled.rawValue

    static func record(_ seed: UInt64, _ situations: [String]) -> RunRecord {
        RunRecord(strategy: "s", seed: seed, violated: [], explanations: [], events: 1, settled: true, convergeMs: nil,
                  userWrites: 0, messages: 0, maxPending: 0, writesLost: 0, staleOverwrites: 0, actionKinds: [:], faults: [],
                  situations: situations, traceHash: "")
    }

    static let records = [record(5, [lost]), record(1, [offline]), record(2, [offline, lost]), record(9, [queue, unsettled]),
                          record(3, [])]

    @Test func noveltyIsCountedInSeedOrder() {
        let t = CoverageTimeline(records: Self.records, goals: [("queueCapNoSilentDrop", Self.queue), ("clientWriteOrder", Self.lost)])
        #expect(t.runs == 5)
        // Seeds in order: 1 (offline new), 2 (lost new), 3, 5, 9 (queue new; unsettled is a symptom).
        #expect(t.situations == [.init(run: 1, seed: 1, new: [Self.offline]), .init(run: 2, seed: 2, new: [Self.lost]),
                                 .init(run: 5, seed: 9, new: [Self.queue])])
        #expect(t.reachGoals == [.init(run: 2, seed: 2, new: ["clientWriteOrder"]), .init(run: 5, seed: 9, new: ["queueCapNoSilentDrop"])])
        #expect(t.situationsCovered == 3 && t.reachGoalsCovered == 2 && t.reachGoalTotal == 2)
        #expect(t.situationTotal == Situation.allCases.filter { !$0.isSymptom }.count)
        #expect(t.situationSentence.hasPrefix("the last new situation appeared at run 5 of 5 (seed 9); 3 of "))
    }

    @Test func recordOrderDoesNotMatter() {
        let goals = [("clientWriteOrder", Self.lost)]
        let a = CoverageTimeline(records: Self.records, goals: goals)
        let b = CoverageTimeline(records: Self.records.reversed(), goals: goals)
        #expect(a == b)
    }

    @Test func aTimelineThatStopsFindingSaysSo() {
        let many = (0..<40).map { Self.record(UInt64($0), $0 == 3 ? [Self.lost] : []) }
        let t = CoverageTimeline(records: many, goals: [])
        #expect(t.plateaued)
        #expect(t.situationSentence.hasPrefix("the last new situation appeared at run 4 of 40 (seed 3)"))
        let late = CoverageTimeline(records: many.map { var r = $0; r.situations = r.seed == 35 ? [Self.lost] : []; return r }, goals: [])
        #expect(!late.plateaued)
    }

    /// The report carries each strategy's timeline; one decoded without it (an older report)
    /// gets the same timeline from its run records.
    @Test func reportsCarryItAndOlderReportsRecomputeIt() throws {
        let r = HTMLReportTests.report
        for s in r.strategies {
            let stored = try #require(s.coverageTimeline)
            #expect(stored.runs == s.runs)
            var old = s
            old.coverageTimeline = nil
            #expect(r.timeline(of: old) == stored)
        }
        let json = try JSONEncoder().encode(r)
        var object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        var strategies = try #require(object["strategies"] as? [[String: Any]])
        for i in strategies.indices { strategies[i]["coverageTimeline"] = nil }
        object["strategies"] = strategies
        let older = try JSONDecoder().decode(FuzzReport.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(older.strategies.allSatisfy { $0.coverageTimeline == nil })
        #expect(older.format == FuzzReport.currentFormat)
        #expect(HTMLReport.render(older) == HTMLReport.render(r))
        #expect(MarkdownReport.render(older) == MarkdownReport.render(r))
    }

    @Test func reportsShowTheCurveAndTheSentence() throws {
        let r = HTMLReportTests.report
        let html = HTMLReport.render(r)
        #expect(html.contains("id=\"coverage-over-time\""))
        #expect(HTMLReportTests.count("<svg class=\"timeline\"", in: html) == r.strategies.count)
        for part in html.components(separatedBy: "<svg class=\"timeline\"").dropFirst() {
            let svg = "<svg class=\"timeline\"" + part.components(separatedBy: "</svg>")[0]
            let texts = SequenceDiagramTests.texts(in: svg)
            #expect(texts.contains { $0.content.hasPrefix("situations ") })
            #expect(SequenceDiagramTests.overlapping(texts).isEmpty)
        }
        let md = MarkdownReport.render(r)
        for s in r.strategies {
            let t = r.timeline(of: s)
            #expect(html.contains(htmlEscape(t.situationSentence)))
            #expect(md.contains("- **\(s.name)**: \(t.situationSentence)"))
        }
    }
}
