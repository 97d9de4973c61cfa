/// Parsers for option values with more shape than a number. Each error names the option and
/// shows a value that would be accepted.
enum OptionValues {
    /// The longest budget accepted: 30 days, longer than any CI job.
    static let maxBudgetSeconds: Double = 30 * 24 * 3600

    /// `60s`, `5m`, `1500ms`, `1h` or plain seconds; nil for 0 (no budget).
    static func budget(_ s: String, option: String = "--time-budget") throws -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var seconds: Double?
        for (u, f) in units where s.hasSuffix(u) {
            if let v = number(s.dropLast(u.count)) { seconds = v * f; break }
        }
        if seconds == nil { seconds = number(Substring(s)) }
        guard let v = seconds, v.isFinite, v >= 0, v <= maxBudgetSeconds else {
            throw UsageError("\(option) expects a duration from 0 to 30 days, such as 60s, 5m, 1h or 1500ms (0 for no budget), got '\(shown(s))'")
        }
        return v == 0 ? nil : v
    }

    /// A plain decimal number: digits with at most one point (no signs, exponents, `inf`, `nan`
    /// or hex, which `Double(_:)` would accept).
    private static func number(_ s: Substring) -> Double? {
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), s.count(where: { $0 == "." }) <= 1, s != "." else { return nil }
        return Double(s)
    }

    /// A seed range as Swift users write it: `A..<B` and `A..B` (B excluded) or `A...B` (B
    /// included), whole numbers, non-empty.
    static func seedRange(_ s: String, option: String = "--seeds") throws -> SeedRange {
        let usage = "\(option) expects A..<B or A..B (B excluded) or A...B (B included), whole numbers with 0 ≤ A < B ≤ \(UInt64.max), e.g. 0..<200"
        let forms: [(String, Bool)] = [("...", true), ("..<", false), ("..", false)]
        guard let (sep, closed) = forms.first(where: { s.contains($0.0) }) else { throw UsageError("\(usage); got '\(shown(s))'") }
        let parts = s.components(separatedBy: sep)
        guard parts.count == 2, let a = UInt64(parts[0]), let b = UInt64(parts[1]) else {
            throw UsageError("\(usage); got '\(shown(s))'")
        }
        if closed {
            guard a <= b else { throw UsageError("\(option) '\(shown(s))' is empty: A...B needs A ≤ B") }
            guard b < UInt64.max else { throw UsageError("\(option) '\(shown(s))' ends at the largest seed, which a range cannot include; use \(a)..<\(UInt64.max)") }
            return SeedRange(a..<(b + 1))
        }
        guard a < b else { throw UsageError("\(option) '\(shown(s))' is empty: A..<B needs A < B") }
        return SeedRange(a..<b)
    }

    /// `K/N` with 1 ≤ K ≤ N.
    static func shard(_ s: String, option: String = "--shard") throws -> Shard {
        let p = s.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard p.count == 2, let k = p[0], let n = p[1], let shard = try? Shard(k, of: n) else {
            throw UsageError("\(option) expects K/N with 1 ≤ K ≤ N, e.g. 2/4, got '\(shown(s))'")
        }
        return shard
    }

    /// Text for the terminal with every control character but newline shown escaped: the last
    /// guard of every error line, whatever a message quotes (a strategy name with a NUL, an
    /// escape sequence in a path).
    static func visible(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isControl) else { return s }
        var out = ""
        for c in s.unicodeScalars {
            if c != "\n" && isControl(c) { out += "\\u{\(String(c.value, radix: 16))}" } else { out.unicodeScalars.append(c) }
        }
        return out
    }

    private static func isControl(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x20 || c.value == 0x7F || (0x80..<0xA0).contains(c.value)
    }

    /// A value as an error message shows it: control characters (NUL, escape, newlines) made
    /// visible, at most 60 characters, so a hostile argument can neither garble a terminal nor
    /// flood a log.
    static func shown(_ s: String, limit: Int = 60) -> String {
        var out = ""
        var n = 0
        for c in s.unicodeScalars {
            if n == limit { return out + "… (\(s.unicodeScalars.count) characters)" }
            if isControl(c) {
                out += "\\u{\(String(c.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(c)
            }
            n += 1
        }
        return out
    }
}
