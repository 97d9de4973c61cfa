import Testing
@testable import SyncSim

/// `conflictPrompt` (seed 003): transcripts of the client and server machines, and whole runs.
@Suite struct ConflictPromptTests {
    typealias Effect = ClientEffect<ConflictPromptUp>

    static let todo1 = EntityID(1)
    static let sub1 = SubscriptionID(1)

    static func record(_ title: String) -> EntityRecord {
        var r = EntityRecord(namespace: .todos, schema: .default)
        r[FieldID.title] = .string(title)
        return r
    }

    /// A server answer with todo#1 at `modified` = `version`.
    static func snapshot(_ title: String, version: UInt64, asOf: UInt64) -> CPSnapshot {
        CPSnapshot(result: QueryResult(roots: [todo1], entries: [.init(id: todo1, record: record(title))]),
                   versions: [version], asOf: asOf)
    }

    static func setTitle(_ w: UInt32, _ title: String) -> UserWrite {
        UserWrite(id: WriteID(w), ops: [.update(todo1, .todos, [FieldAssignment(.title, .string(title))])])
    }

    /// A client that is online, subscribed to todos, and has seen todo#1 at `modified` 1.
    static func subscribedClient(cap: Int = 200) -> ConflictPromptClient {
        var c = ConflictPromptClient(context: .testing(queueCap: cap), restoring: nil)
        #expect(c.step(.network(.online)) == [.setTimer(TimerID(1), afterMs: 5_000), .send(.fetch([]))])
        #expect(c.step(.user(.subscribe(sub1, Query(.todos)))) == [.send(.fetch([CPSubscription(sub1, Query(.todos))]))])
        #expect(c.step(.received(.results([sub1], [snapshot("server", version: 1, asOf: 1)], realtime: false)))
                == [.persist, .event(.subscriptionYielded(sub1, fromCache: false))])
        return c
    }

    static func request(_ ws: [UInt32], _ title: String, expect: UInt64, force: Bool = false) -> CPWriteRequest {
        CPWriteRequest(key: WriteID(ws[0]), writes: ws.map(WriteID.init),
                       ops: [.update(todo1, .todos, [FieldAssignment(.title, .string(title))])],
                       expect: [CPExpectation(todo1, expect)], force: force)
    }

    /// A 409 with the server's snapshot: todo#1 at `modified` 5 titled "server v5", against the
    /// row's snapshot 1.
    static let conflict409 = CPOutcome.conflict(todo1, serverVersion: 5, snapshot: 1, server: record("server v5"))
    /// The prompt's server side, as the user is shown it before the prompt.
    static let serverShown: Effect = .event(.notice("conflict1: server version of #1 (client_updated_at 5, yours based on 1): title = \(FieldValue.string("server v5"))"))

    @Test func conflictPausesTheQueueUntilTheUserKeepsLocal() {
        var c = Self.subscribedClient()
        let yield: Effect = .event(.subscriptionYielded(Self.sub1, fromCache: false))
        // The write carries the snapshot of todo#1's `modified` (1) taken at enqueue time.
        #expect(c.step(.user(.write(Self.setTitle(1, "local")))) == [
            .persist, yield, .persist, .send(.write(Self.request([1], "local", expect: 1))), .setTimer(TimerID(2), afterMs: 2_000),
        ])
        #expect(c.result(of: Self.sub1)?.record(Self.todo1)?[FieldID.title] == .string("local"))
        // 409: the user is asked; the queue pauses.
        let conflict = ConflictID(1)
        #expect(c.step(.received(.writeResult(key: WriteID(1), Self.conflict409))) == [
            .cancelTimer(TimerID(2)), .persist, Self.serverShown, .event(.conflictRaised(conflict, Self.todo1)),
        ])
        // A duplicated 409 does not prompt twice.
        #expect(c.step(.received(.writeResult(key: WriteID(1), Self.conflict409))) == [])
        // A write while paused is queued (new row: the head was sent) but nothing is sent.
        #expect(c.step(.user(.write(Self.setTitle(2, "local 2")))) == [.persist, yield])
        #expect(c.pendingWrites == [WriteID(1), WriteID(2)])
        // Keep local: the head is replayed forced.
        #expect(c.step(.user(.resolveConflict(conflict, .keepLocal))) == [
            .persist, .send(.write(Self.request([1], "local", expect: 1, force: true))), .setTimer(TimerID(3), afterMs: 2_000),
        ])
        // Applied: the next row resumes, rebased onto the version our own write produced.
        #expect(c.step(.received(.writeResult(key: WriteID(1), .applied(txID: 6, changes: [CPVersionChange(Self.todo1, before: 5, after: 6)])))) == [
            .cancelTimer(TimerID(3)), .event(.writeConfirmed(WriteID(1))), .persist,
            .persist, .send(.write(Self.request([2], "local 2", expect: 6))), .setTimer(TimerID(4), afterMs: 2_000),
        ])
        #expect(c.pendingWrites == [WriteID(2)])
        // A late 409 for the unforced copy is ignored.
        #expect(c.step(.received(.writeResult(key: WriteID(1), Self.conflict409))) == [])
        // Resolving a conflict that is not open is invalid input, not a crash.
        #expect(c.step(.user(.resolveConflict(conflict, .keepLocal))) == [.event(.invalidInput("no open conflict conflict1"))])
    }

    @Test func keepServerDropsTheWriteAndTellsTheUser() {
        var c = Self.subscribedClient()
        _ = c.step(.user(.write(Self.setTitle(1, "local"))))
        _ = c.step(.received(.writeResult(key: WriteID(1), Self.conflict409)))
        #expect(c.step(.user(.resolveConflict(ConflictID(1), .keepServer))) == [
            .event(.writeRejected(WriteID(1), .conflictDiscarded)), .persist,
            .event(.subscriptionYielded(Self.sub1, fromCache: false)),
            .send(.fetch([CPSubscription(Self.sub1, Query(.todos))])),
        ])
        #expect(c.pendingWrites.isEmpty)
        #expect(c.result(of: Self.sub1)?.record(Self.todo1)?[FieldID.title] == .string("server"))
    }

    /// Seed 799: a 409 for one copy of a (coalesced) request puts a prompt before the user, then
    /// the server's final answer for another copy arrives ("refused: entity was deleted", which
    /// the server remembers under the key). The final answer decides the row for every write it
    /// carries, closes the prompt and the queue moves on; the user's late answer is moot.
    /// Before the fix the prompt stayed open for a row no longer queued: the queue never moved
    /// again and the late "keep local" was reported as invalid input.
    @Test func refusalWhilePromptedClosesThePromptAndTheQueueMovesOn() {
        var c = Self.subscribedClient()
        let yield: Effect = .event(.subscriptionYielded(Self.sub1, fromCache: false))
        // Offline: two updates of todo#1 coalesce into one row (snapshot @1).
        _ = c.step(.network(.offline))
        _ = c.step(.user(.write(Self.setTitle(1, "a"))))
        _ = c.step(.user(.write(Self.setTitle(2, "ab"))))
        #expect(c.queue.count == 1)
        #expect(c.step(.network(.online)).contains(.send(.write(Self.request([1, 2], "ab", expect: 1)))))
        // A 409 for one copy: the user is asked, the queue pauses.
        let conflict = ConflictID(1)
        #expect(c.step(.received(.writeResult(key: WriteID(1), Self.conflict409))) == [
            .cancelTimer(TimerID(3)), .persist, Self.serverShown, .event(.conflictRaised(conflict, Self.todo1)),
        ])
        // A write while prompted is queued behind (the head was sent), not sent.
        #expect(c.step(.user(.write(Self.setTitle(3, "c")))) == [.persist, yield])
        // The final answer for another copy: every write of the row is told, the prompt closes
        // and the next row is sent at once.
        #expect(c.step(.received(.writeResult(key: WriteID(1), .refused("entity 1 was deleted")))) == [
            .event(.writeRejected(WriteID(1), .serverError("entity 1 was deleted"))),
            .event(.writeRejected(WriteID(2), .serverError("entity 1 was deleted"))),
            .persist,
            // The 409's server snapshot (modified 5) is what the later row was based on.
            .persist, .send(.write(Self.request([3], "c", expect: 5))), .setTimer(TimerID(4), afterMs: 2_000),
        ])
        #expect(c.openConflict == nil)
        #expect(c.pendingWrites == [WriteID(3)])
        // The user's late answer to the closed prompt changes nothing (no force, no rejection).
        #expect(c.step(.user(.resolveConflict(conflict, .keepLocal))) == [])
        #expect(c.queue.first?.force == false)
        // Duplicates of either answer for the settled row are ignored.
        #expect(c.step(.received(.writeResult(key: WriteID(1), Self.conflict409))) == [])
        #expect(c.step(.received(.writeResult(key: WriteID(1), .refused("entity 1 was deleted")))) == [])
        // The queue drains.
        let drained = c.step(.received(.writeResult(key: WriteID(3), .refused("entity 1 was deleted"))))
        #expect(drained.contains(.event(.writeRejected(WriteID(3), .serverError("entity 1 was deleted")))))
        #expect(c.pendingWrites.isEmpty)
    }

    /// The same race ending in "applied" (a delete whose entity another client deleted meanwhile:
    /// the 409 copy arrived before the tombstone, the applied copy after it). The write is
    /// confirmed; the late "keep server" must not tell the user it was discarded.
    @Test func appliedWhilePromptedConfirmsAndIgnoresTheLateAnswer() {
        var c = Self.subscribedClient()
        let del = UserWrite(id: WriteID(1), ops: [.delete(Self.todo1, .todos)])
        #expect(c.step(.user(.write(del))).contains(.send(.write(CPWriteRequest(
            key: WriteID(1), writes: [WriteID(1)], ops: del.ops, expect: [CPExpectation(Self.todo1, 1)], force: false)))))
        let conflict = ConflictID(1)
        #expect(c.step(.received(.writeResult(key: WriteID(1), Self.conflict409)))
                .contains(.event(.conflictRaised(conflict, Self.todo1))))
        let ok = c.step(.received(.writeResult(key: WriteID(1), .applied(txID: 7, changes: []))))
        #expect(ok.contains(.event(.writeConfirmed(WriteID(1)))))
        #expect(c.openConflict == nil)
        #expect(c.pendingWrites.isEmpty)
        #expect(c.step(.user(.resolveConflict(conflict, .keepServer))) == [])
        // The queue is not paused: a new write is sent at once.
        #expect(c.step(.user(.write(Self.setTitle(2, "x")))).contains { if case .send(.write) = $0 { return true } else { return false } })
    }

    /// Seed 003 "Open Questions": merge for text content. The row is replayed forced with the
    /// server's text and the local text merged; the user is told nothing was discarded.
    @Test func mergeReplaysTheRowWithTheTextsMerged() {
        var c = Self.subscribedClient()
        _ = c.step(.user(.write(Self.setTitle(1, "local"))))
        _ = c.step(.received(.writeResult(key: WriteID(1), Self.conflict409)))
        let effects = c.step(.user(.resolveConflict(ConflictID(1), .merge)))
        #expect(effects.contains(.send(.write(Self.request([1], "server v5\nlocal", expect: 1, force: true)))))
        #expect(!effects.contains { if case .event(.writeRejected) = $0 { return true } else { return false } })
        // The list keeps the user's text until the server applies the merge, then shows it.
        #expect(c.result(of: Self.sub1)?.record(Self.todo1)?[FieldID.title] == .string("local"))
        #expect(c.openConflict == nil)
        _ = c.step(.received(.writeResult(key: WriteID(1), .applied(txID: 6, changes: [CPVersionChange(Self.todo1, before: 5, after: 6)]))))
        #expect(c.result(of: Self.sub1)?.record(Self.todo1)?[FieldID.title] == .string("server v5\nlocal"))
    }

    @Test func mergeKeepsAnExtensionWholeAndLeavesOtherStepsLocal() {
        #expect(ConflictPromptClient.mergeText(server: "Gro", local: "Groceries") == "Groceries")
        #expect(ConflictPromptClient.mergeText(server: "Groceries", local: "Gro") == "Groceries")
        #expect(ConflictPromptClient.mergeText(server: "a", local: "a") == "a")
        #expect(ConflictPromptClient.mergeText(server: "Hello", local: "Ship it") == "Hello\nShip it")
        // Non-text fields, other entities and other steps keep the local value.
        let ops: [Op] = [.update(Self.todo1, .todos, [FieldAssignment(.title, .string("mine")), FieldAssignment(.done, .bool(true))]),
                         .update(EntityID(2), .todos, [FieldAssignment(.title, .string("other"))])]
        var server = Self.record("theirs")
        server[FieldID.done] = .bool(false)
        #expect(ConflictPromptClient.merge(ops, Self.todo1, server: server, schema: .default) == [
            .update(Self.todo1, .todos, [FieldAssignment(.title, .string("theirs\nmine")), FieldAssignment(.done, .bool(true))]),
            .update(EntityID(2), .todos, [FieldAssignment(.title, .string("other"))]),
        ])
        // The server has no record (deleted meanwhile): nothing to merge.
        #expect(ConflictPromptClient.merge(ops, Self.todo1, server: nil, schema: .default) == ops)
    }

    /// Seed 003 "Data Flow": a realtime change of an entity with a pending write is not applied
    /// over it and the row gets a visible conflict mark, once.
    @Test func realtimeChangeOverAPendingWriteIsMarkedOnce() {
        var c = Self.subscribedClient()
        _ = c.step(.network(.offline))
        _ = c.step(.user(.write(Self.setTitle(1, "local"))))
        let mark: Effect = .event(.notice("conflict mark on w1: #1 changed on the server (modified 2) while it was pending"))
        let first = c.step(.received(.results([Self.sub1], [Self.snapshot("server 2", version: 2, asOf: 2)], realtime: true)))
        #expect(first.contains(mark))
        #expect(c.queue[0].remoteChangeSeen)
        // The local edit stays shown; the server's change is held back.
        #expect(c.result(of: Self.sub1)?.record(Self.todo1)?[FieldID.title] == .string("local"))
        // A second change does not mark the row again.
        let second = c.step(.received(.results([Self.sub1], [Self.snapshot("server 3", version: 3, asOf: 3)], realtime: true)))
        #expect(!second.contains { if case .event(.notice) = $0 { return true } else { return false } })
        // An unchanged record marks nothing.
        var d = Self.subscribedClient()
        _ = d.step(.network(.offline))
        _ = d.step(.user(.write(Self.setTitle(1, "local"))))
        let same = d.step(.received(.results([Self.sub1], [Self.snapshot("server", version: 1, asOf: 2)], realtime: true)))
        #expect(!same.contains { if case .event(.notice) = $0 { return true } else { return false } })
        #expect(!d.queue[0].remoteChangeSeen)
    }

    /// Seed 003 "Queue overflow policy": "Drop oldest" prunes the oldest row never sent and tells
    /// its writes; a sent row is never dropped (it may still apply).
    @Test func dropOldestPrunesTheOldestUnsentRowAndTellsTheUser() {
        var c = ConflictPromptClient(context: .testing(queueCap: 2), restoring: nil)
        #expect(c.step(.user(.dropOldestWrite)) == [.event(.notice("no queued write to drop"))])
        let other = UserWrite(id: WriteID(2), ops: [.update(EntityID(2), .todos, [FieldAssignment(.title, .string("b"))])])
        _ = c.step(.user(.write(Self.setTitle(1, "a"))))
        _ = c.step(.user(.write(other)))
        #expect(c.step(.user(.write(UserWrite(id: WriteID(3), ops: [.delete(EntityID(3), .todos)]))))
                == [.event(.writeRejected(WriteID(3), .queueFull))])
        #expect(c.step(.user(.dropOldestWrite)) == [
            .persist, .event(.notice("dropped the oldest queued write (w1)")), .event(.writeRejected(WriteID(1), .queueFull)),
        ])
        #expect(c.pendingWrites == [WriteID(2)])
        // The retry fits.
        #expect(c.step(.user(.write(UserWrite(id: WriteID(4), ops: [.delete(EntityID(3), .todos)])))) == [.persist])
        #expect(c.pendingWrites == [WriteID(2), WriteID(4)])
        // Online: the head is sent; dropping now skips it and prunes the next row.
        var d = Self.subscribedClient()
        _ = d.step(.user(.write(Self.setTitle(1, "sent"))))
        _ = d.step(.user(.write(other)))
        #expect(d.queue[0].sent && !d.queue[1].sent)
        #expect(d.step(.user(.dropOldestWrite)).contains(.event(.writeRejected(WriteID(2), .queueFull))))
        #expect(d.pendingWrites == [WriteID(1)])
        #expect(d.step(.user(.dropOldestWrite)) == [.event(.notice("no queued write can be dropped: every one was sent"))])
    }

    @Test func conflictRulesFollowTheEntityType() {
        #expect(CPConflictRule.forNamespace(named: "notes") == .modified)
        #expect(CPConflictRule.forNamespace(named: "websites") == .updatedAt)
        #expect(CPConflictRule.forNamespace(named: "todos") == .taskSync)
        #expect(CPConflictRule.forNamespace(named: "profiles") == .expectedVersion)
    }

    @Test func consecutiveUpdatesCoalesceAndTheCapBlocksWithAVisibleError() {
        // Offline (never told online): nothing is sent; cap of two rows.
        var c = ConflictPromptClient(context: .testing(queueCap: 2), restoring: nil)
        let create = UserWrite(id: WriteID(1), ops: [.create(EntityID(9), .todos, [FieldAssignment(.title, .string("new"))])])
        #expect(c.step(.user(.write(create))) == [.persist])
        #expect(c.step(.user(.write(Self.setTitle(2, "a")))) == [.persist])
        // Same entity as the last (unsent) row: coalesces, even at the cap.
        #expect(c.step(.user(.write(Self.setTitle(3, "ab")))) == [.persist])
        #expect(c.queue.count == 2)
        #expect(c.queue[1].writes == [WriteID(2), WriteID(3)])
        #expect(c.queue[1].ops == [.update(Self.todo1, .todos, [FieldAssignment(.title, .string("ab"))])])
        // A third row at the cap: refused with the queue-full error, nothing dropped.
        let other = UserWrite(id: WriteID(4), ops: [.delete(EntityID(9), .todos)])
        #expect(c.step(.user(.write(other))) == [.event(.writeRejected(WriteID(4), .queueFull))])
        #expect(c.pendingWrites == [WriteID(1), WriteID(2), WriteID(3)])
        // queryOnce offline fails at once with the offline error.
        #expect(c.step(.user(.queryOnce(QueryRequestID(1), Query(.todos))))
                == [.event(.queryOnceFailed(QueryRequestID(1), offline: true, hasStaleResult: false))])
        // The queue survives a restart.
        let again = ConflictPromptClient(context: .testing(queueCap: 2, incarnation: 1), restoring: c.durableState)
        #expect(again.pendingWrites == [WriteID(1), WriteID(2), WriteID(3)])
    }

    @Test func serverIsIdempotentAndTombstonesDeletes() {
        var s = ConflictPromptServer(clients: 1)
        let a = ClientID(0)
        let create = CPWriteRequest(key: WriteID(1), writes: [WriteID(1)],
                                    ops: [.create(Self.todo1, .todos, [FieldAssignment(.title, .string("x"))])], expect: [], force: false)
        let first = s.step(.received(from: a, .write(create)))
        let ok = CPOutcome.applied(txID: 1, changes: [CPVersionChange(Self.todo1, before: 0, after: 1)])
        #expect(first == [
            .applied(AppliedTransaction(txID: 1, origin: .client(a), writes: [WriteID(1)], ops: create.ops)),
            .send(a, .writeResult(key: WriteID(1), ok)),
        ])
        // A duplicated or retried create: the same answer, applied once.
        #expect(s.step(.received(from: a, .write(create))) == [.send(a, .writeResult(key: WriteID(1), ok))])
        // A stale snapshot is a 409 and is not remembered; forced, it applies.
        var update = CPWriteRequest(key: WriteID(2), writes: [WriteID(2)],
                                    ops: [.update(Self.todo1, .todos, [FieldAssignment(.title, .string("y"))])],
                                    expect: [CPExpectation(Self.todo1, 7)], force: false)
        #expect(s.step(.received(from: a, .write(update))).last == .send(a, .writeResult(key: WriteID(2), .conflict(Self.todo1, serverVersion: 1, snapshot: 7, server: s.data[Self.todo1]))))
        update.force = true
        #expect(s.step(.received(from: a, .write(update))).first
                == .applied(AppliedTransaction(txID: 2, origin: .client(a), writes: [WriteID(2)], ops: update.ops)))
        // Deleting twice: the second delete succeeds with no effect (tombstone).
        let del1 = CPWriteRequest(key: WriteID(3), writes: [WriteID(3)], ops: [.delete(Self.todo1, .todos)], expect: [], force: false)
        var del2 = del1
        del2.key = WriteID(4); del2.writes = [WriteID(4)]
        _ = s.step(.received(from: a, .write(del1)))
        #expect(s.step(.received(from: a, .write(del2))).first
                == .applied(AppliedTransaction(txID: 4, origin: .client(a), writes: [WriteID(4)], ops: [])))
        // Updating a tombstone is refused, never an upsert.
        var late = update
        late.key = WriteID(5); late.writes = [WriteID(5)]
        #expect(s.step(.received(from: a, .write(late))).last == .send(a, .writeResult(key: WriteID(5), .refused("entity 1 was deleted"))))
        #expect(s.data[Self.todo1] == nil)
    }

    /// An offline edit conflicts with a server-side edit; the user's answer decides the value.
    static func conflictSchedule(_ policy: ConflictPolicy) -> Schedule {
        var o = SimulationOptions()
        o.clients = 1
        o.conflictPolicy = policy
        let e = todo1
        return Schedule(options: o,
                        initial: [InitialEntity(entity: e, namespace: .todos, values: [FieldAssignment(.title, .string("original"))])],
                        actions: [
                            TimedAction(at: 0, .subscribe(ClientID(0), sub1, Query(.todos))),
                            TimedAction(at: 200, .goOffline(ClientID(0))),
                            TimedAction(at: 300, .update(ClientID(0), e, [FieldAssignment(.title, .string("local"))])),
                            TimedAction(at: 400, .serverUpdate(e, [FieldAssignment(.title, .string("server"))])),
                            TimedAction(at: 600, .goOnline(ClientID(0))),
                        ])
    }

    @Test(arguments: [ConflictPolicy.keepLocal, .keepServer, .merge])
    func offlineEditConflictIsDecidedByTheUser(_ policy: ConflictPolicy) throws {
        let r = try Simulator.run(ConflictPromptStrategy(), Self.conflictSchedule(policy), seed: 1)
        // A merged text is a value no user wrote, so the last writer does not win: conflictPrompt
        // claims lwwConvergence only when the user does not merge (a conditional claim), and the
        // violation under merge is reported but not a contract violation.
        #expect(r.violations.map(\.invariant) == (policy == .merge ? [.lwwConvergence] : []))
        let options = Self.conflictSchedule(policy).options
        #expect(ConflictPromptStrategy().info.claims(.lwwConvergence, under: options) == (policy != .merge))
        #expect(r.settled)
        let prompts = r.history.told.filter { if case .conflictRaised(_, Self.todo1) = $0.event { return true } else { return false } }
        #expect(prompts.count == 1)
        let want = policy == .keepLocal ? "local" : policy == .merge ? "server\nlocal" : "server"
        #expect(r.server[Self.todo1]?[FieldID.title] == .string(want))
        #expect(r.clients[0].subscriptions[0].result?.record(Self.todo1)?[FieldID.title] == .string(want))
        #expect(r.history.rejectedWrites == (policy == .keepServer ? [WriteID(0)] : []))
    }
}
