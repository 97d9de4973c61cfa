/// The seeded generator threaded through the simulation, with bounded draws and forked streams.
///
/// **Forked streams.** Every component draws from its own stream, derived from the run seed and a
/// stable label (`fork(.network)`, `fork(.client(2))`), never from a shared sequence. Adding a client
/// or an action therefore leaves every other component's draws unchanged, which keeps schedules
/// comparable and shrinking effective (removing one action does not reshuffle the rest).
public struct SimRandom: Sendable, Equatable {
    public private(set) var generator: Xoshiro256StarStar
    /// The seed this stream was created from; forks derive from it, not from the current position.
    public let streamSeed: UInt64

    public init(seed: UInt64) {
        streamSeed = seed
        generator = Xoshiro256StarStar(seed: seed)
    }

    /// Labels of the forked streams. The raw values are part of the on-disk reproducibility
    /// contract: never renumber them.
    public enum Stream: Sendable, Equatable {
        case workload
        case swarm
        case network
        case server
        case client(Int)
        case clientRestart(client: Int, incarnation: Int)
        case custom(UInt64)

        var code: UInt64 {
            switch self {
            case .workload: return 0x01
            case .swarm: return 0x02
            case .network: return 0x03
            case .server: return 0x04
            case .client(let i): return 0x1_0000 &+ UInt64(truncatingIfNeeded: i)
            case .clientRestart(let c, let n):
                return 0x2_0000_0000 &+ (UInt64(truncatingIfNeeded: c) &<< 16) &+ UInt64(truncatingIfNeeded: n)
            case .custom(let x): return 0x7000_0000_0000_0000 ^ x
            }
        }
    }

    /// A new, independent stream: a pure function of this stream's seed and the label.
    public func fork(_ stream: Stream) -> SimRandom {
        var mix = SplitMix64(seed: streamSeed ^ (stream.code &* 0x9E37_79B9_7F4A_7C15))
        _ = mix.next()
        return SimRandom(seed: mix.next())
    }

    @inline(__always)
    public mutating func next() -> UInt64 { generator.next() }

    /// Uniform in `0..<bound` without modulo bias (Lemire 2019, multiply-shift with rejection).
    @inline(__always)
    public mutating func below(_ bound: UInt64) -> UInt64 {
        precondition(bound > 0, "below(0) has no valid result")
        var m = next().multipliedFullWidth(by: bound)
        if m.low < bound {
            let threshold = (0 &- bound) % bound
            while m.low < threshold {
                m = next().multipliedFullWidth(by: bound)
            }
        }
        return m.high
    }

    /// Uniform integer in the closed range.
    @inline(__always)
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound)) &+ 1
        if span == 0 { return Int(truncatingIfNeeded: next()) } // the full 64-bit range
        return range.lowerBound &+ Int(truncatingIfNeeded: below(span))
    }

    /// Uniform index into a collection of `count` elements.
    @inline(__always)
    public mutating func index(_ count: Int) -> Int { Int(below(UInt64(count))) }

    /// A uniform double in [0, 1) from the top 53 bits.
    @inline(__always)
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// True with the given probability expressed in parts per million, so rates stay integers in
    /// schedules (no floating point in the reproducibility contract).
    @inline(__always)
    public mutating func chance(ppm: UInt32) -> Bool {
        if ppm == 0 { return false }
        if ppm >= 1_000_000 { return true }
        return below(1_000_000) < UInt64(ppm)
    }

    public mutating func pick<C: RandomAccessCollection>(_ c: C) -> C.Element where C.Index == Int {
        c[c.startIndex + index(c.count)]
    }
}
