import Testing
@testable import SyncSim

/// Every invariant's oracle, shown failing on a schedule (or strategy) that breaks it and holding
/// on one that does not. A test that could not fail would prove nothing.
@Suite struct InvariantTests {
    typealias F = Fixture
    let A = Fixture.A, B = Fixture.B

    @Test func convergence() throws {
        let actions = F.subscribeTodos + [TimedAction(at: 1_000, .update(B, F.todo, F.set(.title, .string("b"))))]
        let bad = try F.run(BrokenInstant(.ignoreRefresh), actions)
        #expect(bad.violates(.convergence), "\(bad.violations)")
        let good = try F.run(InstantStrategy(), actions)
        #expect(good.violations.isEmpty, "\(good.violations)")
        #expect(good.settled)
    }

    /// Seed 000 §4.3: offline `title` + server-side `done` must merge.
    @Test func disjointFieldMerge() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("offline title")))),
            TimedAction(at: 1_200, .serverUpdate(F.todo, F.set(.done, .bool(true)))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(FullEntityStrategy(), actions)
        #expect(bad.violates(.disjointFieldMerge), "\(bad.violations)")
        #expect(bad.server[F.todo]?[.done] == .bool(false))   // the clobber
        let good = try F.run(InstantStrategy(), actions)
        #expect(good.violations.isEmpty, "\(good.violations)")
        #expect(good.server[F.todo]?[.title] == .string("offline title") && good.server[F.todo]?[.done] == .bool(true))
    }

    @Test func lwwConvergence() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("x")))),
            TimedAction(at: 2_000, .update(B, F.todo, F.set(.title, .string("y")))),
        ]
        let bad = try F.run(BrokenInstant(.lossyServer), actions)
        #expect(bad.violates(.lwwConvergence), "\(bad.violations)")
        let good = try F.run(InstantStrategy(), actions)
        #expect(good.violations.isEmpty && good.server[F.todo]?[.title] == .string("y"))
    }

    /// Seed 000: the offline title replayed after the server's title wins under arrival order.
    @Test func lwwReplayedOfflineWriteWinsUnderArrivalOrder() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("A offline")))),
            TimedAction(at: 1_500, .serverUpdate(F.todo, F.set(.title, .string("server")))),
            TimedAction(at: 3_000, .goOnline(A)),
        ]
        let r = try F.run(InstantStrategy(), actions)
        #expect(r.violations.isEmpty, "\(r.violations)")
        #expect(r.server[F.todo]?[.title] == .string("A offline"))
    }

    @Test func noGhostDeletion() throws {
        let actions = F.subscribeTodos + [TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("x"))))]
        let bad = try F.run(BrokenInstant(.updateAsDeleteCreate), actions)
        #expect(bad.violates(.noGhostDeletion), "\(bad.violations)")
        #expect(try F.run(InstantStrategy(), actions).violations.isEmpty)
    }

    /// InstantDB semantics §11–12: an update of an entity in no cached store is an upsert, which
    /// recreates a deleted entity; with the entity cached it is sent in update mode and rejected.
    @Test func noResurrection() throws {
        let race: [TimedAction] = [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("edit")))),
            TimedAction(at: 1_200, .delete(B, F.todo)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let uncached = [TimedAction(at: 0, .subscribe(B, SubscriptionID(2), Query(.todos)))] + race
        let bad = try F.run(InstantStrategy(), uncached)
        #expect(bad.violates(.noResurrection), "\(bad.violations)")
        let cached = try F.run(InstantStrategy(), F.subscribeTodos + race)
        #expect(!cached.violates(.noResurrection), "\(cached.violations)")
        #expect(cached.history.rejectedWrites.count == 1)   // A is told its edit was rejected
    }

    /// Seed 000: five offline keystrokes end at "Testing".
    @Test func typingConvergesToLastKeystroke() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .type(A, F.todo, .title, "Testing", everyMs: 30)),
            TimedAction(at: 3_000, .goOnline(A)),
        ]
        let bad = try F.run(BrokenInstant(.reverseReplay), actions)
        #expect(bad.violates(.typingConvergesToLastKeystroke), "\(bad.violations)")
        let good = try F.run(InstantStrategy(), actions)
        #expect(good.violations.isEmpty && good.server[F.todo]?[.title] == .string("Testing"))
    }

    @Test func noLostAcknowledgedWrite() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("queued")))),
            TimedAction(at: 1_200, .restart(A)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(InstantStrategy(), actions, options: F.options(persistence: false))
        #expect(bad.violates(.noLostAcknowledgedWrite), "\(bad.violations)")
        let good = try F.run(InstantStrategy(), actions, options: F.options(persistence: true))
        #expect(good.violations.isEmpty && good.server[F.todo]?[.title] == .string("queued"))
    }

    @Test func readYourWrites() throws {
        let actions = F.subscribeTodos + [TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("mine"))))]
        let bad = try F.run(BrokenInstant(.noOptimisticReads), actions)
        #expect(bad.violates(.readYourWrites), "\(bad.violations)")
        #expect(try F.run(InstantStrategy(), actions).violations.isEmpty)
    }

    /// InstantDB does not dedup by event id: a transact-ok lost to a disconnect means a replay.
    @Test func noDuplicateApplication() throws {
        func actions(offlineAt: Int64) -> [TimedAction] {
            F.subscribeTodos + [
                TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("once")))),
                TimedAction(at: offlineAt, .goOffline(A)),
                TimedAction(at: 2_000, .goOnline(A)),
            ]
        }
        // Applied at 1050; the ack would arrive at 1100: going offline at 1075 loses it.
        let bad = try F.run(InstantStrategy(), actions(offlineAt: 1_075))
        #expect(bad.violates(.noDuplicateApplication), "\(bad.story)")
        #expect(try F.run(InstantStrategy(), actions(offlineAt: 1_500)).violations.isEmpty)
    }

    @Test func queryOnceOfflineFails() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .queryOnce(A, Query(.todos))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(BrokenInstant(.queryOnceServesCache), actions)
        #expect(bad.violates(.queryOnceOfflineFails), "\(bad.violations)")
        let good = try F.run(InstantStrategy(), actions)
        #expect(good.violations.isEmpty)
        #expect(good.history.told.contains { if case .queryOnceFailedWithResult(_, true, _) = $0.event { return true } else { return false } })
        // The last known result it carries must be one the client knew: an invented value, or a
        // cached root left out, fails the oracle.
        let invented = try F.run(BrokenInstant(.inventLastKnown), actions)
        #expect(invented.violations.contains { $0.invariant == .queryOnceOfflineFails && $0.explanation.contains("never held") }, "\(invented.violations)")
        let dropped = try F.run(BrokenInstant(.dropLastKnownRoots), actions)
        #expect(dropped.violations.contains { $0.invariant == .queryOnceOfflineFails && $0.explanation.contains("without #") }, "\(dropped.violations)")
    }

    @Test func cachedSubscriptionOffline() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .unsubscribe(A, SubscriptionID(1))),
            TimedAction(at: 1_100, .goOffline(A)),
            TimedAction(at: 1_200, .restart(A)),
            TimedAction(at: 1_300, .subscribe(A, SubscriptionID(3), Query(.todos))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(BrokenInstant(.dropCachedYield), actions)
        #expect(bad.violates(.cachedSubscriptionOffline), "\(bad.violations)")
        #expect(try F.run(InstantStrategy(), actions).violations.isEmpty)
    }

    @Test func noReconnectWhileOffline() throws {
        let actions = F.subscribeTodos + [TimedAction(at: 1_000, .goOffline(A)), TimedAction(at: 2_000, .goOnline(A))]
        // The bug also spins (connect, fail at once, connect…): the event bound ends it.
        var o = F.options()
        o.maxEvents = 20_000
        let bad = try F.run(BrokenInstant(.reconnectWhileOffline), actions, options: o)
        #expect(bad.violates(.noReconnectWhileOffline), "\(bad.violations)")
        #expect(bad.violates(.liveness))
        #expect(try F.run(InstantStrategy(), actions).violations.isEmpty)
    }

    /// Seed 000 §3.5: a child post changed offline must re-yield the parent profile subscription.
    @Test func nestedSubscriptionReyields() throws {
        let actions: [TimedAction] = [
            TimedAction(at: 0, .subscribe(A, SubscriptionID(1), Query(.profiles, include: .reverse(.author)))),
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.post, F.set(.content, .string("edited")))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(BrokenInstant(.rootOnlyYields), actions)
        #expect(bad.violates(.nestedSubscriptionReyields), "\(bad.violations)")
        #expect(try F.run(InstantStrategy(), actions).violations.isEmpty)
    }

    @Test func queueCapNoSilentDrop() throws {
        var o = F.options()
        o.queueCap = 2
        let actions = F.subscribeTodos + [TimedAction(at: 1_000, .goOffline(A))]
            + (0..<4).map { TimedAction(at: 1_100 + Int64($0), .update(A, F.todo, F.set(.priority, .int($0)))) }
            + [TimedAction(at: 2_000, .goOnline(A))]
        let bad = try F.run(BrokenInstant(.silentDropAtCap(2)), actions, options: o)
        #expect(bad.violates(.queueCapNoSilentDrop), "\(bad.violations)")
        // instant has no cap: it accepts every write, which is not a silent drop.
        #expect(try F.run(InstantStrategy(), actions, options: o).violations.isEmpty)
    }

    @Test func liveness() throws {
        let actions = [TimedAction(at: 10, .create(A, EntityID(9), .todos, []))]
        var o = F.options()
        o.settleLimitMs = 3_000
        #expect(try F.run(ProbeStrategy(neverSettle: true), actions, options: o).violates(.liveness))
        #expect(!(try F.run(ProbeStrategy(), actions, options: o).violates(.liveness)))
    }

    /// The catalog is covered: every invariant has a test in this suite.
    @Test func everyInvariantHasATestHere() {
        let tested: Set<InvariantID> = [.convergence, .disjointFieldMerge, .lwwConvergence, .noGhostDeletion, .noResurrection,
                                        .typingConvergesToLastKeystroke, .noLostAcknowledgedWrite, .readYourWrites,
                                        .noDuplicateApplication, .queryOnceOfflineFails, .cachedSubscriptionOffline,
                                        .noReconnectWhileOffline, .nestedSubscriptionReyields, .queueCapNoSilentDrop, .liveness,
                                        // In SessionInvariantTests:
                                        .toldOutcomeIsTrue, .noPhantomWrite, .neverRevertOwnWrite, .clientWriteOrder,
                                        .monotonicReads, .timelyFeedback, .linkIntegrity, .noRequestWhileOffline,
                                        // In NoDuplicateRowsTests:
                                        .noDuplicateRows,
                                        // In TenantIsolationTests:
                                        .tenantIsolation]
        #expect(tested == Set(InvariantID.allCases))
    }

    /// `<` reads the precomputed rank, so every way of making a built-in (static member, raw
    /// value, decoding) must carry the rank of its position in `builtIns`.
    @Test func builtInRanksArePositionsInTheCatalog() throws {
        for (i, id) in InvariantID.builtIns.enumerated() {
            #expect(id.rank == i)
            #expect(InvariantID(rawValue: id.rawValue)?.rank == i)
            #expect(InvariantID(builtIn: id.rawValue)?.rank == i)
        }
        #expect(try InvariantID(custom: "mine").rank == .max)
    }
}
