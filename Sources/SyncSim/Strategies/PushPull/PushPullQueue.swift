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
    /// The write may already have taken effect on the server: a push carried this row and no
    /// answer said it was not written (a timeout, a lost answer, a restart mid-push), or another
    /// row of the same write was applied. A write in this state is never *told* discarded: the
    /// client cannot know that the notice would be true (see `discard(on:)`).
    public var mayHaveTakenEffect = false

    /// Not yet known to the server to be applied, and not refused.
    public var isOutstanding: Bool { status == .pending || status == .sending || status == .failed }
}

/// The queue, in creation order.
public struct OperationQueue: Hashable, Sendable {
    public private(set) var rows: [QueuedOperation] = []
    var nextID: UInt64 = 1
    /// `outstandingWrites`, kept: the oracles read it after every yield, and a pass over a queue
    /// that grows while a client is offline made that read grow with the run. Recomputed where
    /// the set of outstanding rows changes (a row added or removed: `enqueue`, `succeed`,
    /// `discard`); every other change moves a row between outstanding states only.
    var outstanding: [WriteID] = []
    /// A write was enqueued again after another write's rows (never in a run: a write's rows are
    /// enqueued together and write ids are unique; a queue driven by hand can): its rows may no
    /// longer be adjacent, and `outstandingWriteCount` walks the queue from then on.
    private(set) var scattered = false

    public init() {}

    public var count: Int { rows.count }

    mutating func enqueue(write: WriteID, entity: EntityID, kind: OperationKind) {
        rows.append(QueuedOperation(id: nextID, write: write, entity: entity, kind: kind, status: .pending, attempts: 0, lastError: nil))
        nextID += 1
        // The common case (a write's first row) without a pass over the queue.
        if outstanding.last != write {
            if outstanding.contains(write) { scattered = true } else { outstanding.append(write) }
        }
        assert(outstanding == computeOutstanding(), "stale outstanding writes")
    }

    /// Outstanding writes, each once, in queue order.
    public var outstandingWrites: [WriteID] {
        assert(outstanding == computeOutstanding(), "stale outstanding writes")
        return outstanding
    }

    /// Outstanding writes, each once, in queue order, from the rows.
    ///
    /// Kept free of hashing: a write's rows are enqueued together, so dropping an outstanding
    /// row whose write is the previous outstanding row's leaves each write once; a sorted copy
    /// confirms it (a write whose rows are not adjacent would show twice), and only then is the
    /// list deduplicated by a set.
    func computeOutstanding() -> [WriteID] {
        var out: [WriteID] = []
        var last: WriteID?
        for r in rows where r.isOutstanding && r.write != last {
            out.append(r.write)
            last = r.write
        }
        if out.count < 2 { return out }
        var sorted = out
        sorted.sort()
        for k in 1..<sorted.count where sorted[k] == sorted[k - 1] {
            var seen = Set<WriteID>()
            return out.filter { seen.insert($0).inserted }
        }
        return out
    }

    /// The number of runs of adjacent outstanding rows of one write (`countRuns`), read from the
    /// kept list: the simulator asks after every input a client handles, and the walk of the
    /// queue (which grows while a client is offline) cost a pass over it per event. The same
    /// number: every row is outstanding (no row stays `success`: `succeed` removes the rows it
    /// clears), and unless the queue is `scattered` a write's rows were enqueued together and
    /// are only ever removed, so they stay adjacent and each write is one run.
    public var outstandingWriteCount: Int {
        if scattered { return countRuns() }
        assert(outstanding.count == countRuns(), "outstanding writes out of step with the queue's runs")
        return outstanding.count
    }

    /// The outstanding rows whose write differs from the previous outstanding row's (what
    /// `outstandingWriteCount` once counted by walking the queue).
    func countRuns() -> Int {
        var n = 0
        var last: WriteID?
        for r in rows where r.isOutstanding && r.write != last { n += 1; last = r.write }
        return n
    }

    /// Whether at least `cap` writes are outstanding; answered from the row count alone while
    /// it is below the cap (every outstanding write has a row), so a bulk of writes far from the
    /// cap costs no scan per write.
    func isFull(cap: Int) -> Bool { rows.count >= cap && outstandingWriteCount >= cap }

    /// Outstanding writes on one entity, each once, in queue order.
    func outstandingWrites(on e: EntityID) -> [WriteID] {
        var out: [WriteID] = []
        for r in rows where r.entity == e && r.isOutstanding && !out.contains(r.write) { out.append(r.write) }
        return out
    }

    func hasPending(on e: EntityID) -> Bool { rows.contains { $0.entity == e && ($0.status == .pending || $0.status == .failed) } }

    /// For a push batch: each entity's outstanding writes (each once, in queue order), and
    /// their rows marked as being sent — `outstandingWrites(on:)` then `markSending(_:)` per
    /// entity, in one pass over the queue instead of two per entity.
    ///
    /// Each row's entity is looked up in a table by entity id (ids are small: a run's), not a
    /// hashed dictionary: hashing every outstanding row's entity cost more than the rest of
    /// building the batch. Ids too large for a table fall back to the dictionary.
    mutating func takeForSending(_ es: [EntityID]) -> [[WriteID]] {
        var top: UInt32 = 0
        for e in es where e.raw > top { top = e.raw }
        let dense = Int(top) < 1_024 + 8 * es.count
        var table: [Int32] = []
        var slot: [EntityID: Int] = [:]
        if dense {
            table = [Int32](repeating: -1, count: Int(top) + 1)
            for (i, e) in es.enumerated() { table[Int(e.raw)] = Int32(i) }
        } else {
            for (i, e) in es.enumerated() { slot[e] = i }
        }
        var out = [[WriteID]](repeating: [], count: es.count)
        for i in rows.indices where rows[i].isOutstanding {
            let e = rows[i].entity
            let found: Int?
            if dense {
                found = Int(e.raw) < table.count && table[Int(e.raw)] >= 0 ? Int(table[Int(e.raw)]) : nil
            } else {
                found = slot[e]
            }
            guard let k = found else { continue }
            if !out[k].contains(rows[i].write) { out[k].append(rows[i].write) }
            rows[i].status = .sending
            rows[i].attempts += 1
        }
        return out
    }

    /// Marks the outstanding rows of an entity as being sent.
    mutating func markSending(_ e: EntityID) {
        for i in rows.indices where rows[i].entity == e && rows[i].isOutstanding {
            rows[i].status = .sending
            rows[i].attempts += 1
        }
    }

    /// A sync failed (timeout, rejection, offline, restart): what was being sent waits for the
    /// next one, and may have been applied (an answer lost; even a refusal may answer a network
    /// duplicate of a push whose first copy was applied).
    mutating func markFailed(_ error: String) {
        for i in rows.indices where rows[i].status == .sending {
            rows[i].status = .failed
            rows[i].lastError = error
            rows[i].mayHaveTakenEffect = true
        }
    }

    /// The server applied these writes on `e`: their rows succeed and are cleared
    /// (seed 004 `clearSuccessfulOperations`). Returns the writes that have no row left.
    ///
    /// The succeeded rows are taken out in one pass that keeps the others in order (no row is
    /// left in `success` between calls, so they are exactly the rows this call clears): marking
    /// them, then filtering and removing them, walked and copied the queue three times per row
    /// a push answer confirms.
    mutating func succeed(_ writes: [WriteID], on e: EntityID) -> [WriteID] {
        var done: [WriteID] = []
        var keep = 0
        for i in rows.indices {
            if rows[i].entity == e && rows[i].status == .sending && writes.contains(rows[i].write) {
                done.append(rows[i].write)
                continue
            }
            if keep != i { rows.swapAt(keep, i) }
            keep += 1
        }
        if keep < rows.count { rows.removeSubrange(keep...) }
        if !done.isEmpty { outstanding = computeOutstanding() }
        var out: [WriteID] = []
        for w in done where !out.contains(w) {
            if rows.contains(where: { $0.write == w }) {
                // Part of the write is on the server: its other rows can no longer be told discarded.
                for i in rows.indices where rows[i].write == w { rows[i].mayHaveTakenEffect = true }
            } else {
                out.append(w)
            }
        }
        return out
    }

    /// Writes dropped from the queue, split by what the client knows: `told` never took effect
    /// (no push carried them without a "not written" answer), so "discarded" is true;
    /// `silent` may have taken effect (an answer lost, a crash mid-push), so the client says
    /// nothing rather than something possibly false (WatermelonDB and seed 004 say nothing at all).
    public struct Discarded: Equatable {
        public var told: [WriteID] = []
        public var silent: [WriteID] = []
        public var isEmpty: Bool { told.isEmpty && silent.isEmpty }
    }

    mutating func discard(_ ws: [WriteID]) -> Discarded {
        var d = Discarded()
        for w in ws {
            if rows.contains(where: { $0.write == w && $0.mayHaveTakenEffect }) { d.silent.append(w) } else { d.told.append(w) }
        }
        rows.removeAll { ws.contains($0.write) }
        if !ws.isEmpty { outstanding = computeOutstanding() }
        return d
    }

    /// Drops every outstanding write touching `e` (all of each write's rows go).
    mutating func discard(on e: EntityID) -> Discarded { discard(outstandingWrites(on: e)) }

    /// Drops every outstanding write (force from server).
    mutating func discardAll() -> Discarded { discard(outstandingWrites) }

    /// Back to pending (a conflict put the rows on hold, or the app restarted mid-send).
    mutating func markPending(on e: EntityID?) {
        for i in rows.indices where rows[i].status == .sending && (e == nil || rows[i].entity == e!) { rows[i].status = .pending }
    }
}
