/// A list that only grows, whose copies share one buffer: each copy sees the first `count`
/// elements, and an append writes into the shared buffer when no copy has appended past this one
/// (otherwise it starts a buffer of its own with its elements).
///
/// Why: the `pushPull` and `reference` clients persist after most events, and what they persist
/// (the database's rows, the replica) is a base and a log of what changed since. A log kept as an
/// array, or as chunks of arrays, is shared with the persisted copy, so the client's next append
/// copied the array (or its last chunk: a retain of every array each logged value owns, up to a
/// chunk of them) after every persist. Here an append after a persist costs what an append
/// costs: the persisted copy keeps its `count`, and nothing below any copy's `count` ever changes.
///
/// Exactness (each copy is a value): the buffer only grows, by appends at its end; a copy appends
/// in place only when the buffer ends where the copy ends, so every element an append writes lies
/// past the end of every copy that exists. Two copies that both append (a client copied and both
/// copies driven, as tests do) get their own buffers: the first writes into the shared one, the
/// second finds it longer than itself and starts its own. Runs are single-threaded (one
/// simulation per thread, its values never shared across threads while it runs), which is what
/// the unchecked `Sendable` relies on.
struct SharedAppendLog<Element: Sendable>: @unchecked Sendable {
    final class Buffer {
        /// Unchecked: the runtime's exclusivity check cost two calls per append; no access to
        /// `items` overlaps another (each is one append or one read, never nested).
        @exclusivity(unchecked) var items: [Element] = []
    }

    private var buffer: Buffer?
    /// The number of elements this copy holds.
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Which buffer this copy reads (nil: none yet): tests tell an append done in place (the
    /// same buffer as before) from one that started a buffer of its own.
    var bufferIdentity: ObjectIdentifier? { buffer.map { ObjectIdentifier($0) } }

    /// Appends `x` to this copy (no other copy sees it).
    mutating func append(_ x: Element) {
        if let b = buffer, b.items.count == count {
            b.items.append(x)
        } else {
            let b = Buffer()
            b.items.reserveCapacity(max(2 * count, 32))
            if let old = buffer { b.items.append(contentsOf: old.items[0..<count]) }
            b.items.append(x)
            buffer = b
        }
        count += 1
    }

    /// Empties this copy (the others keep what they hold).
    mutating func removeAll() {
        buffer = nil
        count = 0
    }

    /// Calls `body` with each element, in the order appended (read in place).
    func forEach(_ body: (Element) -> Void) {
        guard let b = buffer else { return }
        b.items.withUnsafeBufferPointer { p in
            for k in 0..<count { body(p[k]) }
        }
    }

    /// The elements, in the order appended.
    var elements: [Element] {
        guard let b = buffer else { return [] }
        return Array(b.items[0..<count])
    }
}
