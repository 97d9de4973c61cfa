/// The entities the conflictPrompt client's queue has a row on (`ConflictPromptClient
/// .pendingEntities(of:)`), kept up to date as rows come and go instead of derived again.
///
/// Every redraw and every answer reads them (which held records stand, which steps a changed
/// known copy can reach). Derived from the queue they cost a walk of every row and a bit set
/// each time a row came or went: with a queue of tens of rows (a client offline for a while),
/// a cost per enqueue and per answer that grew with the queue. Here each entity counts the rows
/// that name it, and the ascending list changes only when a count goes from 0 to 1 or back:
/// a row costs what it names.
///
/// A row's entities are those of its `expect` (`Entry.expect`), which never change while the row
/// is queued (coalescing and rebasing change its steps and versions, not the entities). The
/// client's tests compare `list` with the queue's after every input of generated runs.
struct CPPendingEntities: Sendable {
    /// Rows naming each entity, by entity id (a row naming one twice counts twice).
    private var counts: [UInt32] = []
    /// The entities whose count is above zero, ascending.
    private(set) var list: [EntityID] = []

    init() {}

    /// The entities of `queue`'s rows.
    init(_ queue: [ConflictPromptClient.Entry]) {
        for k in 0..<queue.count { add(queue[k]) }
    }

    /// A row joined the queue.
    mutating func add(_ row: ConflictPromptClient.Entry) {
        row.payload.expect.withUnsafeBufferPointer { xb in
            for x in xb {
                let i = Int(x.entity.raw)
                if i >= counts.count { counts.append(contentsOf: repeatElement(0, count: i - counts.count + 1)) }
                counts[i] += 1
                if counts[i] == 1 { list.insert(x.entity, at: Self.position(of: x.entity, in: list)) }
            }
        }
    }

    /// A row left the queue (it was added before).
    mutating func remove(_ row: ConflictPromptClient.Entry) {
        row.payload.expect.withUnsafeBufferPointer { xb in
            for x in xb {
                let i = Int(x.entity.raw)
                guard i < counts.count, counts[i] > 0 else {
                    assertionFailure("a row left that never joined")
                    continue
                }
                counts[i] -= 1
                if counts[i] == 0 { list.remove(at: Self.position(of: x.entity, in: list)) }
            }
        }
    }

    /// The first position in `list` (ascending) whose entity is not below `e`.
    @inline(__always)
    static func position(of e: EntityID, in list: [EntityID]) -> Int {
        list.withUnsafeBufferPointer { lb in
            var lo = 0, hi = lb.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if lb[mid] < e { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
    }
}
