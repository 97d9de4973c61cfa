import Testing
@testable import SyncSim

/// Tests of the `reference` strategy: transcripts of single machines, then hand-built schedules.
@Suite("Reference")
struct ReferenceTests {
    let a = ClientID(0), b = ClientID(1)
    let todo = EntityID(1)

    func seed() -> ReferenceServer {
        var s = ReferenceServer(clients: 2)
        _ = s.step(.adminWrite(UserWrite(id: WriteID(UInt32.max), ops: [
            .create(todo, .todos, [FieldAssignment(.title, .string("T")), FieldAssignment(.done, .bool(false))]),
        ])))
        return s
    }

    func stamp(_ p: Int64, _ l: UInt32 = 0, _ node: Int) -> HLCTimestamp {
        HLCTimestamp(physical: p, logical: l, node: UInt32(node))
    }

    func sync(_ m: [ReferenceMutation], request: UInt64 = 1) -> ReferenceUp {
        .sync(request: request, base: 0, clock: m.map(\.stamp).max() ?? .bottom, mutations: m)
    }

    func setTitle(_ w: UInt32, _ v: String, _ s: HLCTimestamp) -> ReferenceMutation {
        ReferenceMutation(id: WriteID(w), stamp: s, ops: [.update(todo, .todos, [FieldAssignment(.title, .string(v))])])
    }

    func applied(_ effects: [ServerEffect<ReferenceDown>]) -> [AppliedTransaction] {
        effects.compactMap { if case .applied(let t) = $0 { return t } else { return nil } }
    }

    // MARK: - Transcripts

    @Test func hlcTickIsMonotonicAndObserveCarriesCausality() {
        var c = HybridLogicalClock(node: 0)
        let t1 = c.tick(now: 100)
        let t2 = c.tick(now: 100)
        let t3 = c.tick(now: 90)   // the wall clock went back: logical carries on
        #expect(t1 < t2 && t2 < t3)
        c.observe(stamp(5_000, 3, 1), now: 120)
        let t4 = c.tick(now: 130)
        #expect(t4 > stamp(5_000, 3, 1))
        #expect(t4.physical == 5_000)
        #expect(c.tick(now: 6_000) == stamp(6_000, 0, 0))
    }

    @Test func higherStampWinsWhateverTheArrivalOrder() {
        var s = seed()
        // B's later stamp arrives first; A's older one arrives second and loses.
        _ = s.step(.received(from: b, sync([setTitle(1, "B", stamp(200, 0, 1))])))
        let fx = s.step(.received(from: a, sync([setTitle(0, "A", stamp(100, 0, 0))])))
        #expect(s.data[todo]?[.title] == .string("B"))
        // A's write is applied (it is a transaction) but its assignment lost.
        let tx = applied(fx)
        #expect(tx.count == 1 && tx[0].writes == [WriteID(0)])
        #expect(tx[0].ops == [.update(todo, .todos, [])])
        // Equal physical time: the node id breaks the tie.
        _ = s.step(.received(from: a, sync([setTitle(2, "A2", stamp(200, 0, 0))])))
        #expect(s.data[todo]?[.title] == .string("B"))
    }

    @Test func deleteWinsAndAnEditOfATombstoneIsRefused() {
        var s = seed()
        _ = s.step(.received(from: a, sync([ReferenceMutation(id: WriteID(0), stamp: stamp(100, 0, 0), ops: [.delete(todo, .todos)])])))
        #expect(s.data[todo] == nil)
        // B's edit has a later stamp, but the entity is a tombstone: refused, never recreated.
        let fx = s.step(.received(from: b, sync([setTitle(1, "late", stamp(900, 0, 1))])))
        #expect(applied(fx).isEmpty)
        #expect(s.data[todo] == nil)
        guard case .send(_, .syncReply(_, let outcomes, _, _, _, _))? = fx.last else {
            Issue.record("no reply"); return
        }
        #expect(outcomes == [ReferenceWriteOutcome(write: WriteID(1), outcome: .refused(.tombstoned(todo)))])

        // The client that made the edit tells its user.
        var client = ReferenceClient(context: .testing(b), restoring: nil)
        _ = client.step(.network(.online))
        _ = client.step(.user(.write(UserWrite(id: WriteID(1), ops: [.update(todo, .todos, [FieldAssignment(.title, .string("late"))])]))))
        let told = client.step(.received(.syncReply(request: 1, outcomes: outcomes, base: 0, version: 2, clock: .bottom, changes: [])))
        #expect(told.contains(.event(.writeRejected(WriteID(1), .conflictDiscarded))))
        #expect(client.pendingWrites.isEmpty)
    }

    /// A write is atomic and applied in place: a refusal after earlier steps took effect rolls
    /// them back (registers, tombstones, cleared links, the derived store), leaving the table
    /// equal to what it was.
    @Test func refusedWriteRollsBackInPlace() {
        let schema = Schema.default
        var t = ReferenceTable()
        let profile = EntityID(2), post = EntityID(3)
        _ = t.apply([.create(todo, .todos, [FieldAssignment(.title, .string("T"))]),
                     .create(profile, .profiles, [FieldAssignment(.name, .string("Ann"))]),
                     .create(post, .posts, []), .link(post, .author, profile)],
                    stamp: stamp(10, 0, 0), version: 1, schema: schema)
        let before = t
        let r = t.apply([.update(todo, .todos, [FieldAssignment(.title, .string("changed"))]),
                         .create(EntityID(40), .todos, []),
                         .delete(profile, .profiles),  // clears the post's author
                         .link(post, .author, EntityID(99))],  // refused: no such target
                        stamp: stamp(20, 0, 0), version: 2, schema: schema)
        #expect(r == .failure(.missing(EntityID(99))))
        #expect(t == before)
        #expect(t.states.count == before.states.count)
        #expect(t.store[post]?[LinkID.author] == profile)
        // And a write that succeeds keeps every step.
        let ok = t.apply([.update(todo, .todos, [FieldAssignment(.title, .string("changed"))]), .delete(profile, .profiles)],
                         stamp: stamp(30, 0, 0), version: 3, schema: schema)
        #expect((try? ok.get())?.count == 2)
        #expect(t.store[todo]?[FieldID.title] == .string("changed"))
        #expect(t.store[post]?[LinkID.author] == nil)
        #expect(t[profile]?.deleted == true)
    }

    @Test func clientRefusesAtOnceAnEditOfAnEntityItKnowsIsDeleted() {
        var client = ReferenceClient(context: .testing(a), restoring: nil)
        _ = client.step(.network(.online))
        var st = EntityState(namespace: .todos, schema: .default)
        st.deleted = true
        st.version = 2
        _ = client.step(.received(.syncReply(request: 1, outcomes: [], base: 0, version: 2, clock: .bottom,
                                             changes: [EntityChange(id: todo, state: st)])))
        let fx = client.step(.user(.write(UserWrite(id: WriteID(3), ops: [.update(todo, .todos, [FieldAssignment(.done, .bool(true))])]))))
        #expect(fx.contains(.event(.writeRejected(WriteID(3), .conflictDiscarded))))
        #expect(client.pendingWrites.isEmpty)
    }

    @Test func duplicateIsAckedAgainWithoutReapplying() {
        var s = seed()
        let m = setTitle(0, "once", stamp(100, 0, 0))
        let first = s.step(.received(from: a, sync([m], request: 1)))
        let again = s.step(.received(from: a, sync([m], request: 2)))
        #expect(applied(first).count == 1)
        #expect(applied(again).isEmpty)
        guard case .send(_, .syncReply(_, let o1, _, _, _, _))? = first.last,
              case .send(_, .syncReply(_, let o2, _, _, _, _))? = again.last else {
            Issue.record("no reply"); return
        }
        #expect(o1 == o2)
    }

    @Test func queueCapRefusesVisibly() {
        var client = ReferenceClient(context: .testing(a, queueCap: 2), restoring: nil)
        _ = client.step(.network(.offline))
        for i in 0..<2 {
            _ = client.step(.user(.write(UserWrite(id: WriteID(UInt32(i)), ops: [.update(todo, .todos, [FieldAssignment(.priority, .int(i))])]))))
        }
        let fx = client.step(.user(.write(UserWrite(id: WriteID(2), ops: [.update(todo, .todos, [FieldAssignment(.priority, .int(9))])]))))
        #expect(fx.contains(.event(.writeRejected(WriteID(2), .queueFull))))
        #expect(client.pendingWrites == [WriteID(0), WriteID(1)])
    }

    @Test func queueSurvivesRestartEvenWithPersistenceOff() {
        var client = ReferenceClient(context: .testing(a, persistence: false), restoring: nil)
        _ = client.step(.network(.offline))
        let fx = client.step(.user(.write(UserWrite(id: WriteID(0), ops: [.update(todo, .todos, [FieldAssignment(.done, .bool(true))])]))))
        #expect(fx.contains(.persist))
        let restored = ReferenceClient(context: .testing(a, persistence: false, incarnation: 1), restoring: client.durableState)
        #expect(restored.pendingWrites == [WriteID(0)])
        #expect(client.durableState.replica == nil)
    }

    @Test func queryOnceOfflineFailsAtOnceAndNoConnectIsEverAsked() {
        var client = ReferenceClient(context: .testing(a), restoring: nil)
        let fx = client.step(.network(.offline)) + client.step(.user(.queryOnce(QueryRequestID(1), Query(.todos))))
        #expect(fx.contains(.event(.queryOnceFailed(QueryRequestID(1), offline: true, hasStaleResult: false))))
        #expect(!fx.contains(.connect))
    }

    // MARK: - Schedules

    func options(clients: Int = 2, persistence: Bool = true, skew: [Int64] = [], cap: Int = 200) -> SimulationOptions {
        var o = SimulationOptions()
        o.clients = clients
        o.persistence = persistence
        o.clockSkewMs = skew
        o.queueCap = cap
        return o
    }

    var initialTodo: [InitialEntity] {
        [InitialEntity(entity: todo, namespace: .todos,
                       values: [FieldAssignment(.title, .string("T")), FieldAssignment(.done, .bool(false))])]
    }

    func run(_ o: SimulationOptions, _ actions: [TimedAction]) throws -> RunResult {
        try Simulator.run(ReferenceStrategy(), Schedule(options: o, initial: initialTodo, actions: actions), seed: 1)
    }

    @Test func offlineTitleAndServerDoneMerge() throws {
        let r = try run(options(), [
            TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 100, .goOffline(a)),
            TimedAction(at: 200, .update(a, todo, [FieldAssignment(.title, .string("Offline"))])),
            TimedAction(at: 300, .serverUpdate(todo, [FieldAssignment(.done, .bool(true))])),
            TimedAction(at: 2_000, .goOnline(a)),
        ])
        #expect(r.violations.isEmpty, "\(r.violations)")
        #expect(r.server[todo]?[.title] == .string("Offline"))
        #expect(r.server[todo]?[.done] == .bool(true))
        #expect(r.settled)
    }

    @Test func concurrentSameFieldEditsWithSkewedClocks() throws {
        // A's clock runs 3 s ahead: its offline edit, made first, still carries the later stamp.
        let r = try run(options(skew: [3_000, -1_000]), [
            TimedAction(at: 0, .subscribe(b, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 100, .goOffline(a)),
            TimedAction(at: 200, .update(a, todo, [FieldAssignment(.title, .string("A"))])),
            TimedAction(at: 400, .update(b, todo, [FieldAssignment(.title, .string("B"))])),
            TimedAction(at: 3_000, .goOnline(a)),
        ])
        #expect(r.violations.isEmpty, "\(r.violations)")
        #expect(r.server[todo]?[.title] == .string("A"))
    }

    @Test func editAfterSeeingAnotherEditWinsDespiteASlowClock() throws {
        // B's clock is 4 s behind, but B saw A's edit before making its own: causality wins.
        let r = try run(options(skew: [0, -4_000]), [
            TimedAction(at: 0, .subscribe(b, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 100, .update(a, todo, [FieldAssignment(.title, .string("A"))])),
            TimedAction(at: 1_000, .update(b, todo, [FieldAssignment(.title, .string("B"))])),
        ])
        #expect(r.violations.isEmpty, "\(r.violations)")
        #expect(r.server[todo]?[.title] == .string("B"))
    }

    @Test func deleteRacingAnEdit() throws {
        let r = try run(options(), [
            TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 0, .subscribe(b, SubscriptionID(2), Query(.todos))),
            TimedAction(at: 100, .goOffline(b)),
            TimedAction(at: 150, .update(b, todo, [FieldAssignment(.title, .string("edit"))])),
            TimedAction(at: 200, .delete(a, todo)),
            TimedAction(at: 2_000, .goOnline(b)),
        ])
        #expect(r.violations.isEmpty, "\(r.violations)")
        #expect(r.server[todo] == nil)
        let rejected = r.history.rejectedWrites
        #expect(rejected.count == 1)
    }

    @Test(arguments: [true, false])
    func restartWithPendingWrites(persistence: Bool) throws {
        let r = try run(options(persistence: persistence), [
            TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 100, .goOffline(a)),
            TimedAction(at: 200, .update(a, todo, [FieldAssignment(.title, .string("kept"))])),
            TimedAction(at: 250, .create(a, EntityID(2), .todos, [FieldAssignment(.title, .string("new"))])),
            TimedAction(at: 300, .restart(a)),
            TimedAction(at: 1_000, .goOnline(a)),
        ])
        #expect(r.violations.isEmpty, "\(r.violations)")
        #expect(r.server[todo]?[.title] == .string("kept"))
        #expect(r.server[EntityID(2)]?[.title] == .string("new"))
    }

    @Test func queueCapInASchedule() throws {
        var actions = [TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))), TimedAction(at: 100, .goOffline(a))]
        for i in 0..<5 { actions.append(TimedAction(at: 200 + Int64(i), .update(a, todo, [FieldAssignment(.title, .string("v\(i)"))]))) }
        actions.append(TimedAction(at: 1_000, .goOnline(a)))
        let r = try run(options(cap: 3), actions)
        #expect(r.violations.isEmpty, "\(r.violations)")
        #expect(r.history.rejectedWrites.count == 2)
        #expect(r.server[todo]?[.title] == .string("v2"))
    }

    @Test func generatedSeedsHoldTheContract() throws {
        for s in [UInt64(0), 1, 2, 3, 4, 5] {
            let schedule = WorkloadGenerator().generate(seed: s)
            let r = try Simulator.run(ReferenceStrategy(), schedule, seed: s)
            #expect(r.violations.isEmpty, "seed \(s): \(r.violations)")
            #expect(r.settled)
        }
    }
}
