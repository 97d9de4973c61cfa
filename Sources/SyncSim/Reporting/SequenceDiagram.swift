import Foundation

/// A Lamport-style sequence diagram of one trace, as inline SVG (in the spirit of Maelstrom's
/// diagrams): one vertical lane per client plus one for the server, time flowing down, messages
/// as arrows from send to delivery, lost messages ending in ✗ mid-way, offline and unreachable
/// windows shaded, and the violation marked in red.
///
/// Time is drawn by rows, not to scale: each distinct moment gets a row (lines at the same moment
/// on different lanes share it), and the gap before a row grows only logarithmically with the
/// idle time, capped, so long quiet periods never make giant diagrams. Long gaps are labelled.
/// A pure function of its input: the same trace gives the same bytes.
public enum SequenceDiagram {
    /// At most this many trace lines are drawn; longer traces show a window around the violation.
    public static let maxLines = 400

    /// The SVG for `trace`. `id` makes marker ids unique within a page.
    public static func svg(trace: [TraceLine], clients: Int, violationTimeMs: Int64?, violationClient: Int?, id: String) -> String {
        Layout(trace: trace, clients: max(clients, (trace.compactMap(\.client).max() ?? -1) + 1),
               violationTime: violationTimeMs, violationClient: violationClient, id: id).render()
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
    let top = 54.0, gutter = 78.0, laneGap = 210.0, rightMargin = 190.0
    let rowHeight = 20.0, maxGapExtra = 34.0, bottom = 30.0
    /// Gaps longer than this get a "… 12.3 s" break mark.
    let breakMs: Int64 = 2_000

    let lines: [TraceLine]
    let window: Range<Int>
    let all: [TraceLine]
    let clients: Int
    let violationTime: Int64?
    let violationClient: Int?
    let id: String

    /// Lane order: the first half of the clients, the server, the rest (fewest crossings).
    let serverLane: Int
    var ys: [Double] = []
    var height = 0.0

    init(trace: [TraceLine], clients: Int, violationTime: Int64?, violationClient: Int?, id: String) {
        all = trace
        window = SequenceDiagram.window(trace, violationTimeMs: violationTime)
        lines = Array(trace[window])
        self.clients = clients
        self.violationTime = violationTime
        self.violationClient = violationClient
        self.id = id
        serverLane = (clients + 1) / 2
        layoutRows()
    }

    var laneCount: Int { clients + 1 }
    var width: Double { gutter + Double(laneCount - 1) * laneGap + rightMargin }

    func laneX(client: Int?) -> Double {
        guard let c = client else { return gutter + Double(serverLane) * laneGap }
        let slot = c < serverLane ? c : c + 1
        return gutter + Double(slot) * laneGap
    }

    func laneName(_ c: Int?) -> String { c.map { ClientID($0).description } ?? "server" }

    /// Rows: a new row when the time changes or the lane is already used in this row.
    mutating func layoutRows() {
        var y = top + 16
        var lastTime: Int64?
        var used = Set<Int>()
        for l in lines {
            let lane = l.client ?? -1
            if let t = lastTime, t == l.time, !used.contains(lane) {
                used.insert(lane)
            } else {
                if let t = lastTime {
                    y += rowHeight + gapExtra(l.time - t)
                }
                used = [lane]
                lastTime = l.time
            }
            ys.append(y)
        }
        height = (ys.last ?? top) + rowHeight + bottom + (violationAfterEnd ? rowHeight * 1.5 : 0)
    }

    func gapExtra(_ dt: Int64) -> Double {
        guard dt > 0 else { return 0 }
        return min(maxGapExtra, 5 * log2(1 + Double(dt) / 20))
    }

    /// The violation falls after every drawn line (end-of-run checks).
    var violationAfterEnd: Bool {
        guard let v = violationTime else { return false }
        return !lines.contains { $0.time >= v }
    }

    var violationY: Double? {
        guard let v = violationTime else { return nil }
        if let i = lines.firstIndex(where: { $0.time >= v }) {
            return lines[i].time == v ? ys[i] : ys[i] - rowHeight / 2
        }
        return (ys.last ?? top) + rowHeight * 1.2
    }

    // MARK: Rendering

    func render() -> String {
        var s = ""
        let w = svgNum(width), h = svgNum(height)
        s += "<svg class=\"seq\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\" font-family=\"ui-monospace, Menlo, Consolas, monospace\" font-size=\"11\">\n"
        s += "<defs>"
        for (name, color) in [("up", SVGPalette.up), ("down", SVGPalette.down), ("lost", SVGPalette.lost)] {
            s += "<marker id=\"\(id)-\(name)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"\(color)\"/></marker>"
        }
        s += "<pattern id=\"\(id)-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff4e0\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#f0b360\" stroke-width=\"2\"/></pattern>"
        s += "</defs>\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        s += windows()
        s += lanes()
        s += timeAxis()
        s += violationBand()
        s += arrows()
        s += marks()
        s += violationMarker()
        s += "</svg>"
        return s
    }

    /// Offline (grey) and unreachable (hatched amber) windows on client lanes, and their state
    /// at the start of the window (from lines before it).
    func windows() -> String {
        var s = ""
        let endY = height - bottom
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
            func band(_ from: Double, _ to: Double, _ fill: String, _ label: String) -> String {
                let hgt = max(4, to - from)
                return "<g><title>\(htmlEscape(laneName(c))) \(label)</title><rect x=\"\(svgNum(x - 11))\" y=\"\(svgNum(from))\" width=\"22\" height=\"\(svgNum(hgt))\" rx=\"3\" fill=\"\(fill)\" stroke=\"\(fill == SVGPalette.offline ? "#9a9a9a" : "#e0a040")\" stroke-width=\"0.8\"/></g>\n"
            }
            for (i, l) in lines.enumerated() where l.client == c && l.kind == .network {
                switch l.label {
                case "offline": if offStart == nil { offStart = ys[i] }
                case "online", "launch":
                    if let a = offStart { s += band(a, ys[i], SVGPalette.offline, "offline"); offStart = nil }
                case "unreachable": if unStart == nil { unStart = ys[i] }
                case "reachable":
                    if let a = unStart { s += band(a, ys[i], "url(#\(id)-hatch)", "unreachable"); unStart = nil }
                default: break
                }
            }
            if let a = offStart { s += band(a, endY, SVGPalette.offline, "offline") }
            if let a = unStart { s += band(a, endY, "url(#\(id)-hatch)", "unreachable") }
        }
        return s
    }

    func lanes() -> String {
        var s = ""
        let endY = height - bottom
        for c in [nil] + (0..<clients).map({ Optional($0) }) {
            let x = laneX(client: c)
            let server = c == nil
            s += "<line x1=\"\(svgNum(x))\" y1=\"\(svgNum(top))\" x2=\"\(svgNum(x))\" y2=\"\(svgNum(endY))\" stroke=\"\(server ? "#444" : "#888")\" stroke-width=\"\(server ? 2 : 1.2)\"/>\n"
            s += "<rect x=\"\(svgNum(x - 44))\" y=\"12\" width=\"88\" height=\"26\" rx=\"5\" fill=\"\(server ? "#37474f" : "#e8eef7")\" stroke=\"#37474f\"/>"
            s += "<text x=\"\(svgNum(x))\" y=\"30\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\" fill=\"\(server ? "#fff" : "#1b2a3a")\">\(server ? "server" : "client " + laneName(c))</text>"
            s += "<text x=\"\(svgNum(x))\" y=\"\(svgNum(endY + 16))\" text-anchor=\"middle\" font-size=\"11\" font-weight=\"bold\" fill=\"#888\">\(server ? "server" : laneName(c))</text>\n"
        }
        return s
    }

    /// Times in the gutter (once per distinct time), and break marks over long gaps.
    func timeAxis() -> String {
        var s = ""
        var lastTime: Int64?
        var lastY = -100.0
        for (i, l) in lines.enumerated() where l.time != lastTime {
            if let t = lastTime, l.time - t > breakMs {
                let y = ys[i] - rowHeight / 2 - gapExtra(l.time - t) / 2
                s += "<line x1=\"4\" y1=\"\(svgNum(y))\" x2=\"\(svgNum(width - 4))\" y2=\"\(svgNum(y))\" stroke=\"#ccc\" stroke-dasharray=\"2 4\"/>"
                s += "<text x=\"\(svgNum(width - 6))\" y=\"\(svgNum(y - 3))\" text-anchor=\"end\" font-size=\"9\" fill=\"#999\">⋯ \(duration(l.time - t)) idle</text>\n"
            }
            lastTime = l.time
            if ys[i] - lastY >= 11 {
                s += "<text x=\"\(svgNum(gutter - 30))\" y=\"\(svgNum(ys[i] + 4))\" text-anchor=\"end\" font-size=\"10\" fill=\"#8a8a8a\">\(l.time)</text>\n"
                lastY = ys[i]
            }
        }
        s += "<text x=\"\(svgNum(gutter - 30))\" y=\"\(svgNum(top + 2))\" text-anchor=\"end\" font-size=\"10\" fill=\"#8a8a8a\">ms</text>\n"
        return s
    }

    func violationBand() -> String {
        guard let y = violationY else { return "" }
        return "<rect x=\"0\" y=\"\(svgNum(y - 7))\" width=\"\(svgNum(width))\" height=\"14\" fill=\"\(SVGPalette.violation)\" fill-opacity=\"0.14\"/>"
            + "<line x1=\"0\" y1=\"\(svgNum(y))\" x2=\"\(svgNum(width))\" y2=\"\(svgNum(y))\" stroke=\"\(SVGPalette.violation)\" stroke-width=\"1.2\" stroke-dasharray=\"6 3\"/>\n"
    }

    func violationMarker() -> String {
        guard let y = violationY, let t = violationTime else { return "" }
        let x = laneX(client: violationClient)
        let who = violationClient.map { " on " + laneName($0) } ?? ""
        return "<g><title>violation at \(t) ms\(htmlEscape(who))</title>"
            + "<circle cx=\"\(svgNum(x))\" cy=\"\(svgNum(y))\" r=\"8\" fill=\"\(SVGPalette.violation)\"/>"
            + "<text x=\"\(svgNum(x))\" y=\"\(svgNum(y + 4))\" text-anchor=\"middle\" font-size=\"11\" font-weight=\"bold\" fill=\"#fff\">!</text>"
            + "<text x=\"\(svgNum(x + 12))\" y=\"\(svgNum(y + 4))\" font-size=\"11\" font-weight=\"bold\" fill=\"\(SVGPalette.violation)\" \(halo)>violation @\(t)ms</text></g>\n"
    }

    /// Message arrows: send → each delivery; send → ✗ mid-way for losses.
    func arrows() -> String {
        var s = ""
        var sends: [UInt32: Int] = [:]
        for (i, l) in lines.enumerated() where l.kind == .send { if let m = l.message, sends[m] == nil { sends[m] = i } }
        var resolved = Set<UInt32>()
        for (i, l) in lines.enumerated() where l.kind == .deliver || l.kind == .lose {
            guard let m = l.message, let si = sends[m] else { continue }
            resolved.insert(m)
            let send = lines[si]
            let up = send.upward ?? (l.upward ?? true)
            let x1 = up ? laneX(client: send.client) : laneX(client: nil)
            let x2full = up ? laneX(client: nil) : laneX(client: send.client ?? l.client)
            let y1 = ys[si], y2 = ys[i]
            let title = htmlEscape(send.text) + "\n" + htmlEscape(l.text)
            if l.kind == .deliver {
                let color = up ? SVGPalette.up : SVGPalette.down
                s += "<g><title>\(title)</title><line x1=\"\(svgNum(x1))\" y1=\"\(svgNum(y1))\" x2=\"\(svgNum(x2full))\" y2=\"\(svgNum(y2))\" stroke=\"\(color)\" stroke-width=\"1.4\" marker-end=\"url(#\(id)-\(up ? "up" : "down"))\"/>"
                s += arrowLabel(send.label, x1, y1, x2full, y2, color) + "</g>\n"
            } else {
                let xm = (x1 + x2full) / 2
                let ym = max(y2, y1 + 6)
                s += "<g><title>\(title)</title><line x1=\"\(svgNum(x1))\" y1=\"\(svgNum(y1))\" x2=\"\(svgNum(xm))\" y2=\"\(svgNum(ym))\" stroke=\"\(SVGPalette.lost)\" stroke-width=\"1.4\" stroke-dasharray=\"5 3\"/>"
                s += "<text x=\"\(svgNum(xm))\" y=\"\(svgNum(ym + 5))\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\" fill=\"\(SVGPalette.violation)\">✗</text>"
                s += arrowLabel(send.label, x1, y1, xm, ym, SVGPalette.lost) + "</g>\n"
            }
        }
        // Sent but neither delivered nor lost within the window: a short stub.
        for (m, si) in sends.sorted(by: { $0.value < $1.value }) where !resolved.contains(m) {
            let send = lines[si]
            let up = send.upward ?? true
            let x1 = up ? laneX(client: send.client) : laneX(client: nil)
            let x2 = up ? laneX(client: nil) : laneX(client: send.client)
            let xe = x1 + (x2 - x1) * 0.25
            s += "<g><title>\(htmlEscape(send.text)) (still in flight)</title><line x1=\"\(svgNum(x1))\" y1=\"\(svgNum(ys[si]))\" x2=\"\(svgNum(xe))\" y2=\"\(svgNum(ys[si] + 8))\" stroke=\"\(SVGPalette.lost)\" stroke-width=\"1.2\" stroke-dasharray=\"2 2\"/></g>\n"
        }
        return s
    }

    func arrowLabel(_ label: String, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ color: String) -> String {
        let f = 0.22
        let x = x1 + (x2 - x1) * f, y = y1 + (y2 - y1) * f - 3
        return "<text x=\"\(svgNum(x))\" y=\"\(svgNum(y))\" text-anchor=\"middle\" font-size=\"10\" fill=\"\(color)\" \(halo)>\(htmlEscape(short(label)))</text>"
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
                s += "<g><title>\(htmlEscape(l.text))</title><line x1=\"\(svgNum(gutter - 20))\" y1=\"\(svgNum(y))\" x2=\"\(svgNum(width - 20))\" y2=\"\(svgNum(y))\" stroke=\"#2e7d32\" stroke-width=\"1.2\" stroke-dasharray=\"8 4\"/>"
                s += "<text x=\"\(svgNum(width - 20))\" y=\"\(svgNum(y - 4))\" text-anchor=\"end\" font-size=\"10\" fill=\"#2e7d32\" \(halo)>heal</text></g>\n"
            case .network where l.label == "restart":
                let x = laneX(client: l.client)
                s += "<g><title>\(htmlEscape(l.text))</title><rect x=\"\(svgNum(x - 16))\" y=\"\(svgNum(y - 3))\" width=\"32\" height=\"6\" fill=\"#6a1b9a\"/>"
                s += label("⟲ restart", x + 10, y, "#6a1b9a", bold: true) + "</g>\n"
            case .violation:
                let x = laneX(client: l.client)
                s += "<g><title>\(htmlEscape(l.text))</title><circle cx=\"\(svgNum(x))\" cy=\"\(svgNum(y))\" r=\"6\" fill=\"\(SVGPalette.violation)\"/>"
                s += label(l.label, x, y, SVGPalette.violation, bold: true) + "</g>\n"
            default:
                let x = laneX(client: l.client)
                let (fill, stroke, r) = style(l)
                s += "<g><title>\(htmlEscape(l.text))</title><circle cx=\"\(svgNum(x))\" cy=\"\(svgNum(y))\" r=\"\(svgNum(r))\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"1.2\"/>"
                s += label(short(mark(l)), x, y, textColor(l), bold: l.kind == .action) + "</g>\n"
            }
        }
        return s
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

    func label(_ text: String, _ x: Double, _ y: Double, _ color: String, bold: Bool = false) -> String {
        "<text x=\"\(svgNum(x + 9))\" y=\"\(svgNum(y + 4))\" fill=\"\(color)\"\(bold ? " font-weight=\"bold\"" : "") \(halo)>\(htmlEscape(text))</text>"
    }

    var halo: String { "paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\"" }

    func short(_ s: String, _ n: Int = 28) -> String {
        s.count <= n ? s : String(s.prefix(n - 1)) + "…"
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
