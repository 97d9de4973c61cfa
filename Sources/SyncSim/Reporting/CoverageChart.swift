/// A time-to-novelty chart of one `CoverageTimeline`, as inline SVG: x is the runs in seed
/// order, y the distinct situations (blue) and reach goals (green) reached so far, with the run
/// that brought the last new one marked. A flat tail says more of the same seeds bought nothing.
/// A pure function of the timeline: the same runs give the same bytes.
enum CoverageChart {
    static let width = 400.0, height = 190.0
    static let left = 40.0, right = 16.0, top = 22.0, bottom = 36.0

    static func svg(_ t: CoverageTimeline, title: String) -> String {
        let plotW = width - left - right, plotH = height - top - bottom
        let maxY = max(1, t.situationTotal, t.reachGoalTotal)
        let n = max(1, t.runs)
        func x(_ run: Int) -> Double { left + plotW * Double(run) / Double(n) }
        func y(_ v: Int) -> Double { top + plotH * (1 - Double(v) / Double(maxY)) }
        var s = "<svg class=\"timeline\" width=\"\(svgNum(width))\" height=\"\(svgNum(height))\" viewBox=\"0 0 \(svgNum(width)) \(svgNum(height))\" font-family=\"-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\" font-size=\"11\" role=\"img\">"
        s += "<title>\(htmlEscape(title)): \(htmlEscape(t.situationSentence)); \(htmlEscape(t.reachGoalSentence))</title>\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
        var labels = LabelPlacer()
        // Axes and the ceilings (every situation / every goal).
        s += "<line x1=\"\(svgNum(left))\" y1=\"\(svgNum(top + plotH))\" x2=\"\(svgNum(left + plotW))\" y2=\"\(svgNum(top + plotH))\" stroke=\"#888\"/>"
        s += "<line x1=\"\(svgNum(left))\" y1=\"\(svgNum(top))\" x2=\"\(svgNum(left))\" y2=\"\(svgNum(top + plotH))\" stroke=\"#888\"/>\n"
        labels.force(SVGText(text: "0", x: left - 5, y: y(0) + 4, fontSize: 10, anchor: .end, fill: "#666", halo: false))
        labels.force(SVGText(text: "runs in seed order", x: left + plotW / 2, y: height - 6, fontSize: 10, anchor: .middle, fill: "#666", halo: false))
        labels.force(SVGText(text: "0", x: x(0), y: top + plotH + 14, fontSize: 10, anchor: .middle, fill: "#666", halo: false))
        labels.force(SVGText(text: "\(t.runs)", x: x(t.runs), y: top + plotH + 14, fontSize: 10, anchor: .end, fill: "#666", halo: false))
        for (total, color, what) in [(t.situationTotal, "#1e66c8", "situations"), (t.reachGoalTotal, "#2e7d32", "reach goals")] where total > 0 {
            s += "<line x1=\"\(svgNum(left))\" y1=\"\(svgNum(y(total)))\" x2=\"\(svgNum(left + plotW))\" y2=\"\(svgNum(y(total)))\" stroke=\"\(color)\" stroke-opacity=\"0.35\" stroke-dasharray=\"3 3\"/>\n"
            labels.place([SVGText(text: "\(total)", x: left - 5, y: y(total) + 4, fontSize: 10, anchor: .end, fill: color, halo: false,
                                  title: "\(total) \(what) to reach"),
                          SVGText(text: "\(total)", x: left - 5, y: y(total) + 12, fontSize: 10, anchor: .end, fill: color, halo: false)])
        }
        // The two step curves, each named at its end with how much of it was reached.
        for (novelties, color, total, what) in [(t.reachGoals, "#2e7d32", t.reachGoalTotal, "reach goals"), (t.situations, "#1e66c8", t.situationTotal, "situations")] where total > 0 {
            var d = "M\(svgNum(x(0))),\(svgNum(y(0)))"
            var count = 0
            for nv in novelties {
                d += " H\(svgNum(x(nv.run - 1)))"
                count += nv.new.count
                d += " L\(svgNum(x(nv.run))),\(svgNum(y(count)))"
            }
            d += " H\(svgNum(x(t.runs)))"
            s += "<path d=\"\(d)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n"
            let name = "\(what) \(count)/\(total)"
            labels.place([SVGText(text: name, x: x(t.runs), y: y(count) - 5, fontSize: 10, anchor: .end, fill: color, bold: true),
                          SVGText(text: name, x: x(t.runs), y: y(count) + 13, fontSize: 10, anchor: .end, fill: color, bold: true),
                          SVGText(text: name, x: x(t.runs), y: y(count) - 17, fontSize: 10, anchor: .end, fill: color, bold: true)])
            count = 0
            for nv in novelties {
                count += nv.new.count
                s += "<circle cx=\"\(svgNum(x(nv.run)))\" cy=\"\(svgNum(y(count)))\" r=\"2.5\" fill=\"\(color)\"><title>run \(nv.run) (seed \(nv.seed)): \(htmlEscape(nv.new.joined(separator: "; ")))</title></circle>\n"
            }
        }
        // The last novelty of either kind.
        if let last = [t.situations.last, t.reachGoals.last].compactMap({ $0 }).max(by: { $0.run < $1.run }) {
            let lx = x(last.run)
            s += "<line x1=\"\(svgNum(lx))\" y1=\"\(svgNum(top - 4))\" x2=\"\(svgNum(lx))\" y2=\"\(svgNum(top + plotH))\" stroke=\"#d32f2f\" stroke-dasharray=\"4 3\"/>\n"
            let text = "last new: run \(last.run)"
            labels.place([SVGText(text: text, x: lx + 4, y: top - 8, fontSize: 10, fill: "#b71c1c", bold: true),
                          SVGText(text: text, x: lx - 4, y: top - 8, fontSize: 10, anchor: .end, fill: "#b71c1c", bold: true),
                          SVGText(text: text, x: lx - 4, y: top + plotH * 0.55, fontSize: 10, anchor: .end, fill: "#b71c1c", bold: true),
                          SVGText(text: text, x: lx + 4, y: top + plotH * 0.55, fontSize: 10, fill: "#b71c1c", bold: true),
                          SVGText(text: text, x: lx - 4, y: top + plotH - 4, fontSize: 10, anchor: .end, fill: "#b71c1c", bold: true),
                          SVGText(text: text, x: lx + 4, y: top + plotH - 4, fontSize: 10, fill: "#b71c1c", bold: true)],
                         within: LabelBox(x: 0, y: 0, w: width, h: height))
            labels.place([SVGText(text: "run \(last.run)", x: lx, y: top + plotH + 14, fontSize: 10, anchor: .middle, fill: "#b71c1c")])
        }
        s += labels.svg
        return s + "</svg>"
    }
}
