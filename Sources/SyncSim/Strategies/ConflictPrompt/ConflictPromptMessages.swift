/// The sideBar write queue's REST vocabulary (seed 003 "Backend Detail"): conflict-aware
/// mutations carrying the `modified` snapshot (`client_updated_at` / If-Match) and an
/// idempotency key, list fetches that also register realtime interest, one-shot reads; down:
/// per-request outcomes (applied / 409 conflict / refused), list results and realtime pushes.
///
/// Every message is a self-contained request or response: the `.datagram` transport may drop,
/// duplicate or reorder any of them.

/// What the client believed the server's `modified` of one entity was when it queued a write
/// (seed 003 "Conflict trigger": snapshot at enqueue time). `version == 0`: the client had no
/// server copy of the entity (never fetched, or created locally), so the write is unconditional.
public struct CPExpectation: Hashable, Sendable, CustomStringConvertible {
    public var entity: EntityID
    public var version: UInt64
    public init(_ entity: EntityID, _ version: UInt64) { self.entity = entity; self.version = version }
    public var description: String { version == 0 ? "#\(entity.raw)@?" : "#\(entity.raw)@\(version)" }
}

/// How one write request changed the `modified` of one entity on the server.
public struct CPVersionChange: Hashable, Sendable {
    public var entity: EntityID
    public var before: UInt64
    public var after: UInt64
    public init(_ entity: EntityID, before: UInt64, after: UInt64) { self.entity = entity; self.before = before; self.after = after }
}

/// One queued write as sent: an idempotency key (the first write id: a request's writes never
/// change once it has been sent), every user write it carries (several when coalesced), its
/// steps, the snapshots, and whether the user chose "keep local" (forced write).
public struct CPWriteRequest: Hashable, Sendable, CustomStringConvertible {
    public var key: WriteID
    public var writes: [WriteID]
    public var ops: [Op]
    public var expect: [CPExpectation]
    public var force: Bool

    public var description: String {
        "\(writes.map(\.description).joined(separator: "+")) [\(ops.map(\.description).joined(separator: "; "))]"
            + " if-match \(expect.map(\.description).joined(separator: ","))" + (force ? " (forced)" : "")
    }
}

/// A server query answer: the result tree, the `modified` of each entry (parallel to
/// `result.entries`), and the server's last transaction id when it was evaluated.
public struct CPSnapshot: Hashable, Sendable {
    public var result: QueryResult
    public var versions: [UInt64]
    public var asOf: UInt64
    public init(result: QueryResult, versions: [UInt64], asOf: UInt64) {
        self.result = result
        self.versions = versions
        self.asOf = asOf
    }

    func stableHash(into h: inout StableHasher) {
        result.stableHash(into: &h)
        h.combine(versions.count)
        for v in versions { h.combine(v) }
        h.combine(asOf)
    }
}

/// A subscription as the server knows it.
public struct CPSubscription: Hashable, Sendable {
    public var id: SubscriptionID
    public var query: Query
    public init(_ id: SubscriptionID, _ query: Query) { self.id = id; self.query = query }
}

public enum CPOutcome: Hashable, Sendable, CustomStringConvertible {
    /// Committed as transaction `txID`.
    case applied(txID: UInt64, changes: [CPVersionChange])
    /// 409: the entity's `modified` is not the snapshot (nothing applied; not remembered, so a
    /// forced retry under the same key can still apply). The payload carries the server's
    /// snapshot of the entity (seed 003 "Backend Detail" 1: "409 Conflict with a structured
    /// payload (server snapshot + reason)"; "Store server snapshot in conflict payload to avoid
    /// re-fetch loops"): its `modified`, the snapshot the request carried, and its record.
    case conflict(EntityID, serverVersion: UInt64, snapshot: UInt64, server: EntityRecord?)
    /// Final refusal (missing or deleted entity, already existing id, …).
    case refused(String)

    public var description: String {
        switch self {
        case .applied(let tx, _): return "ok tx \(tx)"
        case .conflict(let e, let v, let snap, _): return "409 conflict on #\(e.raw) (modified \(v), snapshot \(snap))"
        case .refused(let s): return "refused: \(s)"
        }
    }
}

public enum ConflictPromptUp: WireMessage {
    /// POST a queued write (create, update, delete, link, unlink).
    case write(CPWriteRequest)
    /// GET the lists behind the client's open screens; also (re)registers them for realtime.
    case fetch([CPSubscription])
    /// A one-shot GET.
    case query(QueryRequestID, Query)
    /// POST `/tasks/sync` (seed 003 Phase 3): the queued task operations at the head of the
    /// queue in one batch, in order, with `last_sync` (the `serverUpdatedSince` of the previous
    /// answer) for the deltas.
    case taskSync([CPWriteRequest], since: UInt64)

    public var kind: String {
        switch self {
        case .write: return "write"
        case .fetch: return "fetch"
        case .query: return "query"
        case .taskSync: return "tasks-sync"
        }
    }

    public var carriedWrites: [WriteID] {
        if case .write(let r) = self { return r.writes }
        if case .taskSync(let rs, _) = self { return rs.flatMap(\.writes) }
        return []
    }

    public var description: String {
        switch self {
        case .write(let r): return "write \(r)"
        case .fetch(let subs): return "fetch \(subs.map(\.id.description).joined(separator: ", "))"
        case .query(let r, let q): return "query \(r) (\(q))"
        case .taskSync(let rs, let since): return "tasks/sync since tx \(since): " + rs.map(\.description).joined(separator: " | ")
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .write(let r):
            h.byte(1); r.stableHash(into: &h)
        case .fetch(let subs):
            h.byte(2); h.combine(subs.count)
            for s in subs { h.combine(s.id.raw); s.query.stableHash(into: &h) }
        case .query(let r, let q):
            h.byte(3); h.combine(r.raw); q.stableHash(into: &h)
        case .taskSync(let rs, let since):
            h.byte(4); h.combine(since); h.combine(rs.count)
            for r in rs { r.stableHash(into: &h) }
        }
    }
}

extension CPWriteRequest {
    func stableHash(into h: inout StableHasher) {
        h.combine(key.raw); h.combine(writes.count)
        for w in writes { h.combine(w.raw) }
        h.combine(ops.count)
        for op in ops { op.stableHash(into: &h) }
        h.combine(expect.count)
        for x in expect { h.combine(x.entity.raw); h.combine(x.version) }
        h.combine(force)
    }
}

extension CPOutcome {
    func stableHash(into h: inout StableHasher) {
        switch self {
        case .applied(let tx, let ch):
            h.byte(1); h.combine(tx); h.combine(ch.count)
            for c in ch { h.combine(c.entity.raw); h.combine(c.before); h.combine(c.after) }
        case .conflict(let e, let v, let snap, let rec):
            h.byte(2); h.combine(e.raw); h.combine(v); h.combine(snap)
            if let rec { h.byte(1); rec.stableHash(into: &h) } else { h.byte(0) }
        case .refused(let s): h.byte(3); h.combine(s)
        }
    }
}

public enum ConflictPromptDown: WireMessage {
    /// The outcome of the write request with this idempotency key.
    case writeResult(key: WriteID, CPOutcome)
    /// Results for subscriptions: a fetch answer, or (`realtime`) a push of changed results.
    case results([SubscriptionID], [CPSnapshot], realtime: Bool)
    case queryResult(QueryRequestID, CPSnapshot)
    /// The `/tasks/sync` answer: a result per operation it processed, in order (it stops after
    /// the first conflict: `TaskSyncResponse.conflicts`), the tasks changed since the request's
    /// `last_sync` (the deltas), and the new `serverUpdatedSince`.
    case taskSyncResult([CPTaskResult], updated: [CPTaskDelta], serverUpdatedSince: UInt64)

    public var kind: String {
        switch self {
        case .writeResult: return "write-result"
        case .results(_, _, let rt): return rt ? "realtime" : "results"
        case .queryResult: return "query-result"
        case .taskSyncResult: return "tasks-sync-result"
        }
    }

    public var description: String {
        switch self {
        case .writeResult(let k, let o): return "result \(k): \(o)"
        case .results(let ids, let snaps, let rt):
            let parts = zip(ids, snaps).map { "\($0.0): \($0.1.result.summary)" }
            return (rt ? "realtime" : "results") + " as of tx \(snaps.map(\.asOf).max() ?? 0): " + parts.joined(separator: " | ")
        case .queryResult(let r, let s): return "query-result \(r) as of tx \(s.asOf): \(s.result.summary)"
        case .taskSyncResult(let rs, let updated, let since):
            return "tasks/sync: " + rs.map { "\($0.key): \($0.outcome)" }.joined(separator: ", ")
                + "; \(updated.count) task(s) changed; serverUpdatedSince tx \(since)"
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .writeResult(let k, let o):
            h.byte(1); h.combine(k.raw)
            o.stableHash(into: &h)
        case .results(let ids, let snaps, let rt):
            h.byte(2); h.combine(rt); h.combine(ids.count)
            for i in ids { h.combine(i.raw) }
            for s in snaps { s.stableHash(into: &h) }
        case .queryResult(let r, let s):
            h.byte(3); h.combine(r.raw); s.stableHash(into: &h)
        case .taskSyncResult(let rs, let updated, let since):
            h.byte(4); h.combine(since); h.combine(rs.count)
            for r in rs { h.combine(r.key.raw); r.outcome.stableHash(into: &h) }
            h.combine(updated.count)
            for d in updated {
                h.combine(d.entity.raw); h.combine(d.version)
                if let rec = d.record { h.byte(1); rec.stableHash(into: &h) } else { h.byte(0) }
            }
        }
    }
}

/// A task changed since the request's `last_sync`: its record (nil: deleted) and `modified`.
public struct CPTaskDelta: Hashable, Sendable {
    public var entity: EntityID
    public var record: EntityRecord?
    public var version: UInt64
    public init(_ entity: EntityID, _ record: EntityRecord?, _ version: UInt64) { self.entity = entity; self.record = record; self.version = version }
}

/// One operation's result in a `/tasks/sync` answer.
public struct CPTaskResult: Hashable, Sendable {
    public var key: WriteID
    public var outcome: CPOutcome
    public init(_ key: WriteID, _ outcome: CPOutcome) { self.key = key; self.outcome = outcome }
}
