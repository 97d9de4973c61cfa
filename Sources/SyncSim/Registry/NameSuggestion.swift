/// "Did you mean …?" for mistyped names: the candidates within a small edit distance, ignoring
/// case. Deterministic: ties keep the candidates' order.
public enum NameSuggestion {
    /// Up to `limit` candidates close to `name`, closest first. Close means an edit distance of
    /// at most a third of the name's length (at least 2), or one name containing the other.
    public static func closest(to name: String, in candidates: [String], limit: Int = 3) -> [String] {
        let typed = Array(name.lowercased())
        guard !typed.isEmpty else { return [] }
        let allowed = max(2, typed.count / 3)
        var scored: [(distance: Int, index: Int, name: String)] = []
        for (i, c) in candidates.enumerated() {
            let lower = c.lowercased()
            let d = distance(typed, Array(lower))
            if d <= allowed || (typed.count >= 3 && (lower.contains(String(typed)) || String(typed).contains(lower))) {
                scored.append((d, i, c))
            }
        }
        return scored.sorted { ($0.distance, $0.index) < ($1.distance, $1.index) }.prefix(limit).map(\.name)
    }

    /// Levenshtein distance with transpositions counted as one edit (optimal string alignment):
    /// `intsant` is one edit from `instant`.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
