import Foundation
import Testing
@testable import SyncSim

@Suite struct HTMLReportTests {
    /// A report from real runs: a few seeds of two strategies, one failure per violated
    /// (strategy, invariant) with its full trace.
    static let report: FuzzReport = {
        let strategies = ["fullEntity", "reference"]
        var records: [RunRecord] = []
        var failures: [FuzzReport.Failure] = []
        for name in strategies {
            let strategy = StrategyRegistry.named(name)!
            for seed: UInt64 in [4, 0, 1, 2, 3] {  // the short one first: it is the diagram to look at
                let s = seed == 4 ? small : WorkloadGenerator().generate(seed: seed)
                let r = try! simulate(strategy, s, seed: seed, trace: .full)
                records.append(RunRecord(r, schedule: s))
                for inv in r.violatedInvariants where !failures.contains(where: { $0.strategy == name && $0.invariant == inv.rawValue }) {
                    let v = r.violations.first { $0.invariant == inv }!
                    failures.append(FuzzReport.Failure(
                        strategy: name, invariant: inv.rawValue, seed: seed, claimed: strategy.info.contract.contains(inv),
                        explanation: v.explanation, originalActions: s.actions.count, shrunkActions: nil,
                        scenario: "scenarios/\(name)-\(inv.rawValue)-\(seed).json",
                        replay: "syncsim replay scenarios/\(name)-\(inv.rawValue)-\(seed).json --trace",
                        trace: r.trace, clients: s.options.clients, violationTimeMs: v.time, violationClient: v.client?.index))
                }
            }
        }
        return FuzzReport.build(
            strategies: strategies.map { FuzzReport.StrategyDescription(StrategyRegistry.named($0)!.info) },
            options: .init(strategies: strategies, seeds: "0..<5", shard: nil, swarm: true, clients: nil, actions: 60, shrink: false),
            complete: true, records: records, failures: failures,
            timing: .init(startedAt: "2025-01-01T00:00:00Z", wallSeconds: 1.25, runsPerSecond: 6.4, shrinkSeconds: 0))
    }()

    /// A short, shrunk-looking schedule: two clients edit different fields of one todo while
    /// offline, then a restart and a reconnect.
    static let small: Schedule = {
        let a = ClientID(0), b = ClientID(1), todo = EntityID(1)
        var o = SimulationOptions()
        o.clients = 2
        o.latencyMinMs = 20
        o.latencyMaxMs = 60
        return Schedule(options: o, actions: [
            TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 0, .subscribe(b, SubscriptionID(2), Query(.todos))),
            TimedAction(at: 100, .create(a, todo, .todos, [FieldAssignment(.title, .string("buy milk"))])),
            TimedAction(at: 600, .goOffline(a)),
            TimedAction(at: 650, .goOffline(b)),
            TimedAction(at: 900, .update(a, todo, [FieldAssignment(.title, .string("buy oat milk"))])),
            TimedAction(at: 1_000, .update(b, todo, [FieldAssignment(.priority, .int(3))])),
            TimedAction(at: 20_000, .goOnline(a)),
            TimedAction(at: 20_400, .serverUnreachable(b)),
            TimedAction(at: 20_500, .goOnline(b)),
            TimedAction(at: 21_000, .restart(a)),
            TimedAction(at: 22_000, .serverReachable(b)),
        ])
    }()

    static func count(_ needle: String, in s: String) -> Int { s.components(separatedBy: needle).count - 1 }

    @Test func isSelfContained() {
        let html = HTMLReport.render(Self.report)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("http"))
        #expect(!html.contains("src="))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<link"))
    }

    @Test func drawsOneDiagramPerFailure() {
        let r = Self.report
        #expect(!r.failures.isEmpty, "the fixture should produce at least one failure")
        let html = HTMLReport.render(r)
        #expect(html.contains("<svg"))
        #expect(Self.count("<svg class=\"seq\"", in: html) == r.failures.count)
        // The other SVGs are the coverage-over-time charts, one per strategy.
        #expect(Self.count("<svg", in: html) == r.failures.count + r.strategies.count)
        for i in 1...r.failures.count { #expect(html.contains("id=\"failure-\(i)\"")) }
    }

    @Test func matrixHasEveryInvariantAndStrategy() {
        let html = HTMLReport.render(Self.report)
        for inv in InvariantID.allCases { #expect(html.contains("<th class=\"inv\"><span>\(inv.rawValue)</span></th>")) }
        for s in Self.report.strategies { #expect(html.contains("<div class=\"name\">\(s.name)")) }
    }

    @Test func colorsCellsByClaimAndViolation() {
        var r = Self.report
        r.strategies[0].cells[0].claimed = true
        r.strategies[0].cells[0].violations = 2
        r.strategies[0].cells[1].claimed = false
        r.strategies[0].cells[1].violations = 1
        let html = HTMLReport.render(r)
        #expect(html.contains("<td class=\"c-bad\""))
        #expect(html.contains("<td class=\"c-warn\""))
        #expect(html.contains("<td class=\"c-ok\""))
    }

    @Test func escapesText() {
        var r = Self.report
        let trace = [
            TraceLine(time: 0, kind: .action, client: 0, label: "<b>&\"x\"</b>", text: "A does <script>alert(1)</script> & more"),
            TraceLine(time: 10, kind: .send, client: 0, message: 1, upward: true, label: "push<&>", text: "A sends <&>"),
            TraceLine(time: 30, kind: .deliver, client: 0, message: 1, upward: true, label: "push<&>", text: "server receives <&>"),
        ]
        r.failures = [FuzzReport.Failure(
            strategy: "fullEntity", invariant: "convergence", seed: 1, claimed: true, explanation: "x < y && y > z",
            originalActions: 3, shrunkActions: 1, scenario: "a\"b.json", replay: "syncsim replay 'a<b>.json'",
            trace: trace, clients: 1, violationTimeMs: 30, violationClient: 0)]
        let html = HTMLReport.render(r)
        #expect(!html.contains("<script"))
        #expect(!html.contains("<b>&"))
        #expect(!html.contains("push<&>"))
        #expect(html.contains("push&lt;&amp;&gt;"))
        #expect(html.contains("x &lt; y &amp;&amp; y &gt; z"))
        #expect(html.contains("href=\"a&quot;b.json\""))
        #expect(html.contains("&#39;a&lt;b&gt;.json&#39;"))
    }

    @Test func isDeterministic() {
        let a = HTMLReport.render(Self.report)
        let b = HTMLReport.render(Self.report)
        #expect(a == b)
        // And after a JSON round trip (report.json → report.html).
        let data = try! JSONEncoder().encode(Self.report)
        let decoded = try! JSONDecoder().decode(FuzzReport.self, from: data)
        #expect(HTMLReport.render(decoded) == a)
    }

    @Test func capsLongTraces() {
        let lines = (0..<1_000).map { TraceLine(time: Int64($0) * 10, kind: .timer, client: nil, label: "t", text: "tick \($0)") }
        let svg = SequenceDiagram.svg(trace: lines, clients: 2, violationTimeMs: 9_000, violationClient: nil, id: "x")
        #expect(Self.count("<circle", in: svg) <= SequenceDiagram.maxLines + 1)
        let w = SequenceDiagram.window(lines, violationTimeMs: 9_000)
        #expect(w.count == SequenceDiagram.maxLines && w.contains(900))
    }

    /// Writes the page for a visual check: `SYNCSIM_HTML_OUT=/tmp/report.html swift test --filter HTMLReport`.
    @Test func writesPageWhenAsked() throws {
        guard let path = ProcessInfo.processInfo.environment["SYNCSIM_HTML_OUT"] else { return }
        try HTMLReport.render(Self.report).write(toFile: path, atomically: true, encoding: .utf8)
    }
}
