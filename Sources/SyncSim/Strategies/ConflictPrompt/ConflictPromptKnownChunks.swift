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
///
/// The chunks are kept in groups of `fanout` (a list of groups, each a list of chunks): with
/// one flat list of chunks, that list's copy after each persist, and the free of the replaced
/// one, still cost a reference per chunk (about 100 on seed 1's default run at 3,000 actions,
/// a cost per event that grew with the store); now a change after a persist copies the group
/// list (a reference per 1,024 slots), one group and one chunk.
public struct CPKnownChunks: Sendable, Hashable {
    /// Slots per chunk.
    static let size = 32
    /// Chunks per group.
    static let fanout = 32
    /// The chunks, `fanout` to a group (the last group and chunk may be shorter).
    var groups: [[[EntityRecord?]]] = []
    /// The store's slot count (`records.count`), so the store built again is equal to it.
    var slots = 0

    public init() {}

    /// The chunks of `store`.
    init(_ store: EntityStore) {
        let records = store.records
        slots = records.count
        var i = 0
        while i < records.count {
            if (i / Self.size) % Self.fanout == 0 { groups.append([]) }
            groups[groups.count - 1].append(Array(records[i..<min(records.count, i + Self.size)]))
            i += Self.size
        }
    }

    /// The store the chunks hold.
    public var store: EntityStore {
        var records: [EntityRecord?] = []
        records.reserveCapacity(slots)
        for g in groups { for c in g { records.append(contentsOf: c) } }
        return EntityStore(slots: records)
    }

    /// Takes slot `e` of `store`, and its slot count.
    mutating func take(_ e: EntityID, from store: EntityStore) {
        grow(to: store.records.count)
        let i = Int(e.raw)
        guard i < slots else { return }
        let c = i / Self.size
        groups[c / Self.fanout][c % Self.fanout][i % Self.size] = store[e]
    }

    /// Adds empty slots up to `n` (a store's slots only grow).
    mutating func grow(to n: Int) {
        guard n > slots else { return }
        while slots < n {
            if slots % Self.size == 0 {
                if (slots / Self.size) % Self.fanout == 0 { groups.append([]) }
                groups[groups.count - 1].append([])
            }
            let k = min(n - slots, Self.size - slots % Self.size)
            let g = groups.count - 1
            let last = groups[g].count - 1
            groups[g][last].append(contentsOf: repeatElement(nil, count: k))
            slots += k
        }
    }
}
