/// Text on a sequence diagram, placed so that no two labels overlap.
///
/// Why: a busy run puts an arrow label, a dot label and a time on the same 20 px row, and SVG
/// text never moves out of the way by itself; overlapping labels were the first thing a reader
/// of the old diagrams could not read. Every `<text>` the diagram draws goes through a
/// `LabelPlacer`: it is given candidate positions in order of preference (further along the
/// arrow, the other side of the dot, a shorter form) and takes the first whose box is free. A
/// label with no free candidate is left out; its full text stays in the tooltip of the arrow or
/// dot it belongs to. The boxes come from `TextMetrics`, a conservative width estimate for the
/// monospace font the diagram uses, so a test can recompute them from the SVG and check.

/// A rectangle in SVG user units.
struct LabelBox: Equatable, Sendable {
    var x: Double, y: Double, w: Double, h: Double

    func overlaps(_ o: LabelBox) -> Bool {
        x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h
    }
}

/// Widths of text in the diagram's monospace font.
enum TextMetrics {
    /// Advance of one character, as a share of the font size: monospace fonts (Menlo,
    /// Consolas, DejaVu Sans Mono) use 0.6; 0.62 leaves a margin.
    static let advance = 0.62

    /// Estimated width of `s` at `fontSize`: symbols outside the basic blocks (✗, ⟲, ◆, CJK,
    /// emoji) are often drawn by a fallback font at up to a full em; combining marks take none.
    static func width(_ s: String, fontSize: Double) -> Double {
        var w = 0.0
        for u in s.unicodeScalars {
            switch u.value {
            case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: break
            case 0x2026: w += advance
            case 0x1100...: w += 1.0
            default: w += advance
            }
        }
        return w * fontSize
    }

    /// The box of a `<text>` at (`x`, baseline `y`), with `anchor` start, middle or end.
    static func box(_ s: String, x: Double, y: Double, fontSize: Double, anchor: SVGText.Anchor) -> LabelBox {
        let w = width(s, fontSize: fontSize)
        let left: Double
        switch anchor {
        case .start: left = x
        case .middle: left = x - w / 2
        case .end: left = x - w
        }
        return LabelBox(x: left, y: y - fontSize * 0.85, w: w, h: fontSize * 1.1)
    }
}

/// One `<text>` element: where, how, and what its box is.
struct SVGText: Sendable {
    enum Anchor: String, Sendable { case start, middle, end }

    var text: String
    var x: Double
    var y: Double
    var fontSize: Double = 11
    var anchor: Anchor = .start
    var fill = "#444"
    var bold = false
    /// A white outline behind the glyphs, so a label stays readable over a line.
    var halo = true
    /// Tooltip (the full text when the label is a short form).
    var title: String? = nil

    var box: LabelBox { TextMetrics.box(text, x: x, y: y, fontSize: fontSize, anchor: anchor) }

    var svg: String {
        var s = "<text x=\"\(svgNum(x))\" y=\"\(svgNum(y))\""
        if anchor != .start { s += " text-anchor=\"\(anchor.rawValue)\"" }
        s += " font-size=\"\(svgNum(fontSize))\" fill=\"\(fill)\""
        if bold { s += " font-weight=\"bold\"" }
        if halo { s += " paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\"" }
        s += ">"
        if let title { s += "<title>\(htmlEscape(title))</title>" }
        return s + htmlEscape(text) + "</text>"
    }
}

/// Places labels first come, first served: callers offer the most important labels first.
/// Boxes are kept in 32 px bands of y, so a check looks at a few neighbours, not every label.
struct LabelPlacer {
    /// Space kept free around every label (px).
    static let padding = 1.5
    static let band = 32.0

    private var bands: [Int: [LabelBox]] = [:]
    private(set) var placed: [SVGText] = []
    /// Labels for which no candidate was free (left out; their text is in a tooltip).
    private(set) var dropped = 0

    private func bandRange(_ b: LabelBox) -> ClosedRange<Int> {
        Int((b.y / Self.band).rounded(.down))...Int(((b.y + b.h) / Self.band).rounded(.down))
    }

    private func padded(_ b: LabelBox) -> LabelBox {
        LabelBox(x: b.x - Self.padding, y: b.y - Self.padding, w: b.w + 2 * Self.padding, h: b.h + 2 * Self.padding)
    }

    func isFree(_ b: LabelBox) -> Bool {
        let p = padded(b)
        for k in bandRange(p) { for o in bands[k] ?? [] where o.overlaps(p) { return false } }
        return true
    }

    /// Marks `b` as taken without drawing anything there (a shape that labels must not cover).
    mutating func reserve(_ b: LabelBox) {
        for k in bandRange(b) { bands[k, default: []].append(b) }
    }

    /// Places the first candidate whose box is free and inside `bounds` (when given); returns it.
    @discardableResult
    mutating func place(_ candidates: [SVGText], within bounds: LabelBox? = nil) -> SVGText? {
        for c in candidates where !c.text.isEmpty {
            let b = c.box
            if let r = bounds, b.x < r.x || b.y < r.y || b.x + b.w > r.x + r.w || b.y + b.h > r.y + r.h { continue }
            if isFree(b) {
                reserve(b)
                placed.append(c)
                return c
            }
        }
        if !candidates.isEmpty { dropped += 1 }
        return nil
    }

    /// Draws `t` whatever is there (headers and other fixed text placed before any label).
    mutating func force(_ t: SVGText) {
        reserve(t.box)
        placed.append(t)
    }

    var svg: String { placed.map(\.svg).joined(separator: "\n") + "\n" }
}
