import Testing
@testable import SyncSim

@Suite("PushPull")
struct PushPullTests {
    typealias C = PushPullClient

    static func todo(_ title: String, done: Bool) -> EntityRecord {
        var r = EntityRecord(namespace: .todos, schema: .default)
        r[.title] = .string(title)
        r[.done] = .bool(done)
        return r
    }

    // MARK: - Transcripts

    @Test func aLocallyChangedColumnSurvivesAPull() {
        var c = PushPullStrategy().makeClient(.testing(), restoring: nil)
        let e = EntityID(1)
        #expect(c.step(.network(.online), now: 0) == [
            .setTimer(C.periodicTimer, afterMs: 30_000), .cancelTimer(C.retryTimer), .cancelTimer(C.soonTimer),
            .send(.pull(sync: 1, since: nil)), .setTimer(C.requestTimer(1), afterMs: 6_000),
        ])
        let first = RemoteRecord(entity: e, serverKey: 7, record: Self.todo("a", done: false), updatedAt: 0)
        #expect(c.step(.received(.pulled(sync: 1, changes: [first], deleted: [], timestamp: 1)), now: 20) == [
            .persist, .cancelTimer(C.requestTimer(1)),
        ])
        let w = UserWrite(id: WriteID(0), ops: [.update(e, .todos, [FieldAssignment(.title, .string("mine"))])])
        #expect(c.step(.user(.write(w)), now: 100) == [.persist, .setTimer(C.soonTimer, afterMs: 500)])
        #expect(c.step(.timerFired(C.soonTimer), now: 600) == [
            .cancelTimer(C.retryTimer), .cancelTimer(C.soonTimer),
            .send(.pull(sync: 2, since: 1)), .setTimer(C.requestTimer(2), afterMs: 6_000),
        ])
        // Someone else changed both columns; the pull keeps our `title`, takes their `done`.
        let theirs = RemoteRecord(entity: e, serverKey: 7, record: Self.todo("theirs", done: true), updatedAt: 50)
        let merged = Self.todo("mine", done: true)
        let pushed = PushRecord(entity: e, clientKey: nil, serverKey: 7, status: .updated, record: merged,
                                updatedAt: 100, writes: [WriteID(0)], force: false)
        #expect(c.step(.received(.pulled(sync: 2, changes: [theirs], deleted: [], timestamp: 2)), now: 650) == [
            .persist, .persist,
            .send(.push(sync: 2, lastPulledAt: 2, records: [pushed])), .setTimer(C.requestTimer(2), afterMs: 6_000),
        ])
        #expect(c.records[e]?.record == merged)
        #expect(c.records[e]?.status == .updated)
        #expect(c.pendingWrites == [WriteID(0)])
        // The server wrote the row: the write is confirmed and the row is synced.
        #expect(c.step(.received(.pushed(sync: 2, results: [PushResult(entity: e, outcome: .applied(serverKey: 7))])), now: 700) == [
            .event(.writeConfirmed(WriteID(0))), .persist, .cancelTimer(C.requestTimer(2)),
        ])
        #expect(c.records[e]?.status == .synced)
        #expect(c.pendingWrites.isEmpty)
    }

    @Test func aRemoteDeleteDestroysLocalEditsAndTellsTheUser() {
        var c = PushPullStrategy().makeClient(.testing(), restoring: nil)
        let e = EntityID(1)
        _ = c.step(.network(.online), now: 0)
        _ = c.step(.received(.pulled(sync: 1, changes: [RemoteRecord(entity: e, serverKey: 1, record: Self.todo("a", done: false), updatedAt: 0)],
                                     deleted: [], timestamp: 1)), now: 10)
        _ = c.step(.user(.write(UserWrite(id: WriteID(3), ops: [.update(e, .todos, [FieldAssignment(.done, .bool(true))])]))), now: 20)
        _ = c.step(.timerFired(C.soonTimer), now: 520)
        let fx = c.step(.received(.pulled(sync: 2, changes: [], deleted: [e], timestamp: 2)), now: 540)
        #expect(fx.contains(.event(.writeRejected(WriteID(3), .conflictDiscarded))))
        #expect(c.records[e] == nil)
        #expect(c.pendingWrites.isEmpty)
    }

    @Test func queryOnceOfflineFailsWithTheOfflineError() {
        var c = PushPullStrategy().makeClient(.testing(), restoring: nil)
        #expect(c.step(.user(.queryOnce(QueryRequestID(1), Query(.todos)))) ==
                [.event(.queryOnceFailed(QueryRequestID(1), offline: true, hasStaleResult: true))])
    }

    /// A push (sync 4) of a row the back office changed after the client's `lastPulledAt`, to a
    /// server running `order` (of entity 1): the server after it and the push's effects. Shared
    /// with `PushPullOrderTests`, which expects the opposite answer from seed 004's order.
    static func pushOfARowChangedAfterLastPull(order: PushPullOrder) -> (server: PushPullServer, effects: [ServerEffect<PushPullDown>]) {
        var ctx = ServerContext.testing()
        ctx.options.pushPullOrder = order
        var s = PushPullStrategy().makeServer(ctx)
        let e = EntityID(1)
        _ = s.step(.adminWrite(UserWrite(id: WriteID(UInt32.max), ops: [.create(e, .todos, [FieldAssignment(.title, .string("a"))])])))
        let stamp = s.version
        _ = s.step(.adminWrite(UserWrite(id: WriteID(9), ops: [.update(e, .todos, [FieldAssignment(.title, .string("b"))])])), now: 5)
        let p = PushRecord(entity: e, clientKey: nil, serverKey: 1, status: .updated, record: Self.todo("c", done: false),
                           updatedAt: 100, writes: [WriteID(1)], force: false)
        let fx = s.step(.received(from: ClientID(0), .push(sync: 4, lastPulledAt: stamp, records: [p])), now: 10)
        return (s, fx)
    }

    @Test func serverRefusesAPushOfARowChangedAfterLastPulledAt() {
        let (s, fx) = Self.pushOfARowChangedAfterLastPull(order: .pullThenPush)
        let e = EntityID(1)
        #expect(fx.contains { if case .send(_, .pushRejected(4, _)) = $0 { return true } else { return false } })
        #expect(s.data[e]?[.title] == .string("b"))
    }

    // MARK: - Simulations

    static func options(clients: Int = 2, skew: [Int64] = [], policy: ConflictPolicy = .keepLocal) -> SimulationOptions {
        var o = SimulationOptions()
        o.clients = clients
        o.latencyMinMs = 50
        o.latencyMaxMs = 50
        o.clockSkewMs = skew
        o.conflictPolicy = policy
        return o
    }

    static let initialTodo = InitialEntity(entity: EntityID(1), namespace: .todos,
                                           values: [FieldAssignment(.title, .string("orig")), FieldAssignment(.done, .bool(false))])

    @Test func equalTimestampsPromptTheUser() throws {
        let e = EntityID(1)
        let schedule = Schedule(options: Self.options(), initial: [Self.initialTodo], actions: [
            TimedAction(at: 0, .subscribe(ClientID(0), SubscriptionID(1), Query(.todos))),
            TimedAction(at: 0, .subscribe(ClientID(1), SubscriptionID(2), Query(.todos))),
            TimedAction(at: 1_000, .update(ClientID(0), e, [FieldAssignment(.title, .string("A's"))])),
            TimedAction(at: 1_000, .update(ClientID(1), e, [FieldAssignment(.done, .bool(true))])),
        ])
        let result = try Simulator.run(PushPullStrategy(), schedule, seed: 1)
        let prompts = result.history.told.filter { if case .conflictRaised(_, e) = $0.event { return true } else { return false } }
        #expect(!prompts.isEmpty)
        #expect(result.settled)
        // "keep local" force-pushes the merged row: both edits survive.
        #expect(result.server[e]?[.title] == .string("A's"))
        #expect(result.server[e]?[.done] == .bool(true))
    }

    @Test func forceFromServerDiscardsLocalChanges() throws {
        let e = EntityID(1)
        let a = ClientID(0)
        let schedule = Schedule(options: Self.options(clients: 1), initial: [Self.initialTodo], actions: [
            TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 500, .goOffline(a)),
            TimedAction(at: 600, .update(a, e, [FieldAssignment(.title, .string("local"))])),
            TimedAction(at: 700, .serverUpdate(e, [FieldAssignment(.done, .bool(true))])),
            TimedAction(at: 800, .forceSync(a, .keepServer)),
            TimedAction(at: 900, .goOnline(a)),
        ])
        let result = try Simulator.run(PushPullStrategy(), schedule, seed: 1)
        #expect(result.history.told.contains { $0.event == .writeRejected(WriteID(0), .conflictDiscarded) })
        #expect(result.server[e]?[.title] == .string("orig"))
        #expect(result.clients[0].subscriptions[0].result?.record(e)?[.title] == .string("orig"))
        #expect(result.clients[0].subscriptions[0].result?.record(e)?[.done] == .bool(true))
        #expect(result.violations.filter { $0.invariant == .convergence || $0.invariant == .noLostAcknowledgedWrite }.isEmpty)
    }

    @Test func forcePushOverridesTheServer() throws {
        let e = EntityID(1)
        let a = ClientID(0)
        // A's clock is 10 s behind: without force, the server's newer row wins.
        let schedule = Schedule(options: Self.options(clients: 1, skew: [-10_000]), initial: [Self.initialTodo], actions: [
            TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 500, .goOffline(a)),
            TimedAction(at: 600, .serverUpdate(e, [FieldAssignment(.title, .string("server"))])),
            TimedAction(at: 700, .update(a, e, [FieldAssignment(.title, .string("local"))])),
            TimedAction(at: 800, .forceSync(a, .keepLocal)),
            TimedAction(at: 900, .goOnline(a)),
        ])
        let result = try Simulator.run(PushPullStrategy(), schedule, seed: 1)
        #expect(result.server[e]?[.title] == .string("local"))
        // w0 is the back-office write; A's is w1.
        #expect(result.history.applied.contains { $0.tx.origin == .client(a) && $0.tx.writes.contains(WriteID(1)) })
        #expect(result.settled)

        // The same run without the force: the server's newer row wins without a prompt (seed 004
        // §5.1), and since no push could have applied A's write, A is told it was discarded.
        var plain = schedule
        plain.actions.remove(at: 4)
        let lost = try Simulator.run(PushPullStrategy(), plain, seed: 1)
        #expect(lost.server[e]?[.title] == .string("server"))
        #expect(lost.history.told.contains { $0.event == .writeRejected(WriteID(1), .conflictDiscarded) })
        #expect(!lost.violations.contains { $0.invariant == .toldOutcomeIsTrue })
    }

    // MARK: - What the user is told when writes leave the queue

    /// Online, a first pull, one write, and its push sent: returns the client mid-push.
    static func clientPushing(_ w: UserWrite) -> C {
        var c = PushPullStrategy().makeClient(.testing(), restoring: nil)
        let e = w.ops[0].entity
        _ = c.step(.network(.online), now: 0)
        _ = c.step(.received(.pulled(sync: 1, changes: [RemoteRecord(entity: e, serverKey: 1, record: Self.todo("a", done: false), updatedAt: 0)],
                                     deleted: [], timestamp: 1)), now: 10)
        _ = c.step(.user(.write(w)), now: 20)
        _ = c.step(.timerFired(C.soonTimer), now: 520)
        _ = c.step(.received(.pulled(sync: 2, changes: [], deleted: [], timestamp: 1)), now: 540)
        return c
    }

    static func rejections(_ fx: [ClientEffect<PushPullUp>]) -> [WriteID] {
        fx.compactMap { if case .event(.writeRejected(let w, _)) = $0 { return w } else { return nil } }
    }

    /// The answer to a push is lost (the request times out): the server may have applied the
    /// write, so when a later pull brings the row's remote delete, the write leaves the queue
    /// without a "discarded" notice that could be false.
    @Test func aWriteWhoseAnswerWasLostIsNotToldDiscarded() {
        let e = EntityID(1)
        let w = UserWrite(id: WriteID(3), ops: [.update(e, .todos, [FieldAssignment(.done, .bool(true))])])
        var c = Self.clientPushing(w)
        #expect(c.phase == .pushing(2))
        _ = c.step(.timerFired(C.requestTimer(2)), now: 6_540)
        #expect(c.queue.rows.allSatisfy { $0.mayHaveTakenEffect })
        _ = c.step(.timerFired(C.retryTimer), now: 8_000)
        let fx = c.step(.received(.pulled(sync: 3, changes: [], deleted: [e], timestamp: 3)), now: 8_050)
        #expect(Self.rejections(fx).isEmpty)
        #expect(c.records[e] == nil)
        #expect(c.pendingWrites.isEmpty)
    }

    /// A refused push is no proof either: the refusal may answer a network duplicate of a push
    /// whose first copy was applied (found by fuzzing, seed 15: the duplicate meets its own
    /// write as "changed after lastPulledAt"). A write never sent is still told.
    @Test func aRefusedPushLeavesItsWritesUntoldButANeverSentWriteIsTold() {
        let e = EntityID(1)
        let w = UserWrite(id: WriteID(3), ops: [.update(e, .todos, [FieldAssignment(.done, .bool(true))])])
        var c = Self.clientPushing(w)
        _ = c.step(.received(.pushRejected(sync: 2, reason: "changed")), now: 600)
        #expect(c.queue.rows.allSatisfy { $0.mayHaveTakenEffect })
        _ = c.step(.timerFired(C.retryTimer), now: 2_000)
        let fx = c.step(.received(.pulled(sync: 3, changes: [], deleted: [e], timestamp: 3)), now: 2_050)
        #expect(Self.rejections(fx).isEmpty)
        #expect(c.pendingWrites.isEmpty)

        // Never sent: the pull that deletes the row comes before any push.
        var fresh = PushPullStrategy().makeClient(.testing(), restoring: nil)
        _ = fresh.step(.network(.online), now: 0)
        _ = fresh.step(.received(.pulled(sync: 1, changes: [RemoteRecord(entity: e, serverKey: 1, record: Self.todo("a", done: false), updatedAt: 0)],
                                         deleted: [], timestamp: 1)), now: 10)
        _ = fresh.step(.user(.write(w)), now: 20)
        _ = fresh.step(.timerFired(C.soonTimer), now: 520)
        let told = fresh.step(.received(.pulled(sync: 2, changes: [], deleted: [e], timestamp: 2)), now: 540)
        #expect(Self.rejections(told) == [WriteID(3)])
    }

    /// Seed 004 §5.1: "server timestamp newer" is resolved without a prompt: the server's row
    /// replaces the local one and the write leaves the queue. Told "discarded" when that is known
    /// to be true (the first push of the write was answered), silent after a lost answer (a
    /// re-push meeting a newer row says nothing about the lost push, which may have applied it).
    @Test func serverNewerIsResolvedWithoutAPromptAndToldOnlyWhenTrue() {
        let e = EntityID(1)
        let w = UserWrite(id: WriteID(3), ops: [.update(e, .todos, [FieldAssignment(.done, .bool(true))])])
        let theirs = RemoteRecord(entity: e, serverKey: 1, record: Self.todo("theirs", done: false), updatedAt: 900)
        var c = Self.clientPushing(w)
        let fx = c.step(.received(.pushed(sync: 2, results: [PushResult(entity: e, outcome: .serverNewer(theirs))])), now: 600)
        #expect(Self.rejections(fx) == [WriteID(3)])
        #expect(!fx.contains { if case .event(.conflictRaised) = $0 { return true } else { return false } })
        #expect(c.records[e]?.record == theirs.record)
        #expect(c.records[e]?.status == .synced)
        #expect(c.pendingWrites.isEmpty)

        var lostAnswer = Self.clientPushing(w)
        _ = lostAnswer.step(.timerFired(C.requestTimer(2)), now: 6_540)
        _ = lostAnswer.step(.timerFired(C.retryTimer), now: 8_000)
        _ = lostAnswer.step(.received(.pulled(sync: 3, changes: [], deleted: [], timestamp: 1)), now: 8_050)
        #expect(lostAnswer.phase == .pushing(3))
        let again = lostAnswer.step(.received(.pushed(sync: 3, results: [PushResult(entity: e, outcome: .serverNewer(theirs))])), now: 8_100)
        #expect(Self.rejections(again).isEmpty)
        #expect(lostAnswer.records[e]?.record == theirs.record)
        #expect(lostAnswer.pendingWrites.isEmpty)
    }

    /// A crash after the push was applied but before its answer was persisted: on relaunch the
    /// queue still holds the writes; the pull that brings the server's delete back drops them
    /// without telling the user they were discarded (the server applied them).
    @Test func aRestartMidPushDropsItsWritesSilently() {
        let e = EntityID(1)
        let w = UserWrite(id: WriteID(3), ops: [.delete(e, .todos)])
        let c = Self.clientPushing(w)
        var relaunched = PushPullStrategy().makeClient(.testing(incarnation: 1), restoring: c.durableState)
        #expect(relaunched.pendingWrites == [WriteID(3)])
        _ = relaunched.step(.network(.online), now: 1_000)
        let fx = relaunched.step(.received(.pulled(sync: (1 << 20) + 1, changes: [], deleted: [e], timestamp: 3)), now: 1_050)
        #expect(Self.rejections(fx).isEmpty)
        #expect(relaunched.pendingWrites.isEmpty)
    }

    /// Notes explain the sync only when the run keeps a story, and never change what else happens.
    @Test func notesAreWrittenOnlyForAStory() {
        var quiet = PushPullStrategy().makeClient(.testing(), restoring: nil)
        var ctx = ClientContext.testing()
        ctx.tracesNotes = true
        var told = PushPullStrategy().makeClient(ctx, restoring: nil)
        let a = quiet.step(.network(.online), now: 0)
        let b = told.step(.network(.online), now: 0)
        #expect(!a.contains { if case .note = $0 { return true } else { return false } })
        #expect(b.contains { if case .note = $0 { return true } else { return false } })
        #expect(b.filter { if case .note = $0 { return false } else { return true } } == a)
    }

    /// A creates offline; its push is applied but the answer is lost (A goes offline while it is
    /// in flight). The retry pulls the row back, pushes it again unchanged, and the server sees
    /// the same row and timestamp: no second entity, no second application.
    @Test func offlineCreateMapsToAServerIDWithoutDuplicatesAfterALostAck() throws {
        let a = ClientID(0)
        let e = EntityID(9)
        let schedule = Schedule(options: Self.options(clients: 1), initial: [Self.initialTodo], actions: [
            TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 500, .goOffline(a)),
            TimedAction(at: 600, .create(a, e, .todos, [FieldAssignment(.title, .string("new"))])),
            // Online at 1000: pull 1000→1050→1100, push 1100→1150 (applied), answer due at 1200.
            TimedAction(at: 1_000, .goOnline(a)),
            TimedAction(at: 1_175, .goOffline(a)),
            TimedAction(at: 2_000, .goOnline(a)),
        ])
        var sim = try Simulator(strategy: PushPullStrategy(), schedule: schedule, seed: 1)
        let result = sim.run()
        let carrying = result.history.applied.filter { $0.tx.writes.contains(WriteID(0)) }
        #expect(carrying.count == 1)
        #expect(result.history.messagesLost >= 1)
        #expect(!result.violations.contains { $0.invariant == .noDuplicateApplication })
        #expect(result.server.ids == [EntityID(1), e])
        let local = sim.client(a).records[e]
        #expect(local?.status == .synced)
        #expect(local?.serverKey != nil)
        #expect(local?.clientKey != nil)
        #expect(result.clients[0].pendingWrites.isEmpty)
    }

    /// The honest duplicate: after the lost answer the user edits the row again, so the retry
    /// pushes a different full row carrying both writes, and the create is applied a second time.
    @Test func aLostAckFollowedByAnEditAppliesTheCreateTwice() throws {
        let a = ClientID(0)
        let e = EntityID(9)
        let schedule = Schedule(options: Self.options(clients: 1), initial: [Self.initialTodo], actions: [
            TimedAction(at: 500, .goOffline(a)),
            TimedAction(at: 600, .create(a, e, .todos, [FieldAssignment(.title, .string("new"))])),
            TimedAction(at: 1_000, .goOnline(a)),
            TimedAction(at: 1_175, .goOffline(a)),
            TimedAction(at: 1_500, .update(a, e, [FieldAssignment(.done, .bool(true))])),
            TimedAction(at: 2_000, .goOnline(a)),
        ])
        let result = try Simulator.run(PushPullStrategy(), schedule, seed: 1)
        #expect(result.history.applied.filter { $0.tx.writes.contains(WriteID(0)) }.count == 2)
        #expect(result.violations.contains { $0.invariant == .noDuplicateApplication })
        #expect(result.server.count == 2)
    }

    // MARK: - Sync now (seed 004 §2.2)

    @Test func syncNowStartsASyncAtOnceWhenIdleAndOnline() {
        var c = PushPullStrategy().makeClient(.testing(), restoring: nil)
        _ = c.step(.network(.online), now: 0)
        _ = c.step(.received(.pulled(sync: 1, changes: [], deleted: [], timestamp: 1)), now: 10)
        #expect(c.step(.user(.syncNow), now: 100) == [
            .cancelTimer(C.retryTimer), .cancelTimer(C.soonTimer),
            .send(.pull(sync: 2, since: 1)), .setTimer(C.requestTimer(2), afterMs: 6_000),
        ])
        // While that sync runs, another tap starts nothing (one sync at a time).
        #expect(c.step(.user(.syncNow), now: 110).isEmpty)
    }

    @Test func syncNowOfflineTellsTheUserItWaitsForTheNetwork() {
        var c = PushPullStrategy().makeClient(.testing(), restoring: nil)
        let fx = c.step(.user(.syncNow), now: 100)
        #expect(fx.count == 1)
        #expect(fx.allSatisfy { if case .event(.notice) = $0 { return true } else { return false } })
        #expect(c.phase == .idle)
    }

    @Test func strategiesWithoutTheButtonAnswerSyncNowWithAValue() {
        var i = InstantStrategy().makeClient(.testing(), restoring: nil)
        #expect(i.step(.user(.syncNow)).contains { if case .event(.invalidInput) = $0 { return true } else { return false } })
        var s = SharedDiffStrategy().makeClient(.testing(), restoring: nil)
        #expect(s.step(.user(.syncNow)).contains { if case .event(.invalidInput) = $0 { return true } else { return false } })
        var p = ConflictPromptStrategy().makeClient(.testing(), restoring: nil)
        #expect(p.step(.user(.syncNow)).contains { if case .event(.invalidInput) = $0 { return true } else { return false } })
    }

    /// The generator draws "sync now" taps only when asked, from their own stream: every other
    /// action of the seed stays as it was.
    @Test func theGeneratorDrawsSyncNowOnlyWhenAskedAndMovesNothingElse() {
        var on = WorkloadGenerator.Config()
        on.syncNow = true
        for seed: UInt64 in 0..<10 {
            let plain = WorkloadGenerator().generate(seed: seed)
            let with = WorkloadGenerator(on).generate(seed: seed)
            #expect(!plain.actions.contains { $0.action.kind == .syncNow })
            #expect(with.actions.contains { $0.action.kind == .syncNow })
            #expect(with.actions.filter { $0.action.kind != .syncNow } == plain.actions)
            #expect(zip(with.actions, with.actions.dropFirst()).allSatisfy { $0.at <= $1.at })
        }
    }

    @Test func contractHoldsOnGeneratedSeeds() throws {
        let contract = PushPullStrategy().info.contract
        for seed: UInt64 in 0..<20 {
            let schedule = WorkloadGenerator().generate(seed: seed)
            let result = try Simulator.run(PushPullStrategy(), schedule, seed: seed)
            let broken = result.violations.filter { contract.contains($0.invariant) }
            #expect(broken.isEmpty, "seed \(seed): \(broken.map(\.description))")
        }
    }
}
