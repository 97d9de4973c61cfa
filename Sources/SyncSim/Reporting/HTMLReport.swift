/// Renders a `FuzzReport` as one self-contained HTML page (`report.html`): inline CSS and SVG,
/// no scripts, no external assets. A pure function: the same report gives the same bytes.
public enum HTMLReport {
    public static func render(_ report: FuzzReport) -> String {
        var p = Page()
        p.header(report)
        p.matrix(report)
        p.reach(report)
        p.metrics(report)
        p.coverage(report)
        p.coverageOverTime(report)
        p.failures(report)
        p.out += "</body>\n</html>\n"
        return p.out
    }
}

private struct Page {
    var out = ""

    mutating func add(_ s: String) { out += s; out += "\n" }

    mutating func header(_ r: FuzzReport) {
        let o = r.options
        add("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">")
        add("<title>SyncSim report: \(htmlEscape(o.strategies.joined(separator: ", ")))</title>")
        add("<style>\(css)</style>\n</head>\n<body>")
        add("<h1>SyncSim fuzz report</h1>")
        let verdict = r.allContractsMet
            ? "<span class=\"pill ok\">every strategy met its contract</span>"
            : "<span class=\"pill bad\">contract violated: \(htmlEscape(r.strategies.filter { !$0.metContract }.map(\.name).joined(separator: ", ")))</span>"
        let done = r.complete ? "<span class=\"pill ok\">complete</span>" : "<span class=\"pill warn\">incomplete: \(htmlEscape(r.stopReason?.sentence ?? "stopped early"))</span>"
        add("<p>\(verdict) \(done)</p>")
        if let b = o.baseline { add("<p class=\"baseline\">\(htmlEscape(String(FuzzReport.baselineSentence(r, baseline: b).filter { $0 != "`" })))</p>") }
        add("<div class=\"facts\"><table class=\"kv\">")
        row("strategies", o.strategies.joined(separator: ", "))
        row("seeds", "\(o.seeds) (\(r.seedsRun) run, \(r.runs.count) runs in all)")
        row("swarm", o.swarm ? "on" : "off")
        row("clients", o.clients.map(String.init) ?? "per seed")
        row("actions", "\(o.actions)")
        row("shrink", o.shrink ? "on" : "off")
        if let t = o.tenants { row("tenants", "\(t)") }
        if let a = o.also, !a.isEmpty { row("also", a.joined(separator: ", ")) }
        if let b = o.baseline { row("baseline", b) }
        row("failures", "\(r.failures.count)")
        add("</table><table class=\"kv timing\">")
        let t = r.timing
        row("started", t.startedAt)
        row("wall time", decimal(t.wallSeconds, 1) + " s")
        row("runs/s", decimal(t.runsPerSecond, 1))
        row("shrinking", decimal(t.shrinkSeconds, 1) + " s")
        add("</table></div>")
    }

    mutating func row(_ k: String, _ v: String) {
        add("<tr><th>\(htmlEscape(k))</th><td>\(htmlEscape(v))</td></tr>")
    }

    // MARK: Matrix

    mutating func matrix(_ r: FuzzReport) {
        add("<h2 id=\"matrix\">Strategy comparison</h2>")
        add("<p class=\"legend\"><span class=\"sw c-bad\"></span>claimed and violated <span class=\"sw c-warn\"></span>violated, not claimed "
            + "<span class=\"sw c-ok\"></span>claimed, held <span class=\"sw c-none\"></span>not claimed, held &nbsp; <b>◆</b> claimed by the strategy</p>")
        let invariants = r.invariantColumns
        let users = r.userInvariants
        // A user invariant's header says so (and shows its summary on hover): a reader cannot
        // look it up in SyncSim's documentation. Built-in headers are unchanged.
        func header(_ inv: String) -> String {
            guard FuzzReport.isUserInvariant(inv) else { return "<th class=\"inv\"><span>\(htmlEscape(inv))</span></th>" }
            let summary = users.first { $0.id == inv }?.summary ?? "user invariant"
            return "<th class=\"inv user\" title=\"\(htmlEscape(summary))\"><span>\(htmlEscape(inv)) (user)</span></th>"
        }
        add("<div class=\"scroll\"><table class=\"matrix\">\n<thead><tr><th class=\"strat\">strategy</th>"
            + invariants.map(header).joined() + "</tr></thead>\n<tbody>")
        for s in r.strategies {
            var line = "<tr><th class=\"strat\"><div class=\"name\">\(htmlEscape(s.name))"
            if s.knownBad { line += " <span class=\"pill warn small\">known bad</span>" }
            line += "</div><div class=\"sub\">\(htmlEscape(s.arbitration)) · \(s.runs) runs · "
            line += s.metContract ? "<span class=\"yes\">✓ met contract</span>" : "<span class=\"no\">✗ contract broken</span>"
            line += "</div>"
            if !s.summary.isEmpty { line += "<div class=\"summary\">\(htmlEscape(s.summary))</div>" }
            line += "</th>"
            for inv in invariants {
                guard let c = s.cells.first(where: { $0.invariant == inv }) else { line += "<td class=\"c-none\">–</td>"; continue }
                line += cell(c, strategy: s, failures: r.failures)
            }
            add(line + "</tr>")
        }
        add("</tbody></table></div>")
        if !users.isEmpty {
            add("<p class=\"legend\">(user): a user invariant, defined by the tool that ran this fuzz and judged like the built-ins.</p>")
            add("<table class=\"grid\"><thead><tr><th>user invariant</th><th>summary</th></tr></thead><tbody>")
            for u in users { add("<tr><th><code>\(htmlEscape(u.id))</code></th><td>\(htmlEscape(u.summary))</td></tr>") }
            add("</tbody></table>")
        }
    }

    func cell(_ c: FuzzReport.Cell, strategy s: FuzzReport.StrategyReport, failures: [FuzzReport.Failure]) -> String {
        let cls = c.breaksContract ? "c-bad" : c.violations > 0 ? "c-warn" : (c.claimed || c.condition != nil ? "c-ok" : "c-none")
        let tip = "\(s.name) · \(c.invariant)" + (c.claimed ? " (claimed)" : c.condition.map { " (claimed \($0): \(c.violationsUnderCondition ?? 0) runs violate it then)" } ?? " (not claimed)")
        var h = "<td class=\"\(cls)\" title=\"\(htmlEscape(tip))\">"
        if c.claimed { h += "<span class=\"claim\">◆</span>" }
        if let cond = c.condition { h += "<span class=\"claim\">◇</span><div>\(htmlEscape(cond))</div>" }
        h += "<div class=\"n\">\(c.violations)/\(s.runs)</div>"
        if let seed = c.firstSeed { h += "<div>seed \(seed)</div>" }
        if let n = c.shrunkActions { h += "<div>\(n) action\(n == 1 ? "" : "s")</div>" }
        if let path = c.scenario { h += "<div><a href=\"\(htmlEscape(path))\">scenario</a></div>" }
        if let i = failures.firstIndex(where: { $0.strategy == s.name && $0.invariant == c.invariant }) {
            h += "<div><a href=\"#failure-\(i + 1)\">diagram</a></div>"
        }
        return h + "</td>"
    }

    // MARK: Metrics

    mutating func metrics(_ r: FuzzReport) {
        add("<h2 id=\"metrics\">Metrics</h2>")
        add("<table class=\"grid\"><thead><tr><th>strategy</th><th>converge median</th><th>converge p99</th><th>messages / write</th>"
            + "<th>max pending</th><th>writes lost</th><th>stale overwrites</th><th>unsettled runs</th><th>events</th></tr></thead><tbody>")
        for s in r.strategies {
            let m = s.metrics
            func ms(_ v: Int64?) -> String { v.map { "\($0) ms" } ?? "–" }
            func flag(_ v: Int) -> String { v > 0 ? "<td class=\"num hot\">\(v)</td>" : "<td class=\"num\">0</td>" }
            add("<tr><th>\(htmlEscape(s.name))</th><td class=\"num\">\(ms(m.convergeMedianMs))</td><td class=\"num\">\(ms(m.convergeP99Ms))</td>"
                + "<td class=\"num\">\(decimal(m.messagesPerWrite, 2))</td><td class=\"num\">\(m.maxPendingQueue)</td>"
                + flag(m.writesLost) + flag(m.staleOverwrites) + flag(m.unsettledRuns) + "<td class=\"num\">\(m.events)</td></tr>")
        }
        add("</tbody></table>")
    }

    // MARK: Reach

    mutating func reach(_ r: FuzzReport) {
        let rows = r.reachRows
        guard !rows.isEmpty else { return }
        add("<h2 id=\"reach\">Reach</h2>")
        add("<p>A claim that held proves little if no run reached the situation that tests it. Each cell: share of runs that reached it; ◆ claimed; highlighted: claimed but reached in under 1% of runs.</p>")
        let barely = r.barelyReachedClaims
        if !barely.isEmpty {
            add("<div class=\"never\"><b>Claims barely tested:</b> " + barely.map { "<span class=\"pill warn\">\(htmlEscape($0))</span>" }.joined(separator: " ") + "</div>")
        }
        add("<table class=\"grid\"><thead><tr><th>invariant</th><th>tested by</th>"
            + r.strategies.map { "<th>\(htmlEscape($0.name))</th>" }.joined() + "</tr></thead><tbody>")
        for row in rows {
            var line = "<tr><th><code>\(htmlEscape(row.invariant))</code></th><td>\(htmlEscape(row.situation))</td>"
            for (s, c) in zip(r.strategies, row.cells) {
                guard let c, let n = c.reachedRuns else { line += "<td class=\"num\">–</td>"; continue }
                let share = s.runs == 0 ? 0 : Double(n) / Double(s.runs) * 100
                let cls = c.isBarelyReached(runs: s.runs) ? "num hot" : "num"
                line += "<td class=\"\(cls)\" title=\"\(n) of \(s.runs) runs\">\(c.claimed ? "◆ " : "")\(decimal(share, 1))%</td>"
            }
            add(line + "</tr>")
        }
        add("</tbody></table>")
    }

    // MARK: Coverage

    mutating func coverage(_ r: FuzzReport) {
        let c = r.coverage
        add("<h2 id=\"coverage\">Coverage</h2>")
        add("<p>\(c.runs) runs. Bars show the share of runs that reached each.</p>")
        if !c.neverReached.isEmpty {
            add("<div class=\"never\"><b>Never reached:</b> " + c.neverReached.map { "<span class=\"pill warn\">\(htmlEscape($0))</span>" }.joined(separator: " ") + "</div>")
        }
        let never = Set(c.neverReached)
        add("<div class=\"cov\">")
        table("Action kinds", keys(ActionKind.allCases.map(\.rawValue), c.runsWithAction), c.runsWithAction, runs: c.runs,
              never: { never.contains("action: \($0)") }, extra: c.actions, extraTitle: "total")
        table("Faults", keys(FaultKind.allCases.map(\.rawValue), c.runsWithFault), c.runsWithFault, runs: c.runs,
              never: { never.contains("fault: \($0)") })
        table("Situations", keys(Situation.allCases.map(\.rawValue), c.runsReaching), c.runsReaching, runs: c.runs,
              never: { never.contains("situation: \($0)") })
        add("</div>")
    }

    // MARK: Coverage over time

    /// One time-to-novelty chart per strategy, with the sentence that says whether more seeds
    /// still found anything.
    mutating func coverageOverTime(_ r: FuzzReport) {
        guard !r.strategies.isEmpty else { return }
        add("<h2 id=\"coverage-over-time\">Coverage over time</h2>")
        add("<p>Distinct situations (blue) and reach goals (green) reached as the seeds ran, in seed order; the red line marks the run that reached the last new one. "
            + "A long flat tail means more of the same seeds buys little: change the workload, or spend the time elsewhere.</p>")
        if let note = r.timelineScope { add("<p class=\"note\">\(htmlEscape(note))</p>") }
        add("<div class=\"timelines\">")
        for s in r.strategies {
            let t = r.timeline(of: s)
            add("<div class=\"tl\"><h4>\(htmlEscape(s.name))\(t.plateaued ? " <span class=\"pill warn small\">nothing new in the last half</span>" : "")</h4>")
            add(CoverageChart.svg(t, title: s.name))
            add("<p class=\"sub\">\(htmlEscape(t.situationSentence)).<br>\(htmlEscape(t.reachGoalSentence)).</p></div>")
        }
        add("</div>")
    }

    /// Known names in their declared order, then any others sorted.
    func keys(_ known: [String], _ counts: [String: Int]) -> [String] {
        known + counts.keys.filter { !known.contains($0) }.sorted()
    }

    mutating func table(_ title: String, _ names: [String], _ counts: [String: Int], runs: Int, never: (String) -> Bool,
                        extra: [String: Int]? = nil, extraTitle: String = "") {
        add("<table class=\"grid bars\"><caption>\(htmlEscape(title))</caption><thead><tr><th></th><th>runs</th>"
            + (extra != nil ? "<th>\(htmlEscape(extraTitle))</th>" : "") + "<th class=\"barcol\"></th></tr></thead><tbody>")
        for k in names {
            let n = counts[k] ?? 0
            let pct = runs == 0 ? 0 : Double(n) / Double(runs) * 100
            let cls = never(k) || n == 0 ? " class=\"neverrow\"" : ""
            add("<tr\(cls)><th>\(htmlEscape(k))</th><td class=\"num\">\(n)</td>"
                + (extra.map { "<td class=\"num\">\($0[k] ?? 0)</td>" } ?? "")
                + "<td class=\"barcol\"><div class=\"bar\"><div style=\"width:\(decimal(pct, 1))%\"></div></div></td></tr>")
        }
        add("</tbody></table>")
    }

    // MARK: Failures

    mutating func failures(_ r: FuzzReport) {
        add("<h2 id=\"failures\">Failures (\(r.failures.count))</h2>")
        if r.failures.isEmpty { add("<p>No invariant was violated.</p>"); return }
        add("<ol class=\"toc\">")
        for (i, f) in r.failures.enumerated() {
            add("<li><a href=\"#failure-\(i + 1)\">\(htmlEscape(f.strategy)) · \(htmlEscape(f.invariant)) · seed \(f.seed)</a>"
                + (f.claimed ? " <span class=\"pill bad small\">contract</span>" : " <span class=\"pill warn small\">not claimed</span>") + "</li>")
        }
        add("</ol>")
        for (i, f) in r.failures.enumerated() { failure(f, index: i + 1) }
    }

    mutating func failure(_ f: FuzzReport.Failure, index: Int) {
        add("<section class=\"failure \(f.claimed ? "claimed" : "unclaimed")\" id=\"failure-\(index)\">")
        add("<h3>\(index). \(htmlEscape(f.strategy)) violates <code>\(htmlEscape(f.invariant))</code> · seed \(f.seed) "
            + (f.claimed ? "<span class=\"pill bad\">claimed: contract violation</span>" : "<span class=\"pill warn\">not claimed</span>") + "</h3>")
        add("<p class=\"explain\">\(htmlEscape(f.explanation))</p>")
        var facts = "\(f.originalActions) actions"
        if let n = f.shrunkActions { facts += ", shrunk to \(n)" }
        if let t = f.violationTimeMs { facts += "; violation at \(t) ms" }
        if let c = f.violationClient { facts += " on client \(ClientID(c))" }
        var line = "<p class=\"sub\">\(htmlEscape(facts))"
        if let s = f.scenario { line += " · scenario <a href=\"\(htmlEscape(s))\">\(htmlEscape(s))</a>" }
        add(line + "</p>")
        add("<pre class=\"cmd\">\(htmlEscape(f.replay))</pre>")
        if f.explain != nil { add(ExplanationSection.html(f.explain)) }
        let w = SequenceDiagram.window(f.trace, violationTimeMs: f.violationTimeMs)
        if w.count < f.trace.count {
            add("<p class=\"note\">The trace has \(f.trace.count) lines; the diagram shows lines \(w.lowerBound + 1)–\(w.upperBound), ending just after the violation.</p>")
        }
        if f.trace.isEmpty {
            add("<p class=\"note\">No trace was recorded for this failure.</p>")
        } else {
            add(diagramLegend(diagramNotes(f)))
            add("<div class=\"scroll diagram\">")
            add(SequenceDiagram.svg(trace: f.trace, clients: f.clients, violationTimeMs: f.violationTimeMs,
                                    violationClient: f.violationClient, id: "d\(index)", notes: diagramNotes(f)))
            add("</div>")
            add("<details><summary>Trace text (\(w.count) lines)</summary><pre class=\"trace\">")
            for l in f.trace[w] {
                add("<span class=\"t-\(l.kind.rawValue)\">\(pad(String(l.time), 8))  \(htmlEscape(l.text))</span>")
            }
            add("</pre></details>")
        }
        add("</section>")
    }

    /// What the diagram writes beside the trace: the invariant and its explanation on the
    /// violation marker, and the culprit transaction the explanation names.
    func diagramNotes(_ f: FuzzReport.Failure) -> SequenceDiagram.Notes {
        SequenceDiagram.Notes(invariant: f.invariant, explanation: f.explanation, necessaryActions: f.necessaryMarks ?? [])
    }

    /// The key to the marks a diagram draws (the culprit and necessary actions only when it has them).
    func diagramLegend(_ notes: SequenceDiagram.Notes) -> String {
        let items = [
            "<span class=\"k up\">→</span> client to server", "<span class=\"k down\">→</span> server to client",
            "labels: kind, write ids, entity{fields}", "<span class=\"k lost\">✗</span> lost",
            "<span class=\"sw off\"></span>offline", "<span class=\"sw unr\"></span>cannot reach the server",
            "<span class=\"k crash\">✕</span> crash", "<span class=\"sw rst\"></span>restart", "<span class=\"k heal\">- - -</span> heal",
            "<span class=\"dot act\"></span>user action", "<span class=\"dot ev\"></span>told the user", "<span class=\"dot ap\"></span>applied",
        ] + (notes.culpritTx == nil ? [] : ["<span class=\"ring culprit\"></span>culprit transaction (tx \(notes.culpritTx!)) and what carried it"])
          + (notes.necessaryActions.isEmpty ? [] : ["<span class=\"ring need\"></span>necessary action (#n: its index in the scenario file)"])
          + ["<span class=\"k viol\">!</span> violation", "hover any mark for its full story line"]
        return "<div class=\"legend diag\">" + items.map { "<span class=\"li\">\($0)</span>" }.joined(separator: " ") + "</div>"
    }

    func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : String(repeating: " ", count: n - s.count) + s
    }
}

/// A fixed-point decimal with `places` digits, independent of locale.
private func decimal(_ v: Double, _ places: Int) -> String {
    guard v.isFinite else { return "–" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let n = Int64((abs(v) * scale).rounded())
    let ip = n / Int64(scale), fp = n % Int64(scale)
    let sign = v < 0 && n != 0 ? "-" : ""
    guard places > 0 else { return "\(sign)\(ip)" }
    let f = String(fp)
    return "\(sign)\(ip)." + String(repeating: "0", count: places - f.count) + f
}

private let css = """
body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;color:#1d232a;margin:24px 32px;background:#fafbfc}
h1{margin:0 0 8px;font-size:24px}h2{margin:32px 0 10px;border-bottom:2px solid #e3e7ec;padding-bottom:4px;font-size:19px}
h3{font-size:16px;margin:0 0 6px}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace}
a{color:#1a5fb4}
.pill{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;border:1px solid}
.pill.small{font-size:10px;padding:0 5px}
.ok{background:#e3f4e6;color:#1e6b2c;border-color:#9fd3aa}.bad{background:#fde4e4;color:#a01818;border-color:#f0a3a3}
.warn{background:#fff1d6;color:#8a5300;border-color:#f2c777}
.facts{display:flex;gap:32px;flex-wrap:wrap}
table.kv th{text-align:left;color:#5b6670;font-weight:500;padding:1px 14px 1px 0}table.kv td{padding:1px 0}
.scroll{overflow-x:auto}
table.matrix{border-collapse:collapse;background:#fff}
table.matrix th,table.matrix td{border:1px solid #d6dbe0}
table.matrix th.inv{vertical-align:bottom;padding:6px 2px;background:#f3f5f7}
table.matrix th.inv span{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;font-size:12px;font-weight:600}
table.matrix th.strat{text-align:left;padding:6px 10px;min-width:190px;max-width:260px;background:#f7f8fa;vertical-align:top}
.name{font-size:15px;font-weight:700}.sub{font-size:12px;color:#5b6670;font-weight:400}
.summary{font-size:11px;color:#6b7680;font-weight:400;margin-top:3px}
.yes{color:#1e6b2c;font-weight:700}.no{color:#b71c1c;font-weight:700}
table.matrix td{min-width:62px;padding:4px 5px;font-size:11px;vertical-align:top;position:relative;text-align:center}
td .n{font-size:13px;font-weight:700}
td.c-bad{background:#f8c9c9}td.c-warn{background:#ffe3a8}td.c-ok{background:#d5efd9}td.c-none{background:#f1f2f4;color:#8b949c}
.claim{position:absolute;top:1px;left:3px;font-size:9px;color:#37474f}
.legend{font-size:12px;color:#4a545e}
.sw{display:inline-block;width:12px;height:12px;border:1px solid #aaa;vertical-align:-2px;margin:0 4px 0 10px}
.sw.c-bad{background:#f8c9c9}.sw.c-warn{background:#ffe3a8}.sw.c-ok{background:#d5efd9}.sw.c-none{background:#f1f2f4}
.sw.off{background:#dcdcdc}.sw.unr{background:repeating-linear-gradient(45deg,#fff 0 3px,#e69520 3px 5px)}
.k{font-weight:700;margin:0 3px 0 10px}.k.up{color:#1e66c8}.k.down{color:#8e44ad}.k.lost{color:#d32f2f}.k.viol{color:#fff;background:#d32f2f;border-radius:8px;padding:0 5px}
.k.crash{color:#7f0000}.k.heal{color:#2e7d32;letter-spacing:-1px}.sw.rst{background:#6a1b9a;height:6px;vertical-align:1px}
.ring{display:inline-block;width:10px;height:10px;border-radius:50%;margin:0 4px 0 10px;vertical-align:-1px}.ring.culprit{border:2px solid #d32f2f}.ring.need{border:2.5px solid #f9a825}
.legend.diag{line-height:1.9}.li{white-space:nowrap;margin-right:6px}
.dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin:0 4px 0 10px}.dot.act{background:#1565c0}.dot.ev{background:#00897b}.dot.ap{background:#2e7d32}
table.grid{border-collapse:collapse;background:#fff;font-size:13px}
table.grid th,table.grid td{border:1px solid #e0e4e8;padding:3px 9px}table.grid thead th{background:#f3f5f7;font-weight:600}
table.grid tbody th{text-align:left;font-weight:500}
td.num{text-align:right;font-variant-numeric:tabular-nums}td.hot{color:#b71c1c;font-weight:700}
.cov{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}
table.bars caption{text-align:left;font-weight:700;padding:4px 0}
td.barcol{width:160px}.bar{background:#eef1f4;height:10px;border-radius:3px;overflow:hidden}.bar div{background:#4a89dc;height:10px}
tr.neverrow th,tr.neverrow td{background:#fff1d6;color:#8a5300}
.never{background:#fff8e8;border:1px solid #f2c777;padding:8px 12px;border-radius:6px;margin:8px 0}
.toc{font-size:13px}
.timelines{display:flex;gap:18px;flex-wrap:wrap}.tl{background:#fff;border:1px solid #e0e4e8;border-radius:6px;padding:8px 12px;width:400px}
.tl h4{margin:0 0 4px;font-size:14px}.tl p{margin:4px 0 0}
section.failure{background:#fff;border:1px solid #dde2e7;border-left:5px solid #e0a000;border-radius:6px;padding:14px 18px;margin:18px 0}
section.failure.claimed{border-left-color:#d32f2f}
.explain{font-size:14px;margin:4px 0}
pre.cmd{background:#1f2933;color:#e6edf3;padding:8px 12px;border-radius:5px;overflow-x:auto;font-size:12px}
.note{font-size:12px;color:#8a5300}
.diagram{border:1px solid #e3e7ec;border-radius:4px;overflow-x:auto;background:#fff}
pre.trace{font-size:11px;max-height:480px;overflow:auto;background:#f7f8fa;padding:8px}
.t-violation{color:#b71c1c;font-weight:700}.t-action{color:#0d3c78}.t-lose{color:#888}
"""
