/// xoshiro256** 1.0 (Blackman & Vigna 2018): the simulation's only source of randomness.
///
/// Known-answer tests pin the output (see `RandomnessTests`), so any change to this file that alters
/// a single draw is caught before it silently changes every recorded seed.
public struct Xoshiro256StarStar: Sendable, Equatable {
    public private(set) var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// Seeds the 256-bit state from SplitMix64, as the authors recommend.
    public init(seed: UInt64) {
        var sm = SplitMix64(seed: seed)
        s0 = sm.next(); s1 = sm.next(); s2 = sm.next(); s3 = sm.next()
    }

    /// Raw state, for known-answer tests against the reference implementation.
    public init(state: (UInt64, UInt64, UInt64, UInt64)) {
        (s0, s1, s2, s3) = state
    }

    @inline(__always)
    static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x &<< k) | (x &>> (64 &- k)) }

    @inline(__always)
    public mutating func next() -> UInt64 {
        let result = Self.rotl(s1 &* 5, 7) &* 9
        let t = s1 &<< 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = Self.rotl(s3, 45)
        return result
    }
}
