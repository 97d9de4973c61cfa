/// A scalar value. Encoded in scenario files as the plain JSON value (`"Te"`, `3`, `true`).
public enum FieldValue: Hashable, Sendable, CustomStringConvertible, Codable, StableHashable {
    case string(String)
    case int(Int)
    case bool(Bool)

    /// Equal kinds and equal payloads, strings compared by their UTF-8 bytes.
    ///
    /// Why not Swift's `String ==`: it is Unicode canonical equivalence ("é" as one code point
    /// equals "e" plus a combining accent), while everything a run shows is bytes: the trace
    /// hash, the story, the JSON, and the byte order of `QueryCondition`'s `<`. Every "equal, so
    /// keep what is there" shortcut (`EntityRecord.assign`, a table keeping a row equal to the
    /// server's, a cache reusing a step built from equal values) would otherwise keep the old
    /// bytes when a schedule writes the same text in another form, and `$eq` would match what
    /// `$gte` orders apart. A sync engine stores bytes; so do we. `hash(into:)` stays the
    /// synthesised one (by canonical form), which is coarser than this equality and so
    /// consistent with it.
    @inline(__always)
    public static func == (a: FieldValue, b: FieldValue) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.string(let x), .string(let y)): return sameBytes(x, y)
        default: return false
        }
    }

    /// Whether two strings have the same UTF-8 bytes. Read in place: first the two strings'
    /// own words (equal words are the same storage object, or the same small string with its
    /// bytes held inline: the same bytes either way; a copy of a value keeps its words, so this
    /// is the usual case), then one comparison of base addresses, then the bytes. (Without the
    /// first test, every equal small string was read through its UTF-8 view byte by byte: the
    /// oracles compare values by the thousand per event, +6% instructions per event for pushPull
    /// at 3,000 actions.)
    @inline(__always)
    static func sameBytes(_ x: String, _ y: String) -> Bool {
        if MemoryLayout<String>.size == 16,
           unsafeBitCast(x, to: (UInt64, UInt64).self) == unsafeBitCast(y, to: (UInt64, UInt64).self) { return true }
        let u = x.utf8, v = y.utf8
        guard u.count == v.count else { return false }
        if let r = u.withContiguousStorageIfAvailable({ p in
            v.withContiguousStorageIfAvailable { q in p.baseAddress == q.baseAddress || p.elementsEqual(q) }
        }), let same = r {
            return same
        }
        return u.elementsEqual(v)
    }

    public var kind: FieldKind {
        switch self {
        case .string: return .string
        case .int: return .int
        case .bool: return .bool
        }
    }

    public var description: String {
        switch self {
        case .string(let s): return "\"\(s)\""
        case .int(let i): return String(i)
        case .bool(let b): return String(b)
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let i = try? c.decode(Int.self) { self = .int(i); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        throw DecodingError.typeMismatch(
            FieldValue.self,
            .init(codingPath: decoder.codingPath, debugDescription: "expected a string, integer or boolean"))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .int(let i): try c.encode(i)
        case .bool(let b): try c.encode(b)
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .string(let s): h.byte(1); h.combine(s)
        case .int(let i): h.byte(2); h.combine(i)
        case .bool(let b): h.byte(3); h.combine(b)
        }
    }
}

/// `field = value`, the unit of every write.
public struct FieldAssignment: Hashable, Sendable, CustomStringConvertible {
    public var field: FieldID
    public var value: FieldValue
    public init(_ field: FieldID, _ value: FieldValue) { self.field = field; self.value = value }
    public var description: String { "\(field.name) = \(value)" }
}
