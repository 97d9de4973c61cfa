/// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator used only to expand one 64-bit seed into
/// the 256-bit state of ``Xoshiro256StarStar`` and to derive forked streams.
///
/// Why our own: `SystemRandomNumberGenerator` is not seedable and `Int.random(in:using:)` may change
/// its algorithm between Swift versions. A run must replay byte for byte on any toolchain.
public struct SplitMix64: Sendable, Equatable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }
}
