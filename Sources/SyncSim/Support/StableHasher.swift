/// FNV-1a, 64-bit: a hash that is the same in every process and on every machine.
///
/// Never use `Hasher` for anything that identifies a run: Swift seeds it per process.
///
/// `@inlinable`: the simulator and every strategy's messages hash each event through it, and a
/// strategy in another module should not pay a call per byte.
public struct StableHasher: Sendable, Equatable {
    /// Storage for `value` (an internal setter of a public property cannot be `@usableFromInline`).
    @usableFromInline var _value: UInt64 = 0xcbf2_9ce4_8422_2325
    @inlinable public var value: UInt64 { _value }
    @inlinable static var prime: UInt64 { 0x100_0000_01b3 }

    @inlinable public init() {}

    @inlinable @inline(__always)
    public mutating func byte(_ b: UInt8) {
        _value = (_value ^ UInt64(b)) &* Self.prime
    }

    /// Little-endian, fixed width: the canonical encoding of integers.
    ///
    /// Same value as feeding the 8 bytes one by one, computed faster: a zero byte's step is
    /// `value * prime` (xor with 0 changes nothing), and multiplication wraps modulo 2^64, so the
    /// `k` zero high bytes of a small integer are one multiplication by `prime^k`. Most integers
    /// hashed (ids, counts, lengths, small field values) fit in one or four bytes.
    @inlinable @inline(__always)
    public mutating func combine(_ x: UInt64) {
        if x >> 32 == 0 {
            if x >> 8 == 0 {
                byte(UInt8(truncatingIfNeeded: x))
                _value = _value &* Self.prime7
            } else {
                byte(UInt8(truncatingIfNeeded: x))
                byte(UInt8(truncatingIfNeeded: x >> 8))
                byte(UInt8(truncatingIfNeeded: x >> 16))
                byte(UInt8(truncatingIfNeeded: x >> 24))
                _value = _value &* Self.prime4
            }
        } else {
            var v = x
            for _ in 0..<8 { byte(UInt8(truncatingIfNeeded: v)); v >>= 8 }
        }
    }

    /// `prime^4` and `prime^7` modulo 2^64: four and seven zero bytes.
    @inlinable static var prime4: UInt64 { 0x9ffa_ac08_5635_bc91 }
    @inlinable static var prime7: UInt64 { 0xc552_7b8a_51d3_d2db }

    /// The byte-at-a-time definition of `combine(_:)` (what it must equal; tests compare them).
    @inlinable
    public mutating func combineBytewise(_ x: UInt64) {
        var v = x
        for _ in 0..<8 { byte(UInt8(truncatingIfNeeded: v)); v >>= 8 }
    }

    @inlinable @inline(__always) public mutating func combine(_ x: Int) { combine(UInt64(bitPattern: Int64(x))) }
    @inlinable @inline(__always) public mutating func combine(_ x: Int64) { combine(UInt64(bitPattern: x)) }
    @inlinable @inline(__always) public mutating func combine(_ x: UInt32) { combine(UInt64(x)) }
    @inlinable @inline(__always) public mutating func combine(_ x: Bool) { byte(x ? 1 : 0) }

    /// Length-prefixed UTF-8, so ("ab","c") and ("a","bc") differ.
    @inlinable
    public mutating func combine(_ s: String) {
        var s = s
        s.withUTF8 { u in
            combine(UInt64(u.count))
            for b in u { byte(b) }
        }
    }

    public var hex: String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}

/// Types that contribute to a trace hash with a canonical, process-independent encoding.
public protocol StableHashable {
    func stableHash(into hasher: inout StableHasher)
}

extension StableHasher {
    public static func hash<T: StableHashable>(_ x: T) -> UInt64 {
        var h = StableHasher()
        x.stableHash(into: &h)
        return h.value
    }
}

extension StableHasher {
    /// The 16-hex-digit stable digest of a value.
    public static func digest<T: StableHashable>(_ x: T) -> String {
        var h = StableHasher()
        x.stableHash(into: &h)
        return h.hex
    }
}
