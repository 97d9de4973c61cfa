import Testing
@testable import SyncSim

/// `lwwConvergence` widened to links (and `disjointFieldMerge` for links re-asserted by a
/// whole-entity save), and HLC causality: each fails on a small broken strategy built through
/// public API (`StampQueueStrategy`) and holds without the bug (and on `reference`).
@Suite struct LinkAndCausalityTests {
    typealias F = Fixture
    let A = Fixture.A, B = Fixture.B
    let other = EntityID(4)

    /// profile#4 exists from the start, next to the fixture's profile#2 (post#3's author).
    var initial: [InitialEntity] {
        F.initial + [InitialEntity(entity: other, namespace: .profiles, values: [FieldAssignment(.name, .string("Bo"))])]
    }

    /// A, offline, links post#3 to profile#4 early; B links it back to profile#2 much later;
    /// A's old link reaches the server last.
    var lateOldLink: [TimedAction] {
        [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .link(A, F.post, .author, other)),
            TimedAction(at: 20_000, .link(B, F.post, .author, F.profile)),
            TimedAction(at: 30_000, .goOnline(A)),
        ]
    }

    @Test func linkLastWriterWins() throws {
        let bad = try F.run(StampQueueStrategy(linksByArrival: true), lateOldLink, initial: initial)
        #expect(bad.violates(.lwwConvergence), "\(bad.violations)")
        #expect(bad.server[F.post]?[LinkID.author] == other)
        let good = try F.run(StampQueueStrategy(), lateOldLink, initial: initial)
        #expect(good.violations.isEmpty, "\(good.violations)")
        #expect(good.server[F.post]?[LinkID.author] == F.profile)
        let reference = try F.run(ReferenceStrategy(), lateOldLink, initial: initial)
        #expect(reference.violations.isEmpty, "\(reference.violations)")
    }

    /// A saved the whole post (with the author it last heard of) after B re-linked it.
    @Test func staleLinkInAWholeEntitySaveIsADisjointMergeFailure() throws {
        let actions = [
            TimedAction(at: 500, .update(A, F.todo, F.set(.title, .string("one")))),
            TimedAction(at: 1_000, .link(B, F.post, .author, other)),
            TimedAction(at: 2_000, .update(A, F.todo, F.set(.title, .string("two")))),
        ]
        let bad = try F.run(StampQueueStrategy(saveWholeEntity: true), actions, initial: initial)
        #expect(bad.violates(.disjointFieldMerge), "\(bad.violations)")
        #expect(!bad.violates(.lwwConvergence), "\(bad.violations)")
        let good = try F.run(StampQueueStrategy(), actions, initial: initial)
        #expect(good.violations.isEmpty, "\(good.violations)")
    }

    /// Unlinks are judged too: a newer unlink may leave the link empty, an older one may not.
    @Test func unlinkCompetesWithLinks() throws {
        let actions = [
            TimedAction(at: 1_000, .link(A, F.post, .author, other)),
            TimedAction(at: 2_000, .unlink(B, F.post, .author, other)),
        ]
        let good = try F.run(StampQueueStrategy(), actions, initial: initial)
        #expect(good.server[F.post]?[LinkID.author] == nil)
        #expect(good.violations.isEmpty, "\(good.violations)")
        let reference = try F.run(ReferenceStrategy(), actions, initial: initial)
        #expect(reference.violations.isEmpty, "\(reference.violations)")
    }

    /// A's clock runs 5 s ahead. The back office edits the todo after the server applied A's
    /// edit: under an HLC the admin edit must win, although A's stamp is later than the
    /// server's clock. The skew bound alone (admin made 1 s later, 5 s of skew) cannot tell.
    @Test func hlcAdminWriteAfterAnAppliedWriteWins() throws {
        var o = F.options()
        o.clockSkewMs = [5_000, 0]
        let actions = [
            TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("from A")))),
            TimedAction(at: 2_000, .serverUpdate(F.todo, F.set(.title, .string("admin")))),
        ]
        let bad = try F.run(StampQueueStrategy(causal: false), actions, options: o)
        #expect(bad.server[F.todo]?[.title] == .string("from A"))
        #expect(bad.violates(.lwwConvergence), "\(bad.violations)")
        let good = try F.run(StampQueueStrategy(), actions, options: o)
        #expect(good.server[F.todo]?[.title] == .string("admin"))
        #expect(good.violations.isEmpty, "\(good.violations)")
        let reference = try F.run(ReferenceStrategy(), F.subscribeTodos + actions, options: o)
        #expect(reference.violations.isEmpty, "\(reference.violations)")
        // Made before the server applied A's edit, the admin edit is concurrent with it: either may win.
        let early = [actions[0], TimedAction(at: 1_010, .serverUpdate(F.todo, F.set(.title, .string("admin"))))]
        let concurrent = try F.run(StampQueueStrategy(causal: false), early, options: o)
        #expect(!concurrent.violates(.lwwConvergence), "\(concurrent.violations)")
    }

    /// B (clock 5 s behind) was shown A's edit, then edited the same field: B's edit must win.
    @Test func hlcWriteAfterSeeingAnotherWins() throws {
        var o = F.options()
        o.clockSkewMs = [0, -5_000]
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("from A")))),
            TimedAction(at: 3_000, .update(B, F.todo, F.set(.title, .string("from B")))),
        ]
        let reference = try F.run(ReferenceStrategy(), actions, options: o)
        #expect(reference.server[F.todo]?[.title] == .string("from B"))
        #expect(reference.violations.isEmpty, "\(reference.violations)")
        let good = try F.run(StampQueueStrategy(), actions, options: o)
        #expect(good.server[F.todo]?[.title] == .string("from B"))
        #expect(good.violations.isEmpty, "\(good.violations)")
        // Stamping with bare device clocks lets A's edit win: a violation now (B's edit, made
        // 2 s later on a clock 5 s behind, is within the skew bound).
        let bare = try F.run(StampQueueStrategy(causal: false), actions, options: o)
        #expect(bare.server[F.todo]?[.title] == .string("from A"))
        #expect(bare.violates(.lwwConvergence), "\(bare.violations)")
    }
}

/// Item 9's widenings of older oracles, each failing on a broken `instant` and holding on it.
@Suite struct AuditedGapTests {
    typealias F = Fixture
    let A = Fixture.A, B = Fixture.B

    @Test func nestedSubscriptionReyieldsOnLinks() throws {
        let initial = F.initial + [InitialEntity(entity: EntityID(4), namespace: .profiles, values: [FieldAssignment(.name, .string("Bo"))])]
        let actions = [
            TimedAction(at: 0, .subscribe(A, SubscriptionID(1), Query(.profiles, include: .reverse(.author)))),
            TimedAction(at: 1_000, .link(A, F.post, .author, EntityID(4))),
        ]
        let bad = try F.run(ViewBugInstant(.noYieldOnLink), actions, initial: initial)
        #expect(bad.violates(.nestedSubscriptionReyields), "\(bad.violations)")
        let good = try F.run(InstantStrategy(), actions, initial: initial)
        #expect(good.violations.isEmpty, "\(good.violations)")
    }

    @Test func queryOnceNeverPresentsALocalResultAsFreshWhenTheServerIsUnreachable() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .serverUnreachable(A)),
            TimedAction(at: 1_100, .queryOnce(A, Query(.todos))),
            TimedAction(at: 5_000, .serverReachable(A)),
        ]
        let bad = try F.run(ViewBugInstant(.queryOnceFromLocal), actions)
        #expect(bad.violates(.queryOnceOfflineFails), "\(bad.violations)")
        let good = try F.run(InstantStrategy(), actions)
        #expect(!good.violates(.queryOnceOfflineFails), "\(good.violations)")
        let reference = try F.run(ReferenceStrategy(), actions)
        #expect(reference.violations.isEmpty, "\(reference.violations)")
    }

    @Test func cachedSubscriptionOfflineAtRelaunch() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .restart(A)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(ViewBugInstant(.noCacheAfterRelaunch), actions)
        #expect(bad.violates(.cachedSubscriptionOffline), "\(bad.violations)")
        let good = try F.run(InstantStrategy(), actions)
        #expect(good.violations.isEmpty, "\(good.violations)")
        let reference = try F.run(ReferenceStrategy(), actions)
        #expect(reference.violations.isEmpty, "\(reference.violations)")
    }
}
