/// The `pushPull` wire vocabulary: WatermelonDB's two endpoints (`pullChanges`, `pushChanges`),
/// seed 004's `syncPullSpace` / `syncPushSpace` with per-record results. HTTP-like: every request
/// and answer is an independent datagram that may be lost, duplicated or reordered.

/// A row as the server sends it.
public struct RemoteRecord: Hashable, Sendable, CustomStringConvertible, StableHashable {
    public var entity: EntityID
    public var serverKey: UInt64
    public var record: EntityRecord
    public var updatedAt: Int64

    public var description: String { "\(EntityRef(entity, record.namespace))\(record.summary)@\(updatedAt)" }

    public func stableHash(into h: inout StableHasher) {
        h.combine(entity.raw); h.combine(serverKey); record.stableHash(into: &h); h.combine(updatedAt)
    }
}

/// A locally changed row as the client pushes it: the **full** row (WatermelonDB pushes raw
/// records, not patches), its record-level `updatedAt`, and the user writes it carries.
public struct PushRecord: Hashable, Sendable, CustomStringConvertible, StableHashable {
    public var entity: EntityID
    public var clientKey: UInt64?
    public var serverKey: UInt64?
    /// created, updated or deleted.
    public var status: RecordStatus
    public var record: EntityRecord
    public var updatedAt: Int64
    public var writes: [WriteID]
    /// "Keep local" (force push, conflict answer): the server skips its checks for this row.
    public var force: Bool

    public var description: String {
        let ref = EntityRef(entity, record.namespace)
        let ws = writes.isEmpty ? "" : " [" + writes.map(\.description).joined(separator: ",") + "]"
        let body = status == .deleted ? "deleted \(ref)" : "\(status) \(ref)\(record.summary)"
        return body + "@\(updatedAt)" + ws + (force ? " (force)" : "")
    }

    public func stableHash(into h: inout StableHasher) {
        h.combine(entity.raw); h.combine(clientKey ?? 0); h.combine(serverKey ?? 0); h.combine(status.rawValue)
        record.stableHash(into: &h); h.combine(updatedAt); h.combine(writes.count)
        for w in writes { h.combine(w.raw) }
        h.combine(force)
    }
}

/// Seed 004's `SyncResultItem`, one per pushed row.
public enum PushOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The server wrote the row.
    case applied(serverKey: UInt64)
    /// The server already had exactly this row and timestamp (a re-sent push): nothing to do.
    case unchanged(serverKey: UInt64)
    /// Seed 004 §5.1 "server timestamp newer → server wins": the row was not written.
    case serverNewer(RemoteRecord)
    /// Seed 004 §5.1 "equal timestamp" with different data: the user must choose.
    case conflict(RemoteRecord)
    /// The entity was deleted on the server: an update cannot bring it back.
    case gone

    public var description: String {
        switch self {
        case .applied: return "applied"
        case .unchanged: return "unchanged"
        case .serverNewer(let r): return "server newer \(r)"
        case .conflict(let r): return "conflict with \(r)"
        case .gone: return "gone"
        }
    }
}

public struct PushResult: Hashable, Sendable, StableHashable {
    public var entity: EntityID
    public var outcome: PushOutcome

    public func stableHash(into h: inout StableHasher) {
        h.combine(entity.raw)
        switch outcome {
        case .applied(let k): h.byte(1); h.combine(k)
        case .unchanged(let k): h.byte(2); h.combine(k)
        case .serverNewer(let r): h.byte(3); r.stableHash(into: &h)
        case .conflict(let r): h.byte(4); r.stableHash(into: &h)
        case .gone: h.byte(5)
        }
    }
}

public enum PushPullUp: WireMessage {
    /// `pullChanges({ lastPulledAt })`; `since` nil = everything (first sync, force from server).
    /// `page` counts the pages of one sync (seed 004 `syncPullSpace` with `hasMore`): the answer
    /// names it, so a late or duplicated answer to an earlier page is told apart.
    case pull(sync: UInt32, since: UInt64?, page: UInt32 = 0)
    /// `pushChanges({ changes, lastPulledAt })`, in batches of at most `pushBatchSize` rows
    /// (seed 004 §2.1 "batch max 100"); `batch` counts the batches of one sync.
    case push(sync: UInt32, lastPulledAt: UInt64, records: [PushRecord], batch: UInt32 = 0)

    public var kind: String {
        switch self {
        case .pull: return "pull"
        case .push: return "push"
        }
    }

    /// Each write once, in the order first carried. The simulator asks it of every message sent
    /// (rows read in place; see `firstOccurrences`).
    public var carriedWrites: [WriteID] {
        guard case .push(_, _, let rs, _) = self else { return [] }
        var all: [WriteID] = []
        rs.withUnsafeBufferPointer { p in
            var n = 0
            for k in p.indices { n += p[k].writes.count }
            all.reserveCapacity(n)
            for k in p.indices { all.append(contentsOf: p[k].writes) }
        }
        return Self.firstOccurrences(all)
    }

    /// `ws` with each write once, where it first occurs. Writes are told apart by a bit set over
    /// their ids when the ids are small (as a run's are), else by a hashed set: hashing each
    /// write cost more than the rest of sending a push (the simulator asks every message sent
    /// which writes it carries, and the server which writes a push applied).
    static func firstOccurrences(_ ws: [WriteID]) -> [WriteID] {
        if ws.count < 2 { return ws }
        var top: UInt32 = 0
        for w in ws where w.raw > top { top = w.raw }
        var out: [WriteID] = []
        out.reserveCapacity(ws.count)
        guard Int(top >> 6) < 256 + 4 * ws.count else {
            var seen = Set<WriteID>()
            for w in ws where seen.insert(w).inserted { out.append(w) }
            return out
        }
        var seen = [UInt64](repeating: 0, count: Int(top >> 6) + 1)
        for w in ws {
            let i = Int(w.raw), bit = UInt64(1) << UInt64(i & 63)
            if seen[i >> 6] & bit == 0 { seen[i >> 6] |= bit; out.append(w) }
        }
        return out
    }

    public var description: String {
        switch self {
        case .pull(let s, let since, let page):
            return "pull #\(s)\(page == 0 ? "" : " page \(page + 1)") since \(since.map(String.init) ?? "the beginning")"
        case .push(let s, let at, let rs, let b):
            return "push #\(s)\(b == 0 ? "" : " batch \(b + 1)") lastPulledAt \(at): " + PushPullText.list(rs.map(\.description), rows: rs.count)
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .pull(let s, let since, let page):
            h.byte(1); h.combine(s); h.combine(since.map { Int64(bitPattern: $0) } ?? -1)
            // Only later pages add to the hash: a run of one page hashes as before pages existed.
            if page != 0 { h.byte(0xB1); h.combine(page) }
        case .push(let s, let at, let rs, let b):
            h.byte(2); h.combine(s); h.combine(at); h.combine(rs.count)
            // Rows hashed where they lie (`for r in rs` copied each row out: a retain and release
            // of every array it owns, per row, per message sent).
            rs.withUnsafeBufferPointer { b in for k in b.indices { b[k].stableHash(into: &h) } }
            if b != 0 { h.byte(0xB2); h.combine(b) }
        }
    }
}

/// Message sentences of bulk syncs stay readable: long row lists are clipped in the story (the
/// hash covers every row).
enum PushPullText {
    static let shownRows = 12
    static func list(_ parts: [String], rows: Int) -> String {
        guard parts.count > shownRows else { return parts.joined(separator: "; ") }
        return parts.prefix(shownRows - 2).joined(separator: "; ") + "; … \(parts.count - shownRows + 1) more …; " + parts[parts.count - 1]
            + " (\(rows) rows)"
    }
}

public enum PushPullDown: WireMessage {
    /// `{ changes, timestamp }`: rows changed and ids deleted since the asked-for point, and the
    /// server's change counter to use as the next `lastPulledAt`. With `hasMore` (seed 004
    /// `SyncPullResponse.hasMore`) the page stopped at `pullPageSize` rows and `timestamp` is
    /// the page's cursor: the stamp of its last row, so a pull from it resumes exactly there.
    case pulled(sync: UInt32, changes: [RemoteRecord], deleted: [EntityID], timestamp: UInt64, hasMore: Bool = false, page: UInt32 = 0)
    case pushed(sync: UInt32, results: [PushResult], batch: UInt32 = 0)
    /// WatermelonDB: a pushed row changed on the server after `lastPulledAt`; nothing was written.
    case pushRejected(sync: UInt32, reason: String)

    public var kind: String {
        switch self {
        case .pulled: return "pulled"
        case .pushed: return "pushed"
        case .pushRejected: return "push-rejected"
        }
    }

    public var description: String {
        switch self {
        case .pulled(let s, let ch, let del, let ts, let more, let page):
            var parts = ch.map(\.description)
            parts.append(contentsOf: del.map { "deleted #\($0.raw)" })
            let head = "pulled #\(s)\(page == 0 ? "" : " page \(page + 1)") timestamp \(ts)\(more ? " (hasMore)" : ""): "
            return head + (parts.isEmpty ? "no changes" : PushPullText.list(parts, rows: parts.count))
        case .pushed(let s, let rs, let b):
            return "pushed #\(s)\(b == 0 ? "" : " batch \(b + 1)"): " + PushPullText.list(rs.map { "#\($0.entity.raw) \($0.outcome)" }, rows: rs.count)
        case .pushRejected(let s, let why): return "push #\(s) rejected: \(why)"
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .pulled(let s, let ch, let del, let ts, let more, let page):
            h.byte(1); h.combine(s); h.combine(ch.count)
            // Rows hashed where they lie, as in `PushPullUp.stableHash`.
            ch.withUnsafeBufferPointer { b in for k in b.indices { b[k].stableHash(into: &h) } }
            h.combine(del.count)
            for d in del { h.combine(d.raw) }
            h.combine(ts)
            // Only paging adds to the hash: a one-page answer hashes as before pages existed.
            if more || page != 0 { h.byte(0xB3); h.combine(more); h.combine(page) }
        case .pushed(let s, let rs, let b):
            h.byte(2); h.combine(s); h.combine(rs.count)
            rs.withUnsafeBufferPointer { b in for k in b.indices { b[k].stableHash(into: &h) } }
            if b != 0 { h.byte(0xB4); h.combine(b) }
        case .pushRejected(let s, let why): h.byte(3); h.combine(s); h.combine(why)
        }
    }
}
