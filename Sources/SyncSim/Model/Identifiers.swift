/// Small integer identifiers. Inside the hot loop every id, field and namespace is an integer:
/// no `String` keys, no hashing of text.

/// A client (device) in the simulation, shown to people as `A`, `B`, `C`, …
public struct ClientID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let index: Int
    public init(_ index: Int) { self.index = index }
    public static func < (a: ClientID, b: ClientID) -> Bool { a.index < b.index }
    public var description: String {
        index < 26 ? String(UnicodeScalar(UInt8(65 + index))) : "C\(index)"
    }
    /// Parses `A`…`Z` or `C26`… (as printed).
    public init?(name: String) {
        if name.count == 1, let a = name.unicodeScalars.first, a.value >= 65, a.value < 91 {
            index = Int(a.value) - 65
        } else if name.hasPrefix("C"), let n = Int(name.dropFirst()), n >= 26 {
            index = n
        } else {
            return nil
        }
    }
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self), let id = ClientID(name: s) { self = id; return }
        throw DecodingError.dataCorrupted(.init(
            codingPath: decoder.codingPath, debugDescription: "expected a client name such as \"A\" or \"B\""))
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer(); try c.encode(description)
    }
}

/// A logical entity, named by the schedule (the user's handle on it, e.g. `todo#3`).
/// Strategies that map client ids to server ids keep that mapping internally and report data in
/// logical ids, so every oracle speaks one language.
public struct EntityID: Hashable, Comparable, Sendable, Codable {
    public let raw: UInt32
    public init(_ raw: UInt32) { self.raw = raw }
    public static func < (a: EntityID, b: EntityID) -> Bool { a.raw < b.raw }
    public init(from decoder: Decoder) throws { raw = try decoder.singleValueContainer().decode(UInt32.self) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer(); try c.encode(raw)
    }
}

/// One user intent (a write the user asked for). Assigned by the simulator in schedule order;
/// each keystroke of a typing burst is its own write.
public struct WriteID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt32
    public init(_ raw: UInt32) { self.raw = raw }
    public static func < (a: WriteID, b: WriteID) -> Bool { a.raw < b.raw }
    public var description: String { "w\(raw)" }
}

/// A subscription the user opened on a client (unique per run).
public struct SubscriptionID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let raw: UInt32
    public init(_ raw: UInt32) { self.raw = raw }
    public static func < (a: SubscriptionID, b: SubscriptionID) -> Bool { a.raw < b.raw }
    public var description: String { "sub\(raw)" }
    public init(from decoder: Decoder) throws { raw = try decoder.singleValueContainer().decode(UInt32.self) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer(); try c.encode(raw)
    }
}

/// A timer a machine set; the machine chooses the number, the simulator only echoes it back.
public struct TimerID: Hashable, Sendable, CustomStringConvertible {
    public let raw: UInt32
    public init(_ raw: UInt32) { self.raw = raw }
    public var description: String { "timer\(raw)" }
}

/// A tenant (seed 004's per-tenant databases; a user of seed 000 counts as one: a user change is
/// a switch of tenant as far as isolation goes). One dimension on purpose: what the isolation
/// oracle judges is "no data or pending write crosses the boundary", and a user change of seed
/// 000 and a tenant switch of seed 004 draw that boundary the same way (each has its own server
/// data and its own local data). Every client starts in tenant 0, where the schedule's initial
/// data lives; `ScheduleLimits.maxTenant` bounds the ids.
public struct TenantID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let raw: UInt8
    public init(_ raw: UInt8) { self.raw = raw }
    /// The tenant every client starts in, and the one the initial data and admin writes go to.
    public static let initial = TenantID(0)
    public static func < (a: TenantID, b: TenantID) -> Bool { a.raw < b.raw }
    public var index: Int { Int(raw) }
    public var description: String { "tenant \(raw)" }
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let n = try c.decode(Int.self)
        guard n >= 0, n <= ScheduleLimits.maxTenant else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "tenant \(n) is out of range; use 0…\(ScheduleLimits.maxTenant)"))
        }
        raw = UInt8(n)
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer(); try c.encode(Int(raw))
    }
}
