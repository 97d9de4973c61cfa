/// The client's server versions (`ConflictPromptClient.knownVersion`, the `modified` of each
/// entity seen, dense by id) as its durable state keeps them: the same slots in chunks of
/// `size`, each chunk its own array.
///
/// Why: the durable state is taken at every persist, and an answer or a write result sets a
/// version right after most of them. Kept as one array, the durable copy shared the client's,
/// so the first version set after each persist copied the whole array (a slot per entity ever
/// seen: a cost per event that grew with the store, about 1.3k instructions per event at
/// 3,000 actions of seed 1). In chunks, a persist shares the chunk list, and a set after it
/// copies that list and the one chunk it writes. The client keeps the flat array for its reads
/// and writes each set here too (`setVersion`); a relaunch flattens the chunks once.
public struct CPVersionChunks: Sendable, Hashable {
    /// Slots per chunk.
    static let size = 128
    var chunks: [[UInt64]] = []
    /// The flat array's count, so the array built again is equal to it.
    private(set) var slots = 0

    public init() {}

    /// The chunks of `versions`.
    init(_ versions: [UInt64]) {
        slots = versions.count
        var i = 0
        while i < versions.count {
            chunks.append(Array(versions[i..<min(versions.count, i + Self.size)]))
            i += Self.size
        }
    }

    /// The flat array the chunks hold.
    public var all: [UInt64] {
        var out: [UInt64] = []
        out.reserveCapacity(slots)
        for c in chunks { out.append(contentsOf: c) }
        return out
    }

    /// Sets slot `i` to `v`, first growing to `n` slots (the flat array's count after its set).
    mutating func set(_ i: Int, _ v: UInt64, count n: Int) {
        grow(to: n)
        chunks[i / Self.size][i % Self.size] = v
    }

    /// Adds zero slots up to `n` (the flat array only grows).
    mutating func grow(to n: Int) {
        guard n > slots else { return }
        while slots < n {
            if slots % Self.size == 0 { chunks.append([]) }
            let k = min(n - slots, Self.size - slots % Self.size)
            chunks[chunks.count - 1].append(contentsOf: repeatElement(0, count: k))
            slots += k
        }
    }
}
