import Foundation

/// The reports of `syncsim check`: `report.md`, `report.html` (with a sequence diagram of the
/// history around each violation, drawn by `SequenceDiagram` as fuzz reports draw runs),
/// `report.json` and `junit.xml` (one test case per invariant: a failure for a violation of the
/// contract, skipped for an invariant not run or violated but not claimed). Each file is written
/// atomically.
public enum HistoryReport {
    /// `report.json` and `check --json`: one object, sorted keys.
    public struct JSON: Encodable {
        public struct V: Encodable {
            var invariant: String
            var timeMs: Int64
            var client: String?
            var entity: UInt32?
            var explanation: String
            var claimed: Bool
        }
        public struct NotRun: Encodable { var invariant: String; var why: String }
        var format = 1
        var file: String
        var strategy: String?
        var lines: Int
        var intents: Int
        var commits: Int
        var arbitration: String
        var judged: [String]
        var notRun: [NotRun]
        var contract: [String]
        var violations: [V]
        var suppressed: Int
        var contractMet: Bool

        public init(file: String, _ r: HistoryCheck.Result) {
            self.file = file
            strategy = r.header.strategy
            lines = r.lines
            intents = r.intents
            commits = r.commits
            arbitration = r.arbitration.rawValue
            judged = r.judged.map(\.rawValue)
            notRun = r.notRun.map { NotRun(invariant: $0.invariant.rawValue, why: $0.why) }
            contract = r.contract.sorted().map(\.rawValue)
            violations = r.violations.map { V(invariant: $0.invariant.rawValue, timeMs: $0.time, client: $0.client?.description,
                                              entity: $0.entity?.raw, explanation: $0.explanation, claimed: r.contract.contains($0.invariant)) }
            suppressed = r.suppressed
            contractMet = r.contractViolations.isEmpty
        }

        public func text() throws -> String {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]
            return String(decoding: try e.encode(self), as: UTF8.self)
        }
    }

    public static func write(_ r: HistoryCheck.Result, file: String, to dir: String) throws {
        try AtomicFile.write(try JSON(file: file, r).text() + "\n", to: "\(dir)/report.json")
        try AtomicFile.write(markdown(r, file: file), to: "\(dir)/report.md")
        try AtomicFile.write(html(r, file: file), to: "\(dir)/report.html")
        try AtomicFile.write(junit(r, file: file), to: "\(dir)/junit.xml")
    }

    public static func markdown(_ r: HistoryCheck.Result, file: String) -> String {
        var o = "# SyncSim check of `\(file)`\n\n"
        o += "\(r.lines) lines: \(r.intents) intents, \(r.commits) commits, \(r.told) user-visible events; \(r.header.clients) clients; arbitration \(r.arbitration).\n\n"
        o += "**Contract \(r.contractViolations.isEmpty ? "met" : "VIOLATED")** (\(r.contractViolations.count) violation(s) of claimed invariants).\n\n"
        o += "| invariant | verdict |\n|---|---|\n"
        for id in InvariantID.builtIns {
            let n = r.violations.filter { $0.invariant == id }.count
            if let why = r.notRun.first(where: { $0.invariant == id })?.why {
                o += "| \(id.rawValue) | not run: \(why) |\n"
            } else {
                o += "| \(id.rawValue) | " + (n == 0 ? "holds" : "\(n) violation(s)" + (r.contract.contains(id) ? " (claimed)" : " (not claimed)")) + " |\n"
            }
        }
        if !r.violations.isEmpty {
            o += "\n## Violations\n\n"
            for v in r.violations { o += "- `\(v.invariant.rawValue)` t=\(v.time)ms" + (v.client.map { " client \($0)" } ?? "") + (v.entity.map { " entity \($0.raw)" } ?? "") + ": \(v.explanation)\n" }
        }
        return o
    }

    public static func html(_ r: HistoryCheck.Result, file: String) -> String {
        var o = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>SyncSim check</title></head><body>\n"
        o += "<h1>SyncSim check of <code>\(htmlEscape(file))</code></h1>\n"
        o += "<p>\(r.lines) lines; contract <b>\(r.contractViolations.isEmpty ? "met" : "VIOLATED")</b>.</p>\n<table>\n"
        for id in InvariantID.builtIns {
            let n = r.violations.filter { $0.invariant == id }.count
            let verdict = r.notRun.first(where: { $0.invariant == id }).map { "not run: \($0.why)" } ?? (n == 0 ? "holds" : "\(n) violation(s)")
            o += "<tr><td>\(id.rawValue)</td><td>\(htmlEscape(verdict))</td></tr>\n"
        }
        o += "</table>\n"
        for (i, v) in r.violations.prefix(20).enumerated() {
            o += "<h2>\(v.invariant.rawValue) at t=\(v.time)ms</h2>\n<p>\(htmlEscape(v.explanation))</p>\n"
            if !r.story.isEmpty {
                o += SequenceDiagram.svg(trace: r.story, clients: r.header.clients, violationTimeMs: v.time,
                                         violationClient: v.client?.index, id: "v\(i)") + "\n"
            }
        }
        return o + "</body></html>\n"
    }

    public static func junit(_ r: HistoryCheck.Result, file: String) -> String {
        func esc(_ s: String) -> String { htmlEscape(s) }
        let failures = InvariantID.builtIns.filter { id in r.contract.contains(id) && r.violations.contains { $0.invariant == id } }.count
        var o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        o += "<testsuites name=\"syncsim check\" tests=\"\(InvariantID.builtIns.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        o += "  <testsuite name=\"\(esc(file))\" tests=\"\(InvariantID.builtIns.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        for id in InvariantID.builtIns {
            o += "    <testcase classname=\"syncsim.check\" name=\"\(id.rawValue)\">\n"
            let vs = r.violations.filter { $0.invariant == id }
            if let why = r.notRun.first(where: { $0.invariant == id })?.why {
                o += "      <skipped message=\"not run: \(esc(why))\"/>\n"
            } else if let first = vs.first {
                if r.contract.contains(id) {
                    o += "      <failure message=\"\(vs.count) violation(s) of \(id.rawValue)\" type=\"contractViolation\">\(esc(first.description))</failure>\n"
                } else {
                    o += "      <skipped message=\"not claimed: \(esc(first.description))\"/>\n"
                }
            }
            o += "    </testcase>\n"
        }
        return o + "  </testsuite>\n</testsuites>\n"
    }
}
