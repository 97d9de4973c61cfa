/// Parsers for option values with more shape than a number. Each error names the option and
/// shows a value that would be accepted.
enum OptionValues {
    /// `60s`, `5m`, `1500ms` or plain seconds; nil for 0 (no budget).
    static func budget(_ s: String, option: String = "--time-budget") throws -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        var seconds: Double?
        for (u, f) in units where s.hasSuffix(u) {
            if let v = Double(s.dropLast(u.count)) { seconds = v * f; break }
        }
        if seconds == nil { seconds = Double(s) }
        guard let v = seconds, !v.isNaN, v >= 0 else {
            throw UsageError("\(option) expects a duration such as 60s, 5m or 1500ms (0 for no budget), got '\(s)'")
        }
        return v == 0 ? nil : v
    }

    /// `A..B` or `A..<B`: whole numbers A < B, B excluded.
    static func seedRange(_ s: String, option: String = "--seeds") throws -> SeedRange {
        let parts = s.components(separatedBy: "..")
        guard parts.count == 2, let a = UInt64(parts[0]),
              let b = UInt64(parts[1].hasPrefix("<") ? String(parts[1].dropFirst()) : parts[1]), a < b else {
            throw UsageError("\(option) expects A..B with whole numbers 0 ≤ A < B ≤ \(UInt64.max) (B excluded), got '\(s)'")
        }
        return SeedRange(a..<b)
    }

    /// `K/N` with 1 ≤ K ≤ N.
    static func shard(_ s: String, option: String = "--shard") throws -> Shard {
        let p = s.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard p.count == 2, let k = p[0], let n = p[1], let shard = try? Shard(k, of: n) else {
            throw UsageError("\(option) expects K/N with 1 ≤ K ≤ N, e.g. 2/4, got '\(s)'")
        }
        return shard
    }
}
