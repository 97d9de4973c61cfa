import Foundation
import Testing
@testable import SyncSim

/// The diagrams carry the story: arrows name the writes and fields they carry, the violation
/// marker names the invariant and its explanation, the culprit transaction and necessary actions
/// are highlighted, and no two labels overlap, checked on the SVG itself.
@Suite struct SequenceDiagramTests {
    /// One `<text>` of an SVG, read back from its attributes.
    struct Text {
        var content: String
        var box: LabelBox
    }

    /// Every `<text>` element with the box `TextMetrics` gives it (tooltips excluded).
    static func texts(in svg: String) -> [Text] {
        var out: [Text] = []
        var rest = Substring(svg)
        while let start = rest.range(of: "<text ") {
            let tagEnd = rest[start.upperBound...].firstIndex(of: ">")!
            let attrs = String(rest[start.upperBound..<tagEnd])
            let close = rest[tagEnd...].range(of: "</text>")!
            var body = String(rest[rest.index(after: tagEnd)..<close.lowerBound])
            if let t = body.range(of: "</title>") { body = String(body[t.upperBound...]) }
            func attr(_ name: String) -> String? {
                guard let r = attrs.range(of: " \(name)=\"") ?? (attrs.hasPrefix("\(name)=\"") ? attrs.range(of: "\(name)=\"") : nil) else { return nil }
                return String(attrs[r.upperBound...].prefix { $0 != "\"" })
            }
            let content = body.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
            let anchor = SVGText.Anchor(rawValue: attr("text-anchor") ?? "start")!
            let box = TextMetrics.box(content, x: Double(attr("x")!)!, y: Double(attr("y")!)!,
                                      fontSize: Double(attr("font-size") ?? "11")!, anchor: anchor)
            out.append(Text(content: content, box: box))
            rest = rest[close.upperBound...]
        }
        return out
    }

    static func count(_ needle: String, in s: String) -> Int { s.components(separatedBy: needle).count - 1 }

    static func overlapping(_ texts: [Text]) -> [(String, String)] {
        var bad: [(String, String)] = []
        for i in texts.indices { for j in texts.indices where j > i && texts[i].box.overlaps(texts[j].box) { bad.append((texts[i].content, texts[j].content)) } }
        return bad
    }

    /// A busy real run: three clients, the stress of a generated seed, hundreds of lines.
    static let busy: (result: RunResult, schedule: Schedule) = {
        var best: (RunResult, Schedule)?
        for seed: UInt64 in 0..<12 {
            let s = WorkloadGenerator().generate(seed: seed)
            guard s.options.clients >= 3 else { continue }
            let r = try! simulate(StrategyRegistry.named("instant")!, s, seed: seed, trace: .full)
            if r.trace.count > (best?.0.trace.count ?? 0) { best = (r, s) }
            if r.trace.count >= 300 { break }
        }
        return best!
    }()

    @Test func noTwoLabelsOverlapOnABusyRun() throws {
        let (r, s) = Self.busy
        #expect(r.trace.count >= 200, "the run should be busy")
        let v = r.violations.first
        let notes = SequenceDiagram.Notes(invariant: v?.invariant.rawValue ?? "convergence",
                                          explanation: v?.explanation ?? "an explanation long enough to need clipping " + String(repeating: "and more ", count: 30),
                                          necessaryActions: SequenceDiagram.actionMarks(Array(0..<min(8, s.actions.count)), in: s))
        let svg = SequenceDiagram.svg(trace: r.trace, clients: s.options.clients, violationTimeMs: v?.time ?? r.trace[r.trace.count / 2].time,
                                      violationClient: v?.client?.index, id: "busy", notes: notes)
        let texts = Self.texts(in: svg)
        let drawn = SequenceDiagram.window(r.trace, violationTimeMs: v?.time).count
        // Labels left out keep their tooltip, but most must be there: the test cannot pass by drawing nothing.
        #expect(texts.count >= drawn * 3 / 4, "\(texts.count) labels for \(drawn) lines")
        let bad = Self.overlapping(texts)
        #expect(bad.isEmpty, "overlapping labels: \(bad.prefix(5))")
        // Arrows carry write ids, not only kinds.
        #expect(texts.contains { $0.content.range(of: #"^transact w\d+"#, options: .regularExpression) != nil })
    }

    @Test func everyFailureDiagramOfAReportIsFreeOfOverlaps() {
        let html = HTMLReport.render(HTMLReportTests.report)
        var checked = 0
        for part in html.components(separatedBy: "<svg class=\"seq\"").dropFirst() {
            let svg = "<svg class=\"seq\"" + part.components(separatedBy: "</svg>")[0]
            let bad = Self.overlapping(Self.texts(in: svg))
            #expect(bad.isEmpty, "overlapping labels: \(bad.prefix(5))")
            checked += 1
        }
        #expect(checked == HTMLReportTests.report.failures.filter { !$0.trace.isEmpty }.count)
    }

    /// The ghost deletion: the violation names the invariant and its explanation on the marker,
    /// the culprit transaction (tx 3, a delete with no user write) and the arrow that carried it
    /// are highlighted, and the arrow says it deletes profile#2.
    @Test func ghostDeletionCarriesTheStory() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let scenario = try Scenario.load(path: root.appendingPathComponent("Scenarios/deletes/ghost-deletion-two-subscriptions.json").path)
        let r = try simulate(StrategyRegistry.named("sharedDiff")!, scenario.schedule, seed: scenario.seed, trace: .full)
        let v = try #require(r.violations.first { $0.invariant == .noGhostDeletion })
        let notes = SequenceDiagram.Notes(invariant: v.invariant.rawValue, explanation: v.explanation,
                                          necessaryActions: SequenceDiagram.actionMarks([1, 2], in: scenario.schedule))
        #expect(notes.culpritTx == 3)
        #expect(notes.necessaryActions.map(\.index) == [1, 2])
        #expect(notes.necessaryActions.map(\.at) == [0, 1000])
        let svg = SequenceDiagram.svg(trace: r.trace, clients: 1, violationTimeMs: v.time, violationClient: v.client?.index, id: "g", notes: notes)
        let texts = Self.texts(in: svg).map(\.content)
        #expect(texts.contains { $0.hasPrefix("✗ noGhostDeletion violated at \(v.time) ms") })
        #expect(texts.contains { v.explanation.hasPrefix($0.replacingOccurrences(of: "…", with: "")) && $0.count > 20 })
        #expect(texts.contains("culprit tx 3"))
        #expect(texts.contains("transact del profile#2 +2"))
        #expect(texts.contains("transact w0 2 entities"))
        // Actions 0 and 1 both subscribe at t=0 on A: only the second is ringed.
        #expect(texts.filter { $0 == "#1" }.count == 1 && texts.filter { $0 == "#2" }.count == 1 && !texts.contains("#0"))
        #expect(Self.count("stroke=\"#f9a825\"", in: svg) == 2)
        // The carrier of the culprit is drawn thick, over a red underlay.
        #expect(svg.contains("stroke-opacity=\"0.3\" stroke-width=\"7\""))
        #expect(Self.overlapping(Self.texts(in: svg)).isEmpty)
        // Without notes: no culprit, no callout text, nothing necessary.
        let plain = SequenceDiagram.svg(trace: r.trace, clients: 1, violationTimeMs: v.time, violationClient: nil, id: "g")
        #expect(!plain.contains("culprit") && !plain.contains("stroke-width=\"7\"") && !plain.contains("#f9a825"))
    }

    @Test func userTextIsEscapedInLabelsAndCallout() {
        let trace = [TraceLine(time: 0, kind: .action, client: 0, label: "user", text: "A <b>&\"x\""),
                     TraceLine(time: 5, kind: .send, client: 0, message: 1, upward: true, label: "m<i>", text: "A sends m<i> w1 [set x#1 {<y> = 1}]"),
                     TraceLine(time: 9, kind: .deliver, client: 0, message: 1, upward: true, label: "m<i>", text: "server receives m<i>")]
        let svg = SequenceDiagram.svg(trace: trace, clients: 1, violationTimeMs: 9, violationClient: 0, id: "e",
                                      notes: .init(invariant: "<script>", explanation: "tx 1 & <img>"))
        #expect(!svg.contains("<b>") && !svg.contains("<i>") && !svg.contains("<script>") && !svg.contains("<img>") && !svg.contains("<y>"))
        #expect(svg.contains("&lt;script&gt;"))
    }

    @Test func placerNeverAcceptsAnOverlap() {
        var p = LabelPlacer()
        let a = SVGText(text: "hello world", x: 10, y: 20)
        #expect(p.place([a]) != nil)
        #expect(p.place([SVGText(text: "again", x: 30, y: 22)]) == nil)
        #expect(p.dropped == 1)
        let moved = p.place([SVGText(text: "again", x: 30, y: 22), SVGText(text: "again", x: 30, y: 40)])
        #expect(moved?.y == 40)
    }
}

extension SequenceDiagramTests {
    /// Writes the ghost-deletion diagram with every note (necessary actions included) for a visual
    /// check: `SYNCSIM_DIAGRAM_OUT=/tmp/ghost.html swift test --filter SequenceDiagramTests`.
    @Test func writesDiagramWhenAsked() throws {
        guard let path = ProcessInfo.processInfo.environment["SYNCSIM_DIAGRAM_OUT"] else { return }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let scenario = try Scenario.load(path: root.appendingPathComponent("Scenarios/deletes/ghost-deletion-two-subscriptions.json").path)
        let r = try simulate(StrategyRegistry.named("sharedDiff")!, scenario.schedule, seed: scenario.seed, trace: .full)
        let v = try #require(r.violations.first { $0.invariant == .noGhostDeletion })
        let notes = SequenceDiagram.Notes(invariant: v.invariant.rawValue, explanation: v.explanation,
                                          necessaryActions: SequenceDiagram.actionMarks([1, 2], in: scenario.schedule))
        let svg = SequenceDiagram.svg(trace: r.trace, clients: 1, violationTimeMs: v.time, violationClient: v.client?.index, id: "g", notes: notes)
        try ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>ghost deletion</title></head><body style=\"margin:8px\">"
             + "<p style=\"font:13px sans-serif\">\(htmlEscape(scenario.title)): necessary actions #1 and #2 (from a hand-written explanation)</p>"
             + svg + "</body></html>").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
