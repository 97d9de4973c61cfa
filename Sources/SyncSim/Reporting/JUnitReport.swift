/// `junit.xml`: one test case per (strategy, invariant), in the common JUnit schema shape
/// (`testsuites` > `testsuite` > `testcase` with `failure` or `skipped`). A violation of a claimed
/// invariant is a failure carrying the replay command; a violation of an unclaimed one is a
/// skipped case (expected of a known-bad strategy, reported, not an error). User invariants are
/// test cases like the built-ins; their messages add the invariant's summary, since CI readers
/// cannot look a user invariant up in SyncSim's documentation.
public enum JUnitReport {
    public static func render(_ r: FuzzReport) -> String {
        var o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        var summaries: [String: String] = [:]   // looked up only, never iterated
        for u in r.userInvariants { summaries[u.id] = u.summary }
        let total = r.strategies.reduce(0) { $0 + $1.cells.count }
        let failures = r.strategies.reduce(0) { $0 + $1.contractViolations.count }
        o += "<testsuites name=\"syncsim fuzz\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"0\" time=\"\(r.timing.wallSeconds)\">\n"
        for s in r.strategies {
            let skipped = s.cells.filter { !$0.breaksContract && $0.violations > 0 }.count
            o += "  <testsuite name=\"\(esc(s.name))\" tests=\"\(s.cells.count)\" failures=\"\(s.contractViolations.count)\" errors=\"0\" skipped=\"\(skipped)\">\n"
            for c in s.cells {
                o += "    <testcase classname=\"syncsim.\(esc(s.name))\" name=\"\(esc(c.invariant))\">\n"
                let f = r.failures.first { $0.strategy == s.name && $0.invariant == c.invariant }
                if c.violations > 0 {
                    var detail = "\(c.violations)/\(s.runs) runs violate \(c.invariant); first seed \(c.firstSeed.map(String.init) ?? "?")"
                    if let summary = summaries[c.invariant] { detail += " (user invariant: \(summary))" }
                    if let cond = c.condition { detail += " (claimed \(cond): \(c.violationsUnderCondition ?? 0) of them)" }
                    let body = (f.map { "\($0.explanation)\nreplay: \($0.replay)" } ?? detail)
                    if c.breaksContract {
                        o += "      <failure message=\"\(esc(detail))\" type=\"contractViolation\">\(esc(body))</failure>\n"
                    } else {
                        o += "      <skipped message=\"not claimed by \(esc(s.name)): \(esc(detail))\"/>\n"
                    }
                }
                o += "    </testcase>\n"
            }
            o += "  </testsuite>\n"
        }
        o += "</testsuites>\n"
        return o
    }

    static func esc(_ s: String) -> String { htmlEscape(s) }
}
