/// What a differential report (`fuzz --baseline S`) says about its baseline: which strategy it
/// was, that every violation counted is baseline-free, and which violations were set aside
/// because the baseline showed them too on the same seed and schedule.
///
/// Why say it: a report read later (or merged from shards) must not be mistaken for a plain
/// fuzz report. Its counts answer "what does this strategy break that the baseline does not",
/// and a reader needs the set-aside counts to see how much the two share.
extension FuzzReport {
    /// One sentence for report.md and report.html (report.json has `options.baseline` and each
    /// cell's `sharedWithBaseline`).
    public static func baselineSentence(_ r: FuzzReport, baseline: String) -> String {
        var o = "Differential mode: baseline `\(baseline)`. Every violation counted is baseline-free: `\(baseline)`, run on the same seed and schedule, did not violate that invariant."
        var shared: [String] = []
        for s in r.strategies where s.name != baseline {
            let cells = s.cells.filter { ($0.sharedWithBaseline ?? 0) > 0 }
            if cells.isEmpty { continue }
            shared.append("\(s.name): " + cells.map { "\($0.invariant) \($0.sharedWithBaseline!)" }.joined(separator: ", "))
        }
        o += shared.isEmpty ? " No violation was shared with the baseline."
            : " Set aside because the baseline violated them too (runs): " + shared.joined(separator: "; ") + "."
        return o
    }
}
