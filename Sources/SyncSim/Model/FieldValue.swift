/// A scalar value. Encoded in scenario files as the plain JSON value (`"Te"`, `3`, `true`).
public enum FieldValue: Hashable, Sendable, CustomStringConvertible, Codable, StableHashable {
    case string(String)
    case int(Int)
    case bool(Bool)

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
