/// The client's newest server copies (`ConflictPromptClient.known`) as its durable state keeps
/// them: the same slots in chunks of `size`, each chunk its own array.
///
/// The durable state is taken at every persist (every enqueue, answer and result), and the
/// client changes `known` right after most of them. Kept as the store itself, the durable copy
/// shared the store's storage, so the first change after each persist copied every record of
/// it (a retain per array each record owns) and the replaced copy was freed whole later: a
/// cost that grew with everything the client had seen. In chunks, a persist shares the chunk
/// list, and a change after it copies that list and the one chunk it writes: a cost that grows
/// with the store only by the chunk count. The client keeps `known` as an `EntityStore` for its
/// reads and writes each change here too (`ConflictPromptClient.setKnown` / `applyKnown`); a
/// relaunch builds the store from the chunks once.
public struct CPKnownChunks: Sendable, Hashable {
    /// Slots per chunk.
    static let size = 32
    var chunks: [[EntityRecord?]] = []
    /// The store's slot count (`records.count`), so the store built again is equal to it.
    var slots = 0

    public init() {}

    /// The chunks of `store`.
    init(_ store: EntityStore) {
        let records = store.records
        slots = records.count
        var i = 0
        while i < records.count {
            chunks.append(Array(records[i..<min(records.count, i + Self.size)]))
            i += Self.size
        }
    }

    /// The store the chunks hold.
    public var store: EntityStore {
        var records: [EntityRecord?] = []
        records.reserveCapacity(slots)
        for c in chunks { records.append(contentsOf: c) }
        return EntityStore(slots: records)
    }

    /// Takes slot `e` of `store`, and its slot count.
    mutating func take(_ e: EntityID, from store: EntityStore) {
        grow(to: store.records.count)
        let i = Int(e.raw)
        guard i < slots else { return }
        chunks[i / Self.size][i % Self.size] = store[e]
    }

    /// Adds empty slots up to `n` (a store's slots only grow).
    mutating func grow(to n: Int) {
        guard n > slots else { return }
        while slots < n {
            if slots % Self.size == 0 { chunks.append([]) }
            let k = min(n - slots, Self.size - slots % Self.size)
            chunks[chunks.count - 1].append(contentsOf: repeatElement(nil, count: k))
            slots += k
        }
    }
}
