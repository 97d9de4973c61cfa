import Testing
@testable import SyncSim

/// `sharedDiff`: transcripts of its rules, and seed 001's named cases as hand-built schedules,
/// each checked against `instant` on the same schedule.
@Suite struct SharedDiffTests {
    static let alice = EntityID(1)
    static let bob = EntityID(2)
    static let post = EntityID(3)
    static let profiles = Query(.profiles)
    static let postsWithAuthor = Query(.posts, include: .forward(.author))

    /// Alice authors the only post; Bob authors nothing (so `posts with author` does not see him).
    static var microblog: EntityStore {
        var s = EntityStore()
        _ = s.apply(.create(alice, .profiles, [FieldAssignment(.name, .string("Alice")), FieldAssignment(.bio, .string("a"))]), schema: .default)
        _ = s.apply(.create(bob, .profiles, [FieldAssignment(.name, .string("Bob")), FieldAssignment(.bio, .string("b"))]), schema: .default)
        _ = s.apply(.create(post, .posts, [FieldAssignment(.content, .string("hi")), FieldAssignment(.likes, .int(0))]), schema: .default)
        _ = s.apply(.link(post, .author, alice), schema: .default)
        return s
    }

    /// `save()`'s closure over links (a set, computed with an adjacency list) equals the scan it
    /// replaced: start from the accepted entries, follow links either way inside the view.
    @Test func linkClosureEqualsNaiveScan() {
        let c = SharedDiffStrategy().makeClient(ClientContext.testing(persistence: false), restoring: nil)
        let schema = Schema.default
        var r = SimRandom(seed: 11)
        for round in 0..<40 {
            var store = EntityStore()
            let n = 2 + Int(r.next() % 14)
            for i in 1...n {
                let ns: NamespaceID = [.profiles, .posts, .todos][Int(r.next() % 3)]
                _ = store.apply(.create(EntityID(UInt32(i)), ns, []), schema: schema)
            }
            for i in 1...n where store[EntityID(UInt32(i))]?.namespace == .posts && r.next() % 3 != 0 {
                _ = store.apply(.link(EntityID(UInt32(i)), .author, EntityID(UInt32(1 + r.next() % UInt64(n)))), schema: schema)
            }
            let query: Query = round % 2 == 0 ? Query(.posts, include: .forward(.author)) : Query(.profiles, include: .reverse(.author))
            let view = query.evaluate(store)
            let due: NamespaceID = round % 3 == 0 ? .profiles : .posts
            // The scan `save()` did before.
            var sent: [EntityID] = view.entries.filter { $0.record.namespace == due }.map(\.id)
            var frontier = sent
            while let e = frontier.popLast() {
                guard let rec = view.record(e) else { continue }
                var next: [EntityID] = []
                for l in schema.links(of: rec.namespace) { for t in rec.targets(l) where view.contains(t) { next.append(t) } }
                for entry in view.entries {
                    for l in schema.links(of: entry.record.namespace) where entry.record.points(l, at: e) { next.append(entry.id) }
                }
                for x in next where !sent.contains(x) { sent.append(x); frontier.append(x) }
            }
            sent.sort()
            let reached = c.linkClosure(of: view) { $0.namespace == due }
            let fast = view.entries.indices.filter { reached[$0] }.map { view.entries[$0].id }
            #expect(fast == sent, "round \(round)")
        }
    }

    static func saveTimer(_ s: UInt32) -> TimerID { TimerID(1 << 31 | s) }

    /// A client connected and authenticated, with sub1 = `profiles` and sub2 = `posts with author`
    /// answered by the server at tx 1. Returns the client and its random stream as of now.
    static func connectedClient() -> (SharedDiffClient, SimRandom) {
        let ctx = ClientContext.testing(persistence: false)
        var c = SharedDiffStrategy().makeClient(ctx, restoring: nil)
        _ = c.step(.network(.online))
        _ = c.step(.connected)
        _ = c.step(.received(.initOk))
        _ = c.step(.user(.subscribe(SubscriptionID(1), profiles)))
        _ = c.step(.user(.subscribe(SubscriptionID(2), postsWithAuthor)))
        _ = c.step(.received(.addQueryOk(.subscription(SubscriptionID(1)), profiles.evaluate(microblog), processedTxID: 1)))
        _ = c.step(.received(.addQueryOk(.subscription(SubscriptionID(2)), postsWithAuthor.evaluate(microblog), processedTxID: 1)))
        return (c, ctx.random)
    }

    @Test func subscribingSendsAddQueryAndYieldsOnTheAnswer() {
        var c = SharedDiffStrategy().makeClient(.testing(), restoring: nil)
        #expect(c.step(.network(.online)) == [.connect])
        #expect(c.step(.connected) == [.send(.initialize)])
        #expect(c.step(.received(.initOk)) == [])
        #expect(c.step(.user(.subscribe(SubscriptionID(1), Self.profiles)))
                == [.send(.addQuery(.subscription(SubscriptionID(1)), Self.profiles))])
        let r = Self.profiles.evaluate(Self.microblog)
        #expect(c.step(.received(.addQueryOk(.subscription(SubscriptionID(1)), r, processedTxID: 1)))
                == [.persist, .event(.subscriptionYielded(SubscriptionID(1), fromCache: false))])
        #expect(c.result(of: SubscriptionID(1)) == r)
    }

    /// A write changes the collections at once and schedules `save()` for every collection that
    /// holds the namespace, each on its own timer drawn from the client's stream.
    @Test func aWriteSchedulesOneSavePerCollectionHoldingTheNamespace() {
        var (c, r) = Self.connectedClient()
        let w = UserWrite(id: WriteID(0), ops: [.update(Self.bob, .profiles, [FieldAssignment(.bio, .string("b2"))])])
        let d1 = Int64(r.int(in: 2...40)), d2 = Int64(r.int(in: 2...40))
        #expect(c.step(.user(.write(w))) == [
            .setTimer(Self.saveTimer(1), afterMs: d1),
            .setTimer(Self.saveTimer(2), afterMs: d2),
            .event(.subscriptionYielded(SubscriptionID(1), fromCache: false)),
        ])
        #expect(c.result(of: SubscriptionID(1))?.record(Self.bob)?[.bio] == .string("b2"))
        #expect(c.pendingWrites == [WriteID(0)])
    }

    /// Seed 001 §Problem 1: `posts with author` sees only Alice, the tracked server ids of profiles
    /// are {Alice, Bob}, so its save deletes Bob — carrying no user write — and re-sends Alice
    /// with her post (traversal). The `profiles` save carries the user's write.
    @Test func aPartialCollectionSavesADeleteNobodyAskedFor() {
        var (c, r) = Self.connectedClient()
        let w = UserWrite(id: WriteID(0), ops: [.update(Self.bob, .profiles, [FieldAssignment(.bio, .string("b2"))])])
        _ = r.int(in: 2...40); _ = r.int(in: 2...40)
        _ = c.step(.user(.write(w)))
        let e2 = r.next()
        #expect(c.step(.timerFired(Self.saveTimer(2))) == [
            .send(.transact(eventID: e2, writes: [], steps: [
                InstantStep(.delete(Self.bob, .profiles), upsert: false),
                InstantStep(.update(Self.alice, .profiles, [FieldAssignment(.name, .string("Alice")), FieldAssignment(.bio, .string("a"))]), upsert: true),
                InstantStep(.update(Self.post, .posts, [FieldAssignment(.content, .string("hi")), FieldAssignment(.likes, .int(0))]), upsert: true),
                InstantStep(.link(Self.post, .author, Self.alice), upsert: false),
            ])),
            .setTimer(TimerID(1), afterMs: 6_000),
        ])
        // `profiles` has not saved yet: the unsaved edit lays over the pending delete, so it still
        // shows Bob, and its own save re-sends him (with the write) right after the delete —
        // the two saves race, and whichever the server applies last decides whether Bob exists.
        #expect(c.result(of: SubscriptionID(1))?.record(Self.bob)?[.bio] == .string("b2"))
        #expect(c.pendingWrites == [WriteID(0)])
        let e1 = r.next()
        #expect(c.step(.timerFired(Self.saveTimer(1))) == [
            .send(.transact(eventID: e1, writes: [WriteID(0)], steps: [
                InstantStep(.update(Self.alice, .profiles, [FieldAssignment(.name, .string("Alice")), FieldAssignment(.bio, .string("a"))]), upsert: true),
                InstantStep(.update(Self.bob, .profiles, [FieldAssignment(.name, .string("Bob")), FieldAssignment(.bio, .string("b2"))]), upsert: true),
            ])),
            .setTimer(TimerID(2), afterMs: 12_000),
        ])
    }

    /// The whole collection is re-sent as full entities: the written element carries the write.
    @Test func aFullCollectionSaveCarriesTheWriteAndResendsEveryElement() {
        var (c, r) = Self.connectedClient()
        let w = UserWrite(id: WriteID(0), ops: [.update(Self.alice, .profiles, [FieldAssignment(.bio, .string("a2"))])])
        _ = r.int(in: 2...40); _ = r.int(in: 2...40)
        _ = c.step(.user(.write(w)))
        let e1 = r.next()
        #expect(c.step(.timerFired(Self.saveTimer(1))) == [
            .send(.transact(eventID: e1, writes: [WriteID(0)], steps: [
                InstantStep(.update(Self.alice, .profiles, [FieldAssignment(.name, .string("Alice")), FieldAssignment(.bio, .string("a2"))]), upsert: true),
                InstantStep(.update(Self.bob, .profiles, [FieldAssignment(.name, .string("Bob")), FieldAssignment(.bio, .string("b"))]), upsert: true),
            ])),
            .setTimer(TimerID(1), afterMs: 6_000),
        ])
    }

    /// Offline, a save is computed from the collection as it is then and queued; `init-ok`
    /// replays it as computed.
    @Test func anOfflineSaveIsQueuedAndReplayedOnInitOk() {
        var (c, r) = Self.connectedClient()
        #expect(c.step(.network(.offline)) == [.cancelTimer(TimerID(0))])
        let w = UserWrite(id: WriteID(0), ops: [.update(Self.alice, .profiles, [FieldAssignment(.bio, .string("a2"))])])
        _ = r.int(in: 2...40); _ = r.int(in: 2...40)
        _ = c.step(.user(.write(w)))
        let e1 = r.next()
        #expect(c.step(.timerFired(Self.saveTimer(1))) == [])
        #expect(c.pending.map(\.eventID) == [e1])
        #expect(c.step(.network(.online)) == [.connect])
        #expect(c.step(.connected) == [.send(.initialize)])
        let replay = c.step(.received(.initOk))
        #expect(replay.count == 4) // add-query ×2, the transact, its timeout
        #expect(replay[2] == .send(.transact(eventID: e1, writes: [WriteID(0)], steps: c.pending[0].steps)))
    }

    @Test func aWriteToAnElementNoCollectionHoldsIsRefused() {
        var (c, _) = Self.connectedClient()
        let w = UserWrite(id: WriteID(0), ops: [.update(EntityID(9), .todos, [FieldAssignment(.done, .bool(true))])])
        #expect(c.step(.user(.write(w))) == [.event(.writeRejected(WriteID(0), .invalid("no collection holds todo#9")))])
        #expect(c.pendingWrites.isEmpty)
        #expect(c.step(.user(.forceSync(.keepLocal)))
                == [.event(.invalidInput("sharedDiff has no conflict prompts or forced sync: forces push to server"))])
    }

    // MARK: - Seed 001's named cases, end to end

    static var microblogInitial: [InitialEntity] {
        [
            InitialEntity(entity: alice, namespace: .profiles, values: [FieldAssignment(.name, .string("Alice")), FieldAssignment(.bio, .string("a"))]),
            InitialEntity(entity: bob, namespace: .profiles, values: [FieldAssignment(.name, .string("Bob")), FieldAssignment(.bio, .string("b"))]),
            InitialEntity(entity: post, namespace: .posts, values: [FieldAssignment(.content, .string("hi")), FieldAssignment(.likes, .int(0))],
                          links: [LinkAssignment(.author, alice)]),
        ]
    }

    static func options(clients: Int) -> SimulationOptions {
        var o = SimulationOptions()
        o.clients = clients
        return o
    }

    /// (a) Ghost deletion: one client, `profiles` and `posts with author`; editing Bob (who
    /// authors no post) makes the second collection's save delete him.
    static var ghostDeletion: Schedule {
        Schedule(options: options(clients: 1), initial: microblogInitial, actions: [
            TimedAction(at: 0, .subscribe(ClientID(0), SubscriptionID(1), profiles)),
            TimedAction(at: 0, .subscribe(ClientID(0), SubscriptionID(2), postsWithAuthor)),
            TimedAction(at: 1_000, .update(ClientID(0), bob, [FieldAssignment(.bio, .string("b2"))])),
        ])
    }

    @Test func ghostDeletionOfAProfileThePartialViewDoesNotSee() throws {
        let bad = try Simulator.run(SharedDiffStrategy(), Self.ghostDeletion, seed: 1)
        #expect(bad.violations.contains { $0.invariant == .noGhostDeletion && $0.entity == Self.bob })
        let good = try Simulator.run(InstantStrategy(), Self.ghostDeletion, seed: 1)
        #expect(!good.violations.contains { $0.invariant == .noGhostDeletion })
        #expect(good.server[Self.bob]?[.bio] == .string("b2"))
    }

    /// (b) Resurrection: A is offline while B deletes todo#1; A then creates todo#3, and its save
    /// re-sends the whole stale collection, todo#1 included, as upserts.
    static var resurrection: Schedule {
        let todo = { (id: UInt32, t: String) in
            InitialEntity(entity: EntityID(id), namespace: .todos, values: [FieldAssignment(.title, .string(t)), FieldAssignment(.done, .bool(false))])
        }
        return Schedule(options: options(clients: 2), initial: [todo(1, "milk"), todo(2, "eggs")], actions: [
            TimedAction(at: 0, .subscribe(ClientID(0), SubscriptionID(1), Query(.todos))),
            TimedAction(at: 0, .subscribe(ClientID(1), SubscriptionID(2), Query(.todos))),
            TimedAction(at: 1_000, .goOffline(ClientID(0))),
            TimedAction(at: 1_100, .delete(ClientID(1), EntityID(1))),
            TimedAction(at: 1_500, .create(ClientID(0), EntityID(3), .todos, [FieldAssignment(.title, .string("bread"))])),
            TimedAction(at: 3_000, .goOnline(ClientID(0))),
        ])
    }

    @Test func aDeletedItemReappearsAfterANewCreate() throws {
        let bad = try Simulator.run(SharedDiffStrategy(), Self.resurrection, seed: 1)
        #expect(bad.violations.contains { $0.invariant == .noResurrection && $0.entity == EntityID(1) })
        #expect(bad.server.contains(EntityID(1)))
        let good = try Simulator.run(InstantStrategy(), Self.resurrection, seed: 1)
        #expect(!good.violations.contains { $0.invariant == .noResurrection })
        #expect(!good.server.contains(EntityID(1)))
        #expect(good.server.contains(EntityID(3)))
    }

    /// Seed 001 §Problem 3: A (offline) edits Alice; the save traverses Alice → her post and
    /// re-sends its stale content over B's newer edit.
    static var staleLinkedChild: Schedule {
        Schedule(options: options(clients: 2), initial: microblogInitial, actions: [
            TimedAction(at: 0, .subscribe(ClientID(0), SubscriptionID(1), postsWithAuthor)),
            TimedAction(at: 0, .subscribe(ClientID(1), SubscriptionID(2), postsWithAuthor)),
            TimedAction(at: 1_000, .goOffline(ClientID(0))),
            TimedAction(at: 1_100, .update(ClientID(1), post, [FieldAssignment(.content, .string("edited"))])),
            TimedAction(at: 1_500, .update(ClientID(0), alice, [FieldAssignment(.bio, .string("a2"))])),
            TimedAction(at: 3_000, .goOnline(ClientID(0))),
        ])
    }

    @Test func aTraversedStaleChildOverwritesANewerEdit() throws {
        let bad = try Simulator.run(SharedDiffStrategy(), Self.staleLinkedChild, seed: 1)
        #expect(bad.violations.contains { $0.invariant == .disjointFieldMerge && $0.entity == Self.post })
        #expect(bad.server[Self.post]?[.content] == .string("hi"))
        let good = try Simulator.run(InstantStrategy(), Self.staleLinkedChild, seed: 1)
        #expect(good.violations.isEmpty)
        #expect(good.server[Self.post]?[.content] == .string("edited"))
    }

    /// The contract holds on generated schedules (a sample; the report covers seeds 0..<100).
    @Test(arguments: [0, 1, 2, 3, 4] as [UInt64]) func contractHoldsOnGeneratedSeeds(seed: UInt64) throws {
        let s = SharedDiffStrategy()
        let r = try simulate(s, WorkloadGenerator().generate(seed: seed), seed: seed)
        let broken = r.violations.filter { s.info.contract.contains($0.invariant) }
        #expect(broken.isEmpty, "\(broken)")
    }
}
