/// A query's `where` beyond one equality: comparisons, `$in`, `and`/`or` (InstaQL's where
/// clause, seed 002 "Where Clause Features").
///
/// Why a small expression and not only `Query.filter`: seed 001's partial views are "queries with
/// filters or limits", and seed 002 names `$in`, `$gt`/`$lt` and `or`/`and`. Which entities a
/// filtered view hides decides which of them a diff-based save wrongly deletes, so the
/// simulator needs the same shapes the apps write.
///
/// Semantics, chosen to be total and deterministic:
/// - a comparison with a field the record has no value for is false, except `$ne`, which is true
///   (the value is not equal); `$in` is false;
/// - ints compare as integers; strings compare by their UTF-8 bytes (the same order on every
///   platform and independent of locale); bools take only `==`, `$ne` and `$in` (checked when a
///   schedule is compiled);
/// - `and([])` is true, `or([])` is false (never produced by the codecs: they refuse empty lists).
public indirect enum QueryCondition: Hashable, Sendable, CustomStringConvertible, StableHashable {
    public enum Comparison: String, Hashable, Sendable, CaseIterable {
        case eq = "$eq", ne = "$ne", gt = "$gt", gte = "$gte", lt = "$lt", lte = "$lte"

        var symbol: String {
            switch self {
            case .eq: return "=="
            case .ne: return "!="
            case .gt: return ">"
            case .gte: return ">="
            case .lt: return "<"
            case .lte: return "<="
            }
        }
        /// Whether the comparison needs an order (refused on bools).
        public var isOrdering: Bool { self != .eq && self != .ne }
    }

    case compare(FieldID, Comparison, FieldValue)
    case isIn(FieldID, [FieldValue])
    case and([QueryCondition])
    case or([QueryCondition])

    /// Whether `r` satisfies the condition (the namespace is the caller's to check).
    public func matches(_ r: EntityRecord) -> Bool {
        switch self {
        case .compare(let f, let op, let v):
            guard let x = r[f] else { return op == .ne }
            return Self.holds(x, op, v)
        case .isIn(let f, let vs):
            guard let x = r[f] else { return false }
            return vs.contains(x)
        case .and(let cs):
            for c in cs where !c.matches(r) { return false }
            return true
        case .or(let cs):
            for c in cs where c.matches(r) { return true }
            return false
        }
    }

    static func holds(_ x: FieldValue, _ op: Comparison, _ v: FieldValue) -> Bool {
        switch op {
        case .eq: return x == v
        case .ne: return x != v
        default: break
        }
        let order: Int
        switch (x, v) {
        case (.int(let a), .int(let b)): order = a < b ? -1 : (a == b ? 0 : 1)
        case (.string(let a), .string(let b)): order = Self.compareBytes(a, b)
        default: return false
        }
        switch op {
        case .gt: return order > 0
        case .gte: return order >= 0
        case .lt: return order < 0
        case .lte: return order <= 0
        case .eq, .ne: return false
        }
    }

    /// Lexicographic order of the UTF-8 bytes: -1, 0 or 1.
    static func compareBytes(_ a: String, _ b: String) -> Int {
        var i = a.utf8.makeIterator(), j = b.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    /// Every field the condition reads, in first-mention order.
    public var fields: [FieldID] {
        var out: [FieldID] = []
        func walk(_ c: QueryCondition) {
            switch c {
            case .compare(let f, _, _), .isIn(let f, _): if !out.contains(f) { out.append(f) }
            case .and(let cs), .or(let cs): cs.forEach(walk)
            }
        }
        walk(self)
        return out
    }

    /// Nesting depth (a comparison is 1).
    public var depth: Int {
        switch self {
        case .compare, .isIn: return 1
        case .and(let cs), .or(let cs): return 1 + (cs.map(\.depth).max() ?? 0)
        }
    }

    /// Number of nodes (comparisons, `$in`s and `and`/`or`s).
    public var size: Int {
        switch self {
        case .compare, .isIn: return 1
        case .and(let cs), .or(let cs): return 1 + cs.reduce(0) { $0 + $1.size }
        }
    }

    public var description: String {
        switch self {
        case .compare(let f, let op, let v): return "\(f.name) \(op.symbol) \(v)"
        case .isIn(let f, let vs): return "\(f.name) in [\(vs.map(\.description).joined(separator: ", "))]"
        case .and(let cs): return "(" + cs.map(\.description).joined(separator: " and ") + ")"
        case .or(let cs): return "(" + cs.map(\.description).joined(separator: " or ") + ")"
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .compare(let f, let op, let v):
            h.byte(1); h.byte(f.raw); h.byte(UInt8(Comparison.allCases.firstIndex(of: op)!)); v.stableHash(into: &h)
        case .isIn(let f, let vs):
            h.byte(2); h.byte(f.raw); h.combine(vs.count); for v in vs { v.stableHash(into: &h) }
        case .and(let cs):
            h.byte(3); h.combine(cs.count); for c in cs { c.stableHash(into: &h) }
        case .or(let cs):
            h.byte(4); h.combine(cs.count); for c in cs { c.stableHash(into: &h) }
        }
    }
}
