/// Seed 003's `/tasks/sync` (Phase 3): task operations queued offline go to the server in one
/// batch; the response reports conflicts for a stale `client_updated_at`
/// (`TaskSyncResponse.conflicts`) and advances `serverUpdatedSince`, which the client keeps as
/// `last_sync` for the next call's deltas.
///
/// | rule | source |
/// |---|---|
/// | the consecutive rows at the head of the queue whose steps all touch `tasks` are sent as one `/tasks/sync` request (at most `batchMax` rows), with `last_sync` | Phase 3 "prefer `/tasks/sync` (POST `/sync`) to apply outbox + receive conflicts/deltas" |
/// | the server judges each operation as a single write (idempotency key, `client_updated_at` check, all-or-nothing commit), in order, and stops at the first conflict: the operations after it are left unprocessed, so the queue's order holds (the seed does not say what follows a conflict) | "`/tasks/sync` returns conflicts when `client_updated_at` is stale" |
/// | the answer carries every task changed after `last_sync` and `serverUpdatedSince` (its last transaction); the client applies the deltas to its server copies and keeps the newest `serverUpdatedSince`, durably | "updates `serverUpdatedSince`"; "Persist `serverUpdatedSince` from `/tasks/sync` as `last_sync` in `OfflineStore`" |
/// | the client settles the rows in answer order as single answers; a conflict pauses the queue with a prompt, and the unprocessed rows go again in the next batch | "Conflicts prompt user" |
enum ConflictPromptTaskSync {
    /// Rows per request (seed 004's "batch max 100", the only batch size the seeds name).
    static let batchMax = 100
}

extension ConflictPromptServer {
    /// Handles one `/tasks/sync` request from `c`.
    mutating func taskSync(_ c: ClientID, _ rs: [CPWriteRequest], since: UInt64, out: inout ServerOutbox<ConflictPromptDown>) {
        guard !rs.isEmpty, rs.count <= ConflictPromptTaskSync.batchMax else {
            out(.invalidInput("tasks/sync with \(rs.count) operations (1…\(ConflictPromptTaskSync.batchMax))"))
            return
        }
        var results: [CPTaskResult] = []
        var changed = NamespaceSet()
        var slots: [EntityID] = []
        var any = false
        for r in rs {
            var ch = NamespaceSet()
            var committed = false
            let o = decide(c, r, changed: &ch, slots: &slots, committed: &committed, out: &out)
            if committed { changed.formUnion(ch); any = true }
            results.append(CPTaskResult(r.key, o))
            if case .conflict = o { break }
        }
        out(.send(c, .taskSyncResult(results, updated: taskDeltas(since: since), serverUpdatedSince: txID)))
        if any { push(out: &out, changed: changed, slots: slots) }
    }

    /// Tasks changed after transaction `since`, ascending by id: their records (nil: deleted;
    /// a deleted entity's namespace is gone, so every deletion after `since` is listed).
    func taskDeltas(since: UInt64) -> [CPTaskDelta] {
        var out: [CPTaskDelta] = []
        for i in modified.indices where modified[i] > since {
            let e = EntityID(UInt32(i))
            if let ns = data.namespace(of: e) {
                if CPConflictRule.of(ns, in: schema) == .tasksBatch { out.append(CPTaskDelta(e, data[e], modified[i])) }
            } else if isTombstoned(e) {
                out.append(CPTaskDelta(e, nil, modified[i]))
            }
        }
        return out
    }
}

extension ConflictPromptClient {
    /// How many rows at the head of the queue go to `/tasks/sync` together (0: the head is not
    /// a task row).
    func taskBatch() -> Int {
        var n = 0
        while n < queue.count && n < ConflictPromptTaskSync.batchMax && isTaskRow(queue[n]) { n += 1 }
        return n
    }

    func isTaskRow(_ entry: Entry) -> Bool {
        !entry.ops.isEmpty && entry.ops.allSatisfy { CPConflictRule.of($0.namespace(in: schema), in: schema) == .tasksBatch }
    }

    /// Sends the head's task batch (every row in it counts as sent from now on).
    mutating func sendTaskBatch(_ n: Int, out: inout ClientOutbox<ConflictPromptUp>) {
        var marked = false
        for i in 0..<n where !queue[i].sent {
            queue[i].sent = true
            marked = true
        }
        if marked { persist(out: &out) }
        inFlight = true
        if notes { out(.note("tasks/sync: \(n) queued task operation(s) in one request, last_sync tx \(lastTaskSync)")) }
        out(.send(.taskSync(queue[0..<n].map(\.request), since: lastTaskSync)))
        cancelRequestTimer(out: &out)
        let t = freshTimer()
        requestTimer = t
        out(.setTimer(t, afterMs: 2_000 + 1_000 * Int64(min(failures, 4))))
    }

    /// The `/tasks/sync` answer: each processed row settled in order as a single answer would
    /// settle it (the queue is not pumped meanwhile), then the deltas and `serverUpdatedSince`.
    mutating func taskSyncResult(_ rs: [CPTaskResult], updated: [CPTaskDelta], since: UInt64, out: inout ClientOutbox<ConflictPromptUp>) {
        reachable = true
        settlingBatch = true
        for r in rs { writeResult(r.key, r.outcome, out: &out) }
        settlingBatch = false
        for d in updated where d.version >= version(d.entity) {
            setKnown(d.entity, d.record)
            setVersion(d.entity, d.version)
        }
        if since > lastTaskSync {
            lastTaskSync = since
            if notes { out(.note("tasks/sync answered: \(updated.count) task delta(s); serverUpdatedSince tx \(since) kept as last_sync")) }
        }
        persist(out: &out)
        refreshViews(out: &out)
        pump(out: &out)
    }
}
