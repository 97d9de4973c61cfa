/// Seed 003's conflict rule for files: `/files` responses carry no `updated_at`, so a queued
/// file write stores a snapshot of the file's fields at enqueue time (`PendingWrite.serverSnapshot`)
/// and the client compares it with the latest `/files` response before applying the write; any
/// difference is a conflict ("Comparison rules": files; "2) Conflict rules").
///
/// | rule | source |
/// |---|---|
/// | at enqueue, a row touching a file keeps the client's newest server copy of it (none known: no snapshot, no check) and asks the server for no version check | "store a snapshot of relevant fields at enqueue time" |
/// | before the row's first send, while the lists fetched on reconnect have not answered, the row waits for them | "compare against the latest `/files` response before applying queued writes" |
/// | then every field of the snapshot is compared with the client's newest server copy (fed by list answers and realtime pushes); a difference opens the prompt at once, without a request, showing the server's copy | "Files: compare current server fields … to snapshot. Any difference -> conflict" |
/// | after the client's own write to the file is applied, later rows based on the same snapshot are rebased onto the copy it produced (no conflict with the user's own edits) | as for versions ("Phase 1": no regression in conflict behaviour) |
///
/// What emerges, as in the app: a remote change the client has not heard of when it replays
/// (no list showing the file, or an answer lost) is not detected, and the queued write lands
/// over it (last arrival wins).
public struct CPFieldSnapshot: Hashable, Sendable {
    public var entity: EntityID
    public var record: EntityRecord
    public init(_ entity: EntityID, _ record: EntityRecord) { self.entity = entity; self.record = record }
}

extension ConflictPromptClient {
    /// The field snapshots a new row on `entities` keeps: files the client has a server copy of.
    func fieldSnapshots(_ w: UserWrite, _ entities: [EntityID]) -> [CPFieldSnapshot] {
        var out: [CPFieldSnapshot] = []
        for e in entities {
            guard let op = w.ops.first(where: { $0.entity == e }),
                  CPConflictRule.of(op.namespace(in: schema), in: schema) == .fields,
                  version(e) != 0, let rec = known[e] else { continue }
            out.append(CPFieldSnapshot(e, rec))
        }
        return out
    }

    /// Whether entity `e` of a new row is checked by fields (then the request carries no version).
    func checkedByFields(_ w: UserWrite, _ e: EntityID) -> Bool {
        guard let op = w.ops.first(where: { $0.entity == e }) else { return false }
        return CPConflictRule.of(op.namespace(in: schema), in: schema) == .fields
    }

    /// The fields whose values differ between a snapshot and the newest server copy.
    func differingFields(_ snap: EntityRecord, _ now: EntityRecord) -> [FieldID] {
        schema.fields(of: snap.namespace).filter { snap[$0] != now[$0] }
    }

    /// Before the head row's first send: false when it must not be sent now (it waits for the
    /// lists, or its fields differ and the prompt was opened).
    mutating func fieldCheckPasses(out: inout ClientOutbox<ConflictPromptUp>) -> Bool {
        let head = queue[0]
        guard !head.sent, !head.force, !head.fields.isEmpty else { return true }
        if awaitingFetch {
            if !waitingForLists, notes { out(.note("\(head.key) waits for the latest lists before its field comparison")) }
            waitingForLists = true
            return false
        }
        waitingForLists = false
        for s in head.fields {
            guard let now = known[s.entity] else { continue }
            let diff = differingFields(s.record, now)
            if diff.isEmpty { continue }
            conflictsRaised &+= 1
            let c = ConflictID(UInt32(truncatingIfNeeded: incarnation & 0xFFF) << 20 | (conflictsRaised & 0xF_FFFF))
            openConflict = Prompt(id: c, key: head.key, entity: s.entity, serverVersion: version(s.entity), snapshot: 0, server: now)
            let names = diff.map { schema.name(of: $0) }.joined(separator: ", ")
            if notes { out(.note("field comparison on \(head.key): #\(s.entity.raw) changed on the server (\(names)) since the snapshot; queue paused, nothing sent")) }
            persist(out: &out)
            out(.event(.notice("\(c): server version of #\(s.entity.raw) (fields \(names) differ from your snapshot): \(Self.describe(now, schema))")))
            out(.event(.conflictRaised(c, s.entity)))
            return false
        }
        return true
    }

    /// The head row was applied: later rows whose snapshot of an entity it wrote is the head's
    /// own snapshot now start from the copy the write produced.
    mutating func rebaseFieldSnapshots(after head: Entry) {
        for s in head.fields {
            guard let now = known[s.entity] else { continue }
            for i in queue.indices {
                for j in queue[i].fields.indices where queue[i].fields[j].entity == s.entity && queue[i].fields[j].record == s.record {
                    queue[i].fields[j].record = now
                }
            }
        }
    }
}
