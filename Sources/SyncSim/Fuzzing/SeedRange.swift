/// The seeds a fuzz run plans: `lowerBound ..< upperBound`. Built only through initialisers
/// that check their arithmetic, so no seed range can overflow `UInt64` and trap later: a
/// `--start` near 2⁶⁴ with a `--count` running past it is an error the CLI reports, not a crash.
public struct SeedRange: Hashable, Sendable, CustomStringConvertible {
    public let lowerBound: UInt64
    /// Excluded.
    public let upperBound: UInt64

    public init(_ range: Range<UInt64>) {
        lowerBound = range.lowerBound
        upperBound = range.upperBound
    }

    /// `count` seeds from `start`. Throws when the last seed's successor does not fit in a
    /// `UInt64` (the range is written `start..<start+count`, so that bound must exist).
    public init(start: UInt64, count: UInt64) throws {
        let (end, overflow) = start.addingReportingOverflow(count)
        guard !overflow else { throw SeedRangeError.pastLargestSeed(start: start, count: count) }
        self.init(start..<end)
    }

    public var count: UInt64 { upperBound - lowerBound }
    public var isEmpty: Bool { count == 0 }

    /// `A..<B`, the form reports and `merge` compare.
    public var description: String { "\(lowerBound)..<\(upperBound)" }
}

public enum SeedRangeError: Error, Equatable, CustomStringConvertible {
    case pastLargestSeed(start: UInt64, count: UInt64)

    public var description: String {
        switch self {
        case .pastLargestSeed(let start, let count):
            return "\(count) seeds from \(start) run past the largest seed, \(UInt64.max); at most \(UInt64.max - start) seeds start at \(start)"
        }
    }
}

/// Shard `index` of `count` (1-based): the seeds at positions ≡ index−1 (mod count) of a range.
/// Disjoint shards cover the range, so CI matrix jobs split a sweep and `merge` joins them.
public struct Shard: Hashable, Sendable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(_ index: Int, of count: Int) throws {
        guard count >= 1, index >= 1, index <= count else { throw ShardError(index: index, count: count) }
        self.index = index
        self.count = count
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }
}

public struct ShardError: Error, Equatable, CustomStringConvertible {
    public var index: Int
    public var count: Int
    public var description: String { "shard \(index)/\(count) does not exist: a shard is K/N with 1 ≤ K ≤ N" }
}

/// The seeds one fuzz run visits, computed on demand: position `j` of the plan is a seed by
/// arithmetic, so a range of billions of seeds costs nothing up front and a time budget cuts it
/// anywhere.
public struct SeedPlan: Hashable, Sendable {
    public let range: SeedRange
    public let shard: Shard?

    public init(_ range: SeedRange, shard: Shard? = nil) {
        self.range = range
        self.shard = shard
    }

    /// Seeds in the plan.
    public var count: UInt64 {
        guard let shard else { return range.count }
        let skip = UInt64(shard.index - 1), n = UInt64(shard.count)
        guard range.count > skip else { return 0 }
        let m = range.count - skip
        return m / n + (m % n == 0 ? 0 : 1)
    }

    /// The seed at `position` (0 ≤ position < count), ascending with the position. The sum
    /// stays below `range.upperBound`, so it cannot overflow.
    public func seed(at position: UInt64) -> UInt64 {
        precondition(position < count, "seed position \(position) outside a plan of \(count) seeds")
        guard let shard else { return range.lowerBound + position }
        return range.lowerBound + UInt64(shard.index - 1) + position * UInt64(shard.count)
    }
}
