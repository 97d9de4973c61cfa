/// A 64-bit hash that is the same in every process and on every machine, fed a word at a time.
///
/// Never use `Hasher` for anything that identifies a run: Swift seeds it per process.
///
/// Each step is `state = (rotl(state, 5) ^ word) * K` (the FxHash step: one rotate, one xor,
/// one multiplication per word), and `value` runs a final avalanche (MurmurHash3's `fmix64`) so
/// every bit of the result depends on every input bit. Why not FNV-1a a byte at a time, as
/// before: hashing what a run's messages carry (whole query results on every refresh) cost a
/// multiplication per byte of every integer and string; a word at a time it is one per word.
/// (The trace hash values changed once, with this definition.) Each step is a bijection of the
/// state for a given word, so two traces that differ stay different until a later word happens
/// to cancel the difference.
///
/// `@inlinable`: the simulator and every strategy's messages hash each event through it, and a
/// strategy in another module should not pay a call per word.
public struct StableHasher: Sendable, Equatable {
    /// Storage for the state (an internal setter of a public property cannot be `@usableFromInline`).
    @usableFromInline var _value: UInt64 = 0xcbf2_9ce4_8422_2325
    /// The hash of everything fed so far.
    @inlinable public var value: UInt64 {
        var x = _value
        x ^= x >> 33
        x = x &* 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x = x &* 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }
    @inlinable static var k: UInt64 { 0x517c_c1b7_2722_0a95 }

    @inlinable public init() {}

    /// One step: a word into the state.
    @inlinable @inline(__always)
    mutating func step(_ w: UInt64) {
        _value = (((_value << 5) | (_value >> 59)) ^ w) &* Self.k
    }

    /// A tag or a small value: one step.
    @inlinable @inline(__always)
    public mutating func byte(_ b: UInt8) { step(UInt64(b)) }

    /// An integer of any width: one step (the canonical encoding is the 64-bit value).
    @inlinable @inline(__always)
    public mutating func combine(_ x: UInt64) { step(x) }

    /// The same as `combine(_:)`: kept for source compatibility with callers of the byte-wise
    /// FNV-1a definition (which this hash no longer has).
    @available(*, deprecated, message: "the stable hash is fed a word at a time: use combine(_:)")
    @inlinable
    public mutating func combineBytewise(_ x: UInt64) { step(x) }

    @inlinable @inline(__always) public mutating func combine(_ x: Int) { step(UInt64(bitPattern: Int64(x))) }
    @inlinable @inline(__always) public mutating func combine(_ x: Int64) { step(UInt64(bitPattern: x)) }
    @inlinable @inline(__always) public mutating func combine(_ x: UInt32) { step(UInt64(x)) }
    @inlinable @inline(__always) public mutating func combine(_ x: Bool) { step(x ? 1 : 0) }

    /// Length-prefixed UTF-8, so ("ab","c") and ("a","bc") differ: the length, then the bytes
    /// eight at a time (little-endian; the last word zero-padded). (Measured: reading the bytes
    /// through `utf8` one at a time cost three times as much as this.)
    @inlinable
    public mutating func combine(_ s: String) {
        var s = s
        s.withUTF8 { u in
            step(UInt64(u.count))
            guard let base = u.baseAddress else { return }
            let raw = UnsafeRawPointer(base)
            var i = 0
            while i + 8 <= u.count {
                step(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                i += 8
            }
            if i < u.count {
                var w: UInt64 = 0
                var shift: UInt64 = 0
                while i < u.count { w |= UInt64(u[i]) << shift; shift += 8; i += 1 }
                step(w)
            }
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
