import Foundation

/// A Lamport-style sequence diagram of one trace, as inline SVG (in the spirit of Maelstrom's
/// diagrams): one vertical lane per client plus one for the server, time flowing down, messages
/// as arrows from send to delivery labelled with what they carry (`transact w3 todo#7{done}`),
/// lost messages ending in ✗ mid-way, offline and unreachable windows as bands, crashes,
/// restarts and the heal marked, and the violation marked in red with its invariant and
/// explanation written out beside it.
///
/// Time is drawn by rows, not to scale: each distinct moment gets a row (lines at the same moment
/// on different lanes share it), and the gap before a row grows only logarithmically with the
/// idle time, capped, so long quiet periods never make giant diagrams. Long gaps are labelled.
/// Labels never overlap: every text goes through a `LabelPlacer`. A pure function of its input:
/// the same trace and notes give the same bytes.
public enum SequenceDiagram {
    /// At most this many trace lines are drawn; longer traces show a window around the violation.
    public static let maxLines = 400

    /// The SVG for `trace`. `id` makes marker ids unique within a page; `notes` add the
    /// invariant, its explanation, the culprit transaction and the necessary actions.
    public static func svg(trace: [TraceLine], clients: Int, violationTimeMs: Int64?, violationClient: Int?, id: String,
                           notes: Notes = Notes()) -> String {
        Layout(trace: trace, clients: max(clients, (trace.compactMap(\.client).max() ?? -1) + 1),
               violationTime: violationTimeMs, violationClient: violationClient, id: id, notes: notes).render()
    }

    /// The range of trace lines drawn (all of them unless the trace is longer than `maxLines`):
    /// a window that ends a little after the violation.
    public static func window(_ trace: [TraceLine], violationTimeMs: Int64?) -> Range<Int> {
        guard trace.count > maxLines else { return 0..<trace.count }
        let v = violationTimeMs.flatMap { t in trace.firstIndex { $0.time > t } } ?? trace.count
        let end = min(trace.count, max(maxLines, v + 20))
        return (end - maxLines)..<end
    }
}

private struct Layout {
    // Geometry (px).
    let top = 54.0, gutter = 84.0, laneGap = 240.0, rightMargin = 200.0
    let rowHeight = 22.0, maxGapExtra = 34.0, bottom = 30.0
    /// The explanation on the violation's callout, wrapped to the diagram's width (at most
    /// three lines; the last clipped, the whole in the tooltip).
    var calloutLines: [String] = []
    /// Room kept under the violation's row for its callout (invariant and explanation).
    var calloutHeight: Double { 33 + 13 * Double(calloutLines.count) }
    /// Characters of 11 px text that fit on a callout line.
    var calloutChars: Int { Int((width - 32) / (TextMetrics.advance * 11)) }
    /// Gaps longer than this get a "… 12.3 s" break mark.
    let breakMs: Int64 = 2_000

    let lines: [TraceLine]
    let window: Range<Int>
    let all: [TraceLine]
    let clients: Int
    let violationTime: Int64?
    let violationClient: Int?
    let id: String
    let notes: SequenceDiagram.Notes

    /// Lane order: the first half of the clients, the server, the rest (fewest crossings).
    let serverLane: Int
    var ys: [Double] = []
    var height = 0.0
    /// The violation's row (nil without a violation time).
    var violationY: Double?
    /// What each line's message carries (sends only), by line index.
    var carried: [Int: MessageSummary] = [:]
    /// The culprit transaction's applied line and the writes it carried.
    var culpritLine: Int?
    var culpritWrites: [String] = []
    /// Sends that carried the culprit: its writes, or the message delivered to the server just
    /// before it was applied (a transaction with no user write, such as a diff's delete).
    var culpritSends = Set<Int>()
    /// Lines highlighted as necessary actions, with the action index.
    var necessary: [Int: Int] = [:]

    init(trace: [TraceLine], clients: Int, violationTime: Int64?, violationClient: Int?, id: String, notes: SequenceDiagram.Notes) {
        all = trace
        window = SequenceDiagram.window(trace, violationTimeMs: violationTime)
        lines = Array(trace[window])
        self.clients = clients
        self.violationTime = violationTime
        self.violationClient = violationClient
        self.id = id
        self.notes = notes
        serverLane = (clients + 1) / 2
        if let e = notes.explanation { calloutLines = wrap(oneLine(e), calloutChars, maxLines: 3) }
        layoutRows()
        necessary = Layout.necessaryLines(notes.necessaryActions, all: trace, window: window)
        for (i, l) in lines.enumerated() where l.kind == .send { carried[i] = MessageSummary(text: l.text, kind: l.label) }
        if let tx = notes.culpritTx, let i = lines.firstIndex(where: { $0.kind == .applied && $0.label == "tx \(tx)" }) {
            culpritLine = i
            culpritWrites = MessageSummary(text: lines[i].text, kind: lines[i].label).writes
            // Upward only: acknowledgements name the write too, but they do not carry the transaction.
            for (j, m) in carried where lines[j].upward == true && m.writes.contains(where: { culpritWrites.contains($0) }) { culpritSends.insert(j) }
            if let d = lines[..<i].lastIndex(where: { $0.kind == .deliver && $0.upward == true }), lines[d].time == lines[i].time,
               let msg = lines[d].message, let s = lines[..<d].lastIndex(where: { $0.kind == .send && $0.message == msg }) {
                culpritSends.insert(s)
            }
        }
    }

    var laneCount: Int { clients + 1 }
    var width: Double { gutter + Double(laneCount - 1) * laneGap + rightMargin }
    var endY: Double { height - bottom }

    func laneX(client: Int?) -> Double {
        guard let c = client else { return gutter + Double(serverLane) * laneGap }
        let slot = c < serverLane ? c : c + 1
        return gutter + Double(slot) * laneGap
    }

    /// The x of the lane to the right of `x` (nil for the last lane).
    func nextLaneX(after x: Double) -> Double? {
        let next = x + laneGap
        return next < gutter + Double(laneCount) * laneGap - laneGap / 2 ? next : nil
    }

    func laneName(_ c: Int?) -> String { c.map { ClientID($0).description } ?? "server" }

    /// Rows: a new row when the time changes or the lane is already used in this row. The
    /// violation gets the row of the last line at its time (or a row of its own between lines)
    /// and room for its callout below.
    mutating func layoutRows() {
        var y = top + 16
        var lastTime: Int64?
        var used = Set<Int>()
        var started = false
        for l in lines {
            if let v = violationTime, violationY == nil, l.time > v {
                placeViolation(y: &y, sharesRow: started && lastTime == v, started: started)
                lastTime = nil  // the next row starts below the callout
            }
            let lane = l.client ?? -1
            if started, let t = lastTime, t == l.time, !used.contains(lane) {
                used.insert(lane)
            } else {
                if started {
                    y += lastTime.map { rowHeight + gapExtra(l.time - $0) } ?? rowHeight
                }
                used = [lane]
                lastTime = l.time
            }
            started = true
            ys.append(y)
        }
        if let v = violationTime, violationY == nil { placeViolation(y: &y, sharesRow: started && lastTime == v, started: started) }
        height = y + rowHeight + bottom
    }

    /// The violation's row: the current one when the last line drawn is at its time, else a new
    /// one; then room for the callout.
    mutating func placeViolation(y: inout Double, sharesRow: Bool, started: Bool) {
        if !sharesRow && started { y += rowHeight }
        violationY = y
        y += calloutHeight
    }

    func gapExtra(_ dt: Int64) -> Double {
        guard dt > 0 else { return 0 }
        return min(maxGapExtra, 5 * log2(1 + Double(dt) / 20))
    }

    // MARK: Rendering

    func render() -> String {
        var s = ""
        let w = svgNum(width), h = svgNum(height)
        s += "<svg class=\"seq\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\" font-family=\"ui-monospace, Menlo, Consolas, 'DejaVu Sans Mono', monospace\" font-size=\"11\">\n"
        s += "<defs>"
        for (name, color) in [("up", SVGPalette.up), ("down", SVGPalette.down), ("lost", SVGPalette.lost)] {
            s += "<marker id=\"\(id)-\(name)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"\(color)\"/></marker>"
        }
        s += "<pattern id=\"\(id)-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#e69520\" stroke-width=\"2.5\"/></pattern>"
        s += "</defs>\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        var labels = LabelPlacer()
        s += windows(&labels)
        s += lanes(&labels)
        s += violationBand(&labels)
        // The callout's text claims its room before any label; its shapes are drawn over the arrows.
        let marker = violationMarker(&labels)
        s += breaks(&labels)
        s += arrows()
        s += marks()
        s += marker
        // Labels, most important first: what is placed first is never pushed out.
        markLabels(&labels)
        timeAxis(&labels)
        arrowLabels(&labels)
        s += labels.svg
        s += "</svg>"
        return s
    }

    /// Offline (grey) and unreachable (hatched amber) windows on client lanes, and their state
    /// at the start of the window (from lines before it). Each band is named at its top.
    func windows(_ labels: inout LabelPlacer) -> String {
        var s = ""
        for c in 0..<clients {
            var offline = false, unreachable = false
            for l in all[..<window.lowerBound] where l.client == c && l.kind == .network {
                switch l.label {
                case "offline": offline = true
                case "online", "launch": offline = false
                case "unreachable": unreachable = true
                case "reachable": unreachable = false
                default: break
                }
            }
            var offStart: Double? = offline ? top + 6 : nil
            var unStart: Double? = unreachable ? top + 6 : nil
            let x = laneX(client: c)
            func band(_ from: Double, _ to: Double, offline: Bool) -> String {
                let hgt = max(4, to - from)
                // The hatch has no background: over an offline band both show.
                let fill = offline ? SVGPalette.offline : "url(#\(id)-hatch)"
                let stroke = offline ? "#8a8a8a" : "#d08a20"
                let (dx, w) = offline ? (-13.0, 26.0) : (-10.0, 20.0)
                return "<g><title>\(htmlEscape(laneName(c))) \(offline ? "offline" : "cannot reach the server")</title><rect x=\"\(svgNum(x + dx))\" y=\"\(svgNum(from))\" width=\"\(svgNum(w))\" height=\"\(svgNum(hgt))\" rx=\"3\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"1\"\(offline ? "" : " stroke-dasharray=\"3 2\"")/></g>\n"
            }
            var pieces: [(Double, Double, Bool)] = []
            for (i, l) in lines.enumerated() where l.client == c && l.kind == .network {
                switch l.label {
                case "offline": if offStart == nil { offStart = ys[i] }
                case "online", "launch":
                    if let a = offStart { pieces.append((a, ys[i], true)); offStart = nil }
                case "unreachable": if unStart == nil { unStart = ys[i] }
                case "reachable":
                    if let a = unStart { pieces.append((a, ys[i], false)); unStart = nil }
                default: break
                }
            }
            if let a = offStart { pieces.append((a, endY, true)) }
            if let a = unStart { pieces.append((a, endY, false)) }
            // Offline under unreachable, so both show when they overlap.
            for p in pieces where p.2 { s += band(p.0, p.1, offline: true) }
            for p in pieces where !p.2 { s += band(p.0, p.1, offline: false) }
        }
        return s
    }

    func lanes(_ labels: inout LabelPlacer) -> String {
        var s = ""
        for c in [nil] + (0..<clients).map({ Optional($0) }) {
            let x = laneX(client: c)
            let server = c == nil
            s += "<line x1=\"\(svgNum(x))\" y1=\"\(svgNum(top))\" x2=\"\(svgNum(x))\" y2=\"\(svgNum(endY))\" stroke=\"\(server ? "#444" : "#888")\" stroke-width=\"\(server ? 2 : 1.2)\"/>\n"
            s += "<rect x=\"\(svgNum(x - 48))\" y=\"12\" width=\"96\" height=\"26\" rx=\"5\" fill=\"\(server ? "#37474f" : "#e8eef7")\" stroke=\"#37474f\"/>\n"
            labels.force(SVGText(text: server ? "server" : "client " + laneName(c), x: x, y: 30, fontSize: 13, anchor: .middle,
                                 fill: server ? "#fff" : "#1b2a3a", bold: true, halo: false))
            labels.force(SVGText(text: server ? "server" : laneName(c), x: x, y: endY + 16, fontSize: 11, anchor: .middle,
                                 fill: "#888", bold: true, halo: false))
        }
        labels.force(SVGText(text: "ms", x: gutter - 34, y: top + 2, fontSize: 10, anchor: .end, fill: "#8a8a8a", halo: false))
        return s
    }

    /// Times in the gutter, once per distinct time where there is room.
    func timeAxis(_ labels: inout LabelPlacer) {
        var lastTime: Int64?
        for (i, l) in lines.enumerated() where l.time != lastTime {
            lastTime = l.time
            labels.place([SVGText(text: String(l.time), x: gutter - 34, y: ys[i] + 4, fontSize: 10, anchor: .end, fill: "#8a8a8a", halo: false)])
        }
    }

    /// Break marks over long idle gaps.
    func breaks(_ labels: inout LabelPlacer) -> String {
        var s = ""
        var lastTime: Int64?
        for (i, l) in lines.enumerated() where l.time != lastTime {
            if let t = lastTime, l.time - t > breakMs {
                let y = ys[i] - rowHeight / 2 - gapExtra(l.time - t) / 2
                s += "<line x1=\"4\" y1=\"\(svgNum(y))\" x2=\"\(svgNum(width - 4))\" y2=\"\(svgNum(y))\" stroke=\"#ccc\" stroke-dasharray=\"2 4\"/>\n"
                let text = "⋯ \(duration(l.time - t)) idle"
                labels.place([SVGText(text: text, x: width - 6, y: y - 3, fontSize: 9, anchor: .end, fill: "#999"),
                              SVGText(text: text, x: 6, y: y - 3, fontSize: 9, fill: "#999")])
            }
            lastTime = l.time
        }
        return s
    }

    func violationBand(_ labels: inout LabelPlacer) -> String {
        guard let y = violationY else { return "" }
        return "<rect x=\"0\" y=\"\(svgNum(y - 8))\" width=\"\(svgNum(width))\" height=\"16\" fill=\"\(SVGPalette.violation)\" fill-opacity=\"0.12\"/>"
            + "<line x1=\"0\" y1=\"\(svgNum(y))\" x2=\"\(svgNum(width))\" y2=\"\(svgNum(y))\" stroke=\"\(SVGPalette.violation)\" stroke-width=\"1.2\" stroke-dasharray=\"6 3\"/>\n"
    }

    /// The red marker on the violation's lane, and the callout under it: the invariant, the time
    /// and the one-line explanation, clipped to the diagram's width (in full in the tooltip).
    func violationMarker(_ labels: inout LabelPlacer) -> String {
        guard let y = violationY, let t = violationTime else { return "" }
        let x = laneX(client: violationClient)
        let who = violationClient.map { " on " + laneName($0) } ?? ""
        let inv = notes.invariant.map { "\($0) violated" } ?? "violation"
        let tip = "\(inv) at \(t) ms\(who)" + (notes.explanation.map { "\n" + $0 } ?? "")
        var s = "<g><title>\(htmlEscape(tip))</title>"
        s += "<circle cx=\"\(svgNum(x))\" cy=\"\(svgNum(y))\" r=\"9\" fill=\"\(SVGPalette.violation)\"/>"
        labels.force(SVGText(text: "!", x: x, y: y + 4, fontSize: 12, anchor: .middle, fill: "#fff", bold: true, halo: false))
        let bx = 8.0, by = y + 12, bw = width - 16, bh = calloutHeight - 16
        s += "<rect x=\"\(svgNum(bx))\" y=\"\(svgNum(by))\" width=\"\(svgNum(bw))\" height=\"\(svgNum(bh))\" rx=\"4\" fill=\"#fdecea\" fill-opacity=\"0.95\" stroke=\"\(SVGPalette.violation)\" stroke-width=\"1\"/>"
        s += "<line x1=\"\(svgNum(x))\" y1=\"\(svgNum(y + 9))\" x2=\"\(svgNum(x))\" y2=\"\(svgNum(by))\" stroke=\"\(SVGPalette.violation)\" stroke-width=\"1.5\"/></g>\n"
        labels.reserve(LabelBox(x: bx, y: by, w: bw, h: bh))
        let fit = calloutChars
        let head = "✗ \(inv) at \(t) ms\(who)"
        labels.force(SVGText(text: clip(head, fit), x: bx + 8, y: by + 12, fontSize: 11, fill: SVGPalette.violation, bold: true, halo: false, title: tip))
        for (k, line) in calloutLines.enumerated() {
            labels.force(SVGText(text: line, x: bx + 8, y: by + 25 + 13 * Double(k), fontSize: 11, fill: "#5a1010", halo: false, title: tip))
        }
        return s
    }

    /// Whether a send carries a write of the culprit transaction.
    func carriesCulprit(_ i: Int) -> Bool { culpritSends.contains(i) }

    /// Message arrows: send → each delivery; send → ✗ mid-way for losses.
    func arrows() -> String {
        var s = ""
        for a in arrowGeometry() {
            let title = htmlEscape(a.title)
            s += "<g><title>\(title)</title>"
            if a.culprit {
                s += "<line x1=\"\(svgNum(a.x1))\" y1=\"\(svgNum(a.y1))\" x2=\"\(svgNum(a.x2))\" y2=\"\(svgNum(a.y2))\" stroke=\"\(SVGPalette.violation)\" stroke-opacity=\"0.3\" stroke-width=\"7\" stroke-linecap=\"round\"/>"
            }
            switch a.end {
            case .delivered:
                let color = a.up ? SVGPalette.up : SVGPalette.down
                s += "<line x1=\"\(svgNum(a.x1))\" y1=\"\(svgNum(a.y1))\" x2=\"\(svgNum(a.x2))\" y2=\"\(svgNum(a.y2))\" stroke=\"\(color)\" stroke-width=\"\(a.culprit ? 2.2 : 1.4)\" marker-end=\"url(#\(id)-\(a.up ? "up" : "down"))\"/>"
            case .lost:
                s += "<line x1=\"\(svgNum(a.x1))\" y1=\"\(svgNum(a.y1))\" x2=\"\(svgNum(a.x2))\" y2=\"\(svgNum(a.y2))\" stroke=\"\(SVGPalette.lost)\" stroke-width=\"1.4\" stroke-dasharray=\"5 3\"/>"
                s += cross(a.x2, a.y2, 5, SVGPalette.violation, 2.2)
            case .inFlight:
                s += "<line x1=\"\(svgNum(a.x1))\" y1=\"\(svgNum(a.y1))\" x2=\"\(svgNum(a.x2))\" y2=\"\(svgNum(a.y2))\" stroke=\"\(SVGPalette.lost)\" stroke-width=\"1.2\" stroke-dasharray=\"2 2\"/>"
            }
            s += "</g>\n"
        }
        return s
    }

    struct Arrow {
        enum End { case delivered, lost, inFlight }
        var send: Int
        var x1: Double, y1: Double, x2: Double, y2: Double
        var up: Bool
        var end: End
        var title: String
        var culprit: Bool
    }

    /// Every arrow, in the order drawn: deliveries and losses in trace order, then sends still
    /// in flight at the end of the window.
    func arrowGeometry() -> [Arrow] {
        var out: [Arrow] = []
        var sends: [UInt32: Int] = [:]
        for (i, l) in lines.enumerated() where l.kind == .send { if let m = l.message, sends[m] == nil { sends[m] = i } }
        var resolved = Set<UInt32>()
        for (i, l) in lines.enumerated() where l.kind == .deliver || l.kind == .lose {
            guard let m = l.message, let si = sends[m] else { continue }
            resolved.insert(m)
            let send = lines[si]
            let up = send.upward ?? (l.upward ?? true)
            let x1 = up ? laneX(client: send.client) : laneX(client: nil)
            let x2 = up ? laneX(client: nil) : laneX(client: send.client ?? l.client)
            let y1 = ys[si], y2 = ys[i]
            let title = send.text + "\n" + l.text
            if l.kind == .deliver {
                out.append(Arrow(send: si, x1: x1, y1: y1, x2: x2, y2: y2, up: up, end: .delivered, title: title, culprit: carriesCulprit(si)))
            } else {
                out.append(Arrow(send: si, x1: x1, y1: y1, x2: (x1 + x2) / 2, y2: max(y2, y1 + 6), up: up, end: .lost, title: title, culprit: carriesCulprit(si)))
            }
        }
        for (m, si) in sends.sorted(by: { $0.value < $1.value }) where !resolved.contains(m) {
            let send = lines[si]
            let up = send.upward ?? true
            let x1 = up ? laneX(client: send.client) : laneX(client: nil)
            let x2 = up ? laneX(client: nil) : laneX(client: send.client)
            out.append(Arrow(send: si, x1: x1, y1: ys[si], x2: x1 + (x2 - x1) * 0.25, y2: ys[si] + 8, up: up, end: .inFlight,
                             title: send.text + " (still in flight)", culprit: carriesCulprit(si)))
        }
        return out
    }

    /// Arrow labels: what the message carries, at the first free spot along the arrow, else a
    /// shorter form, else none (the tooltip has it all).
    func arrowLabels(_ labels: inout LabelPlacer) {
        for a in arrowGeometry() {
            let send = lines[a.send]
            let m = carried[a.send] ?? MessageSummary(text: send.text, kind: send.label)
            let color = a.end == .delivered ? (a.up ? SVGPalette.up : SVGPalette.down) : "#777"
            var forms = [m.label(kind: send.label)]
            let shorter = MessageSummary(writes: m.writes, entities: [], tx: m.tx).label(kind: send.label, limit: 20)
            if !forms.contains(shorter) { forms.append(shorter) }
            if !forms.contains(send.label) { forms.append(clip(send.label, 16)) }
            let stops = a.end == .inFlight ? [0.5, 1.0] : [0.25, 0.5, 0.75, 0.12, 0.38, 0.62, 0.88]
            var candidates: [SVGText] = []
            for text in forms {
                for f in stops {
                    let x = a.x1 + (a.x2 - a.x1) * f, y = a.y1 + (a.y2 - a.y1) * f
                    candidates.append(SVGText(text: text, x: x, y: y - 4, fontSize: 10, anchor: .middle, fill: color, bold: a.culprit, title: a.title))
                    candidates.append(SVGText(text: text, x: x, y: y + 12, fontSize: 10, anchor: .middle, fill: color, bold: a.culprit, title: a.title))
                }
            }
            labels.place(candidates)
        }
    }

    /// The action index of the necessary-action mark on line `i`, if any.
    func necessaryIndex(_ i: Int) -> Int? { necessary[i] }

    /// Lines (window indices) that necessary-action marks point at, with the action index. A
    /// line's ordinal counts the earlier lines with its time, lane and label over the whole
    /// trace, as `actionMarks` counts steps.
    static func necessaryLines(_ marks: [SequenceDiagram.ActionMark], all: [TraceLine], window: Range<Int>) -> [Int: Int] {
        guard !marks.isEmpty else { return [:] }
        var out: [Int: Int] = [:]
        var seen: [String: Int] = [:]
        for (i, l) in all.enumerated() where l.kind == .action || l.kind == .admin || l.kind == .network {
            let key = "\(l.time)|\(l.client ?? -1)|\(l.label)"
            let n = seen[key, default: 0]
            seen[key] = n + 1
            guard window.contains(i), let m = marks.first(where: { $0.matches(l, ordinal: n) }) else { continue }
            out[i - window.lowerBound] = m.index
        }
        return out
    }

    /// Whether a user action line made a write of the culprit transaction (`… (w3)`).
    func madeCulpritWrite(_ l: TraceLine) -> Bool {
        guard l.kind == .action, !culpritWrites.isEmpty else { return false }
        return culpritWrites.contains { l.text.hasSuffix("(\($0))") }
    }

    /// Dots and markers for everything that is not a message.
    func marks() -> String {
        var s = ""
        for (i, l) in lines.enumerated() {
            let y = ys[i]
            switch l.kind {
            case .send, .deliver, .lose:
                // A small dot at each end so the lanes show where messages left and arrived.
                let x = l.kind == .send ? (l.upward == false ? laneX(client: nil) : laneX(client: l.client))
                    : l.kind == .deliver ? (l.upward == true ? laneX(client: nil) : laneX(client: l.client)) : nil
                if let x { s += "<circle cx=\"\(svgNum(x))\" cy=\"\(svgNum(y))\" r=\"2.2\" fill=\"#555\"/>\n" }
            case .heal:
                s += "<g><title>\(htmlEscape(l.text))</title><line x1=\"\(svgNum(gutter - 24))\" y1=\"\(svgNum(y))\" x2=\"\(svgNum(width - 10))\" y2=\"\(svgNum(y))\" stroke=\"#2e7d32\" stroke-width=\"1.6\" stroke-dasharray=\"10 4\"/></g>\n"
            case .network where l.label == "restart":
                let x = laneX(client: l.client)
                s += "<g><title>\(htmlEscape(l.text))</title><rect x=\"\(svgNum(x - 16))\" y=\"\(svgNum(y - 3.5))\" width=\"32\" height=\"7\" rx=\"2\" fill=\"#6a1b9a\"/></g>\n"
            case .network where l.label == "crash" || l.label == "commit unknown":
                let x = laneX(client: l.client)
                s += "<g><title>\(htmlEscape(l.text))</title>" + cross(x, y, 7, "#7f0000", 3) + "</g>\n"
            case .network where l.label == "fault armed":
                let x = laneX(client: l.client)
                s += "<g><title>\(htmlEscape(l.text))</title><path d=\"M\(svgNum(x)),\(svgNum(y - 6)) L\(svgNum(x + 6)),\(svgNum(y + 5)) L\(svgNum(x - 6)),\(svgNum(y + 5)) z\" fill=\"#ffe082\" stroke=\"#7f0000\" stroke-width=\"1.2\"/></g>\n"
            default:
                let x = laneX(client: l.client)
                let (fill, stroke, r) = style(l)
                s += "<g><title>\(htmlEscape(l.text))</title><circle cx=\"\(svgNum(x))\" cy=\"\(svgNum(y))\" r=\"\(svgNum(r))\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"1.2\"/></g>\n"
            }
            let x = laneX(client: l.kind == .applied || l.kind == .refused ? nil : l.client)
            if i == culpritLine || madeCulpritWrite(l) {
                s += "<circle cx=\"\(svgNum(x))\" cy=\"\(svgNum(y))\" r=\"9\" fill=\"none\" stroke=\"\(SVGPalette.violation)\" stroke-width=\"2.2\"/>\n"
            }
            if necessaryIndex(i) != nil {
                s += "<circle cx=\"\(svgNum(x))\" cy=\"\(svgNum(y))\" r=\"12\" fill=\"none\" stroke=\"\(SVGPalette.necessary)\" stroke-width=\"2.5\"/>\n"
            }
        }
        return s
    }

    /// The labels of marks: the violation's neighbours first (culprit, necessary actions), then
    /// the rest in trace order.
    func markLabels(_ labels: inout LabelPlacer) {
        var order = Array(lines.indices)
        let first = order.filter { $0 == culpritLine || necessaryIndex($0) != nil }
        order = first + order.filter { !first.contains($0) }
        for i in order {
            let l = lines[i], y = ys[i]
            let x = laneX(client: l.kind == .applied || l.kind == .refused ? nil : l.client)
            if let k = necessaryIndex(i) {
                labels.place([SVGText(text: "#\(k)", x: x - 15, y: y + 4, fontSize: 10, anchor: .end, fill: "#8d6e00", bold: true,
                                      title: "action #\(k) of the scenario: necessary to the failure"),
                              SVGText(text: "#\(k)", x: x, y: y - 14, fontSize: 10, anchor: .middle, fill: "#8d6e00", bold: true)])
            }
            switch l.kind {
            case .send, .deliver, .lose: continue
            case .heal:
                labels.place([SVGText(text: "heal: all online, faults off", x: width - 12, y: y - 5, fontSize: 10, anchor: .end, fill: "#2e7d32", bold: true, title: l.text),
                              SVGText(text: "heal", x: width - 12, y: y - 5, fontSize: 10, anchor: .end, fill: "#2e7d32", bold: true, title: l.text),
                              SVGText(text: "heal", x: width - 12, y: y + 13, fontSize: 10, anchor: .end, fill: "#2e7d32", bold: true, title: l.text)])
                continue
            default: break
            }
            var text = mark(l)
            var color = textColor(l)
            var bold = l.kind == .action
            switch l.label {
            case "restart" where l.kind == .network: text = "⟲ restart"; color = "#6a1b9a"; bold = true
            case "crash" where l.kind == .network: text = "✕ crash"; color = "#7f0000"; bold = true
            case "commit unknown" where l.kind == .network: text = "✕ server crash: commit unknown"; color = "#7f0000"; bold = true
            case "fault armed" where l.kind == .network: text = "fault armed"; color = "#7f0000"
            default: break
            }
            if i == culpritLine { text = "culprit " + text; color = SVGPalette.violation; bold = true }
            labels.place(dotLabelCandidates(text, x: x, y: y, color: color, bold: bold, title: l.text))
        }
    }

    /// Right of the dot up to the next lane, then a shorter form, then left of the dot.
    func dotLabelCandidates(_ text: String, x: Double, y: Double, color: String, bold: Bool, title: String) -> [SVGText] {
        let right = (nextLaneX(after: x) ?? width) - x - 22
        let left = x - (x - laneGap < gutter ? gutter - 20 : x - laneGap) - 22
        func fit(_ w: Double) -> Int { max(0, Int(w / (TextMetrics.advance * 11))) }
        var out: [SVGText] = []
        for n in [fit(right), min(fit(right), 16)] where n >= 4 {
            let t = SVGText(text: clip(text, n), x: x + 10, y: y + 4, fontSize: 11, fill: color, bold: bold, title: title)
            if !out.contains(where: { $0.text == t.text && $0.x == t.x }) { out.append(t) }
        }
        for n in [fit(left), min(fit(left), 16)] where n >= 4 {
            let t = SVGText(text: clip(text, n), x: x - 10, y: y + 4, fontSize: 11, anchor: .end, fill: color, bold: bold, title: title)
            if !out.contains(where: { $0.text == t.text && $0.x == t.x }) { out.append(t) }
        }
        return out
    }

    /// The text beside a dot. User actions ("user") and what the user was told ("told") carry
    /// generic labels; their text, without the client's name, says more.
    func mark(_ l: TraceLine) -> String {
        guard (l.kind == .action && l.label == "user") || (l.kind == .event && l.label == "told") else { return l.label }
        var t = Substring(l.text)
        let prefix = laneName(l.client) + " "
        if t.hasPrefix(prefix) { t = t.dropFirst(prefix.count) }
        return String(t)
    }

    func style(_ l: TraceLine) -> (String, String, Double) {
        switch l.kind {
        case .action: return ("#1565c0", "#0d3c78", 5)
        case .event: return ("#00897b", "#00695c", 4)
        case .applied: return ("#2e7d32", "#1b5e20", 4.5)
        case .refused: return ("#ef6c00", "#b34f00", 4.5)
        case .admin: return ("#6d4c41", "#4e342e", 4.5)
        case .network: return ("#ffffff", "#555", 4)
        case .connect: return ("#ffffff", "#7a7a7a", 3)
        case .timer: return ("#d0d0d0", "#a0a0a0", 2.5)
        default: return ("#999", "#666", 3)
        }
    }

    func textColor(_ l: TraceLine) -> String {
        switch l.kind {
        case .action: return "#0d3c78"
        case .event: return "#00695c"
        case .applied: return "#1b5e20"
        case .refused: return "#b34f00"
        case .timer, .connect: return "#999"
        default: return "#444"
        }
    }

    /// An ✕ of half-size `r` centred on (`x`, `y`).
    func cross(_ x: Double, _ y: Double, _ r: Double, _ color: String, _ w: Double) -> String {
        "<path d=\"M\(svgNum(x - r)),\(svgNum(y - r)) L\(svgNum(x + r)),\(svgNum(y + r)) M\(svgNum(x - r)),\(svgNum(y + r)) L\(svgNum(x + r)),\(svgNum(y - r))\" stroke=\"\(color)\" stroke-width=\"\(svgNum(w))\" stroke-linecap=\"round\"/>"
    }

    /// `s` in lines of at most `width` characters, broken at spaces (a longer word is cut), at
    /// most `maxLines`; the last ends in `…` when text is left over.
    func wrap(_ s: String, _ width: Int, maxLines: Int) -> [String] {
        guard width > 1, !s.isEmpty else { return s.isEmpty ? [] : [clip(s, max(1, width))] }
        var lines: [String] = []
        var current = ""
        for word in s.split(separator: " ", omittingEmptySubsequences: true) {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if candidate.count <= width { current = candidate; continue }
            if !current.isEmpty { lines.append(current) }
            current = String(word)
            while current.count > width { lines.append(String(current.prefix(width))); current = String(current.dropFirst(width)) }
        }
        if !current.isEmpty { lines.append(current) }
        guard lines.count > maxLines else { return lines }
        var kept = Array(lines.prefix(maxLines))
        kept[maxLines - 1] = clip(kept[maxLines - 1] + " " + lines[maxLines], width)
        if !kept[maxLines - 1].hasSuffix("…") { kept[maxLines - 1] = clip(kept[maxLines - 1], width - 1) + "…" }
        return kept
    }

    func oneLine(_ s: String) -> String {
        String(s.map { $0 == "\n" || $0 == "\r" || $0 == "\t" ? " " : $0 })
    }

    func duration(_ ms: Int64) -> String {
        ms >= 1_000 ? "\(ms / 1_000).\(ms % 1_000 / 100) s" : "\(ms) ms"
    }
}

private enum SVGPalette {
    static let up = "#1e66c8"
    static let down = "#8e44ad"
    static let lost = "#9e9e9e"
    static let offline = "#dcdcdc"
    static let violation = "#d32f2f"
    static let necessary = "#f9a825"
}

/// Numbers for SVG attributes: at most one decimal, no locale, no exponent.
func svgNum(_ v: Double) -> String {
    let tenths = Int64((v * 10).rounded())
    let sign = tenths < 0 ? "-" : ""
    let a = abs(tenths)
    return a % 10 == 0 ? "\(sign)\(a / 10)" : "\(sign)\(a / 10).\(a % 10)"
}

/// Escapes text for HTML, SVG and XML (JUnit) content and attribute values. Control
/// characters other than newline and tab, which XML 1.0 forbids, become spaces.
func htmlEscape(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.count)
    for ch in s.unicodeScalars {
        switch ch {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default:
            if ch.value < 0x20 && ch != "\n" && ch != "\t" { out += " " } else { out.unicodeScalars.append(ch) }
        }
    }
    return out
}
