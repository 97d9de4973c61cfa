/// The explanation of a shrunk failure (`FuzzReport.Failure.explain`) as a section of report.md
/// and report.html, shown next to the failure's story.
///
/// Why its own file: both renderers call one function at one place, so the explanation can
/// evolve without touching the rest of the report or its diagrams.
enum ExplanationSection {
    /// A Markdown block (empty when there is no explanation).
    static func markdown(_ e: Explanation?) -> String {
        guard let e else { return "" }
        var o = "**Explanation** (\(e.runs) counterfactual replays\(e.complete ? "" : ", stopped early by the budget: parts marked ? were not judged")): "
        o += "*necessary*: without it the failure disappears; *timing*: it must happen within the window; *free*: it can go and the failure stays (same invariant\(e.entity == nil ? "" : ", same entity \(e.entity!)")).\n\n"
        o += "| # | t | verdict | action | details |\n|---|---|---|---|---|\n"
        for a in e.actions {
            o += "| \(a.index + 1) | \(a.at) ms | \(a.verdict.map { $0 == .free ? $0.rawValue : "**\($0.rawValue)**" } ?? "?") | `\(MarkdownReport.cell(a.action))` | \(MarkdownReport.cell(details(a))) |\n"
        }
        for i in e.initial where i.verdict != nil {
            o += "| initial | – | \(i.verdict!.rawValue) | entity \(i.entity) | \(MarkdownReport.cell(params(i.freeParameters, i.fixedParameters))) |\n"
        }
        for f in e.options {
            o += "| option | – | \(f.verdict?.rawValue ?? "?") | `\(MarkdownReport.cell(f.option)) = \(MarkdownReport.cell(f.value))` | turned off |\n"
        }
        o += "\n\(MarkdownReport.cell(e.pointOfNoReturnSentence)).\n\n"
        return o
    }

    /// An HTML block (empty when there is no explanation).
    static func html(_ e: Explanation?) -> String {
        guard let e else { return "" }
        let needed = e.necessaryActions.map { "#\($0 + 1)" }.joined(separator: ", ")
        var o = "<details class=\"explanation\" open><summary>Explanation: the failure needs \(needed.isEmpty ? "no single action" : "actions " + htmlEscape(needed))"
        o += " (\(e.runs) counterfactual replays\(e.complete ? "" : "; budget spent, ? = not judged"))</summary>\n"
        o += "<p class=\"note\"><b>necessary</b>: without it the failure disappears · <b>timing</b>: it must happen within the window · <b>free</b>: it can go, the failure stays the same way</p>\n"
        o += "<table class=\"explain\" style=\"text-align:left\"><thead><tr style=\"text-align:left\"><th>#</th><th>t</th><th>verdict</th><th>action</th><th>details</th></tr></thead><tbody>\n"
        for a in e.actions {
            let v = a.verdict?.rawValue ?? "?"
            let style = a.verdict == .free || a.verdict == nil ? "" : " style=\"font-weight:bold\""
            o += "<tr\(style)><td>\(a.index + 1)</td><td class=\"num\">\(a.at)</td><td>\(v)</td><td><code>\(htmlEscape(a.action))</code></td><td>\(htmlEscape(details(a)))</td></tr>\n"
        }
        for i in e.initial where i.verdict != nil {
            o += "<tr><td>initial</td><td></td><td>\(i.verdict!.rawValue)</td><td>entity \(i.entity)</td><td>\(htmlEscape(params(i.freeParameters, i.fixedParameters)))</td></tr>\n"
        }
        for f in e.options {
            o += "<tr><td>option</td><td></td><td>\(f.verdict?.rawValue ?? "?")</td><td><code>\(htmlEscape(f.option)) = \(htmlEscape(f.value))</code></td><td>turned off</td></tr>\n"
        }
        o += "</tbody></table>\n<p class=\"sub\">\(htmlEscape(e.pointOfNoReturnSentence))</p></details>"
        return o
    }

    static func details(_ a: Explanation.ActionPart) -> String {
        if a.verdict == .free { return "can go" }
        var parts: [String] = []
        if let w = a.window { parts.append("fails for t in \(w.text)") }
        let p = params(a.freeParameters, a.fixedParameters)
        if !p.isEmpty { parts.append(p) }
        return parts.joined(separator: "; ")
    }

    static func params(_ free: [String], _ fixed: [String]) -> String {
        var parts: [String] = []
        if !free.isEmpty { parts.append("free: " + free.joined(separator: ", ")) }
        if !fixed.isEmpty { parts.append("fixed: " + fixed.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}
