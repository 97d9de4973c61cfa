/// Seed 004 §1.3's `operation_queue`: one row per local change, with a status and an attempt
/// count. WatermelonDB itself has no queue (it derives the push from `_status`); here the push is
/// still WatermelonDB's (full rows), and the queue tells which user writes each pushed row carries.

public enum OperationKind: String, Hashable, Sendable {
    case insert, update, delete
}

/// Seed 004 §1.3: `pending | sending | success | failed`. `failed` rows are retried by the next
/// sync (exponential backoff); rows the server refused for good are removed and the user is told.
public enum OperationStatus: String, Hashable, Sendable {
    case pending, sending, success, failed
}

public struct QueuedOperation: Hashable, Sendable {
    public var id: UInt64
    public var write: WriteID
    public var entity: EntityID
    public var kind: OperationKind
    public var status: OperationStatus
    public var attempts: Int
    public var lastError: String?

    /// Not yet known to the server to be applied, and not refused.
    public var isOutstanding: Bool { status == .pending || status == .sending || status == .failed }
}

/// The queue, in creation order.
public struct OperationQueue: Hashable, Sendable {
    public private(set) var rows: [QueuedOperation] = []
    var nextID: UInt64 = 1

    public init() {}

    public var count: Int { rows.count }

    mutating func enqueue(write: WriteID, entity: EntityID, kind: OperationKind) {
        rows.append(QueuedOperation(id: nextID, write: write, entity: entity, kind: kind, status: .pending, attempts: 0, lastError: nil))
        nextID += 1
    }

    /// Outstanding writes, each once, in queue order.
    public var outstandingWrites: [WriteID] {
        var out: [WriteID] = []
        for r in rows where r.isOutstanding && !out.contains(r.write) { out.append(r.write) }
        return out
    }

    /// Outstanding writes on one entity, each once, in queue order.
    func outstandingWrites(on e: EntityID) -> [WriteID] {
        var out: [WriteID] = []
        for r in rows where r.entity == e && r.isOutstanding && !out.contains(r.write) { out.append(r.write) }
        return out
    }

    func hasPending(on e: EntityID) -> Bool { rows.contains { $0.entity == e && ($0.status == .pending || $0.status == .failed) } }

    /// Marks the outstanding rows of an entity as being sent.
    mutating func markSending(_ e: EntityID) {
        for i in rows.indices where rows[i].entity == e && rows[i].isOutstanding {
            rows[i].status = .sending
            rows[i].attempts += 1
        }
    }

    /// A sync failed (timeout, rejection, offline): what was being sent waits for the next one.
    mutating func markFailed(_ error: String) {
        for i in rows.indices where rows[i].status == .sending {
            rows[i].status = .failed
            rows[i].lastError = error
        }
    }

    /// The server applied these writes on `e`: their rows succeed and are cleared
    /// (seed 004 `clearSuccessfulOperations`). Returns the writes that have no row left.
    mutating func succeed(_ writes: [WriteID], on e: EntityID) -> [WriteID] {
        for i in rows.indices where rows[i].entity == e && writes.contains(rows[i].write) && rows[i].status == .sending {
            rows[i].status = .success
        }
        let done = rows.filter { $0.status == .success }.map(\.write)
        rows.removeAll { $0.status == .success }
        var out: [WriteID] = []
        for w in done where !out.contains(w) && !rows.contains(where: { $0.write == w }) { out.append(w) }
        return out
    }

    /// Refuses every outstanding write touching `e` (all of each write's rows go). Returns them.
    mutating func fail(on e: EntityID) -> [WriteID] {
        let ws = outstandingWrites(on: e)
        rows.removeAll { ws.contains($0.write) }
        return ws
    }

    /// Refuses every outstanding write (force from server). Returns them.
    mutating func failAll() -> [WriteID] {
        let ws = outstandingWrites
        rows.removeAll()
        return ws
    }

    /// Back to pending (a conflict put the rows on hold, or the app restarted mid-send).
    mutating func markPending(on e: EntityID?) {
        for i in rows.indices where rows[i].status == .sending && (e == nil || rows[i].entity == e!) { rows[i].status = .pending }
    }
}
