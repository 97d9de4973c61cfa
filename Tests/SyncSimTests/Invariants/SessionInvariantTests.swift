import Testing
@testable import SyncSim

/// The session and view oracles (`toldOutcomeIsTrue`, `noPhantomWrite`, `neverRevertOwnWrite`,
/// `clientWriteOrder`, `monotonicReads`, `timelyFeedback`, `linkIntegrity`,
/// `noRequestWhileOffline`): each shown failing on a small deliberately broken strategy built
/// through public API (`SessionBugStrategies.swift`, `BrokenInstant`) and holding without the bug.
@Suite struct SessionInvariantTests {
    typealias F = Fixture
    let A = Fixture.A, B = Fixture.B

    /// A offline writes the title, comes back at 2 s.
    var offlineTitle: [TimedAction] {
        F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("offline")))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
    }

    @Test func toldOutcomeIsTrue() throws {
        let actions = [TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("x"))))]
        let early = try F.run(LazyQueueStrategy(confirmAtOnce: true), actions)
        #expect(early.violates(.toldOutcomeIsTrue), "\(early.violations)")
        let limbo = try F.run(LazyQueueStrategy(rejectButSend: true), actions)
        #expect(limbo.violates(.toldOutcomeIsTrue), "\(limbo.violations)")
        #expect(limbo.server[F.todo]?[.title] == .string("x"))   // told failed, yet applied
        let good = try F.run(LazyQueueStrategy(), actions)
        #expect(good.violations.isEmpty, "\(good.violations)")
        // instant confirms only on transact-ok, after the server applied the write.
        let instant = try F.run(InstantStrategy(), F.subscribeTodos + actions)
        #expect(instant.violations.isEmpty, "\(instant.violations)")
        #expect(instant.history.told.contains { if case .writeConfirmed = $0.event { return true } else { return false } })
    }

    @Test func noPhantomWrite() throws {
        let bad = try F.run(ViewBugInstant(.rejectButKeep), offlineTitle)
        #expect(bad.violates(.noPhantomWrite), "\(bad.violations)")
        // instant: an edit of an entity deleted meanwhile is rejected and disappears from the view.
        let race = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("edit")))),
            TimedAction(at: 1_200, .delete(B, F.todo)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let good = try F.run(InstantStrategy(), race)
        #expect(good.history.rejectedWrites.count == 1)
        #expect(!good.violates(.noPhantomWrite), "\(good.violations)")
    }

    /// The reconnect's fresh server result arrives before the ack: it must not hide the pending
    /// write. readYourWrites (checked only at the write) cannot see this.
    @Test func neverRevertOwnWrite() throws {
        let bad = try F.run(ViewBugInstant(.serverViewAfterReconnect), offlineTitle)
        #expect(bad.violates(.neverRevertOwnWrite), "\(bad.violations)")
        #expect(!bad.violates(.readYourWrites))
        let good = try F.run(InstantStrategy(), offlineTitle)
        #expect(good.violations.isEmpty, "\(good.violations)")
        // A relaunch with persistence on: the first yield already shows the pending write.
        let relaunch = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("offline")))),
            TimedAction(at: 1_200, .restart(A)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let r = try F.run(InstantStrategy(), relaunch)
        #expect(r.violations.isEmpty, "\(r.violations)")
    }

    @Test func clientWriteOrder() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("first")))),
            TimedAction(at: 1_200, .update(A, F.profile, F.set(.name, .string("second")))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(BrokenInstant(.reverseReplay), actions)
        #expect(bad.violates(.clientWriteOrder), "\(bad.violations)")
        let noViews = Array(actions.dropFirst(F.subscribeTodos.count))   // the lazy queue has no views
        let lazy = try F.run(LazyQueueStrategy(flushNewestFirst: true), noViews)
        #expect(lazy.violates(.clientWriteOrder), "\(lazy.violations)")
        #expect(try F.run(InstantStrategy(), actions).violations.isEmpty)
        let lazyGood = try F.run(LazyQueueStrategy(), noViews)
        #expect(lazyGood.violations.isEmpty, "\(lazyGood.violations)")
    }

    /// B's edit reaches A; A's client then shows an older snapshot.
    @Test func monotonicReads() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .update(B, F.todo, F.set(.title, .string("b")))),
            TimedAction(at: 2_000, .goOffline(A)),
            TimedAction(at: 3_000, .goOnline(A)),
        ]
        let bad = try F.run(ViewBugInstant(.firstResultWhenOffline), actions)
        #expect(bad.violates(.monotonicReads), "\(bad.violations)")
        let good = try F.run(InstantStrategy(), actions)
        #expect(good.violations.isEmpty, "\(good.violations)")
    }

    @Test func timelyFeedback() throws {
        let actions = [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("late")))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(LazyQueueStrategy(flushDelayMs: 30_000), actions)
        #expect(bad.violates(.timelyFeedback), "\(bad.violations)")
        #expect(bad.settled && !bad.violates(.liveness))   // it did settle, just late
        let good = try F.run(LazyQueueStrategy(flushDelayMs: 100), actions)
        #expect(good.violations.isEmpty, "\(good.violations)")
    }

    /// A offline re-links the post to its author while B deletes the author. A server that sets
    /// the replayed link blindly leaves it dangling; instant's server refuses a link to a missing
    /// target and reference refuses a link to a tombstone, and both tell A.
    @Test func linkIntegrity() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .link(A, F.post, .author, F.profile)),
            TimedAction(at: 1_200, .delete(B, F.profile)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(LazyQueueStrategy(blindLinks: true), actions)
        #expect(bad.violates(.linkIntegrity), "\(bad.violations)")
        for good in [try F.run(ReferenceStrategy(), actions), try F.run(InstantStrategy(), actions)] {
            #expect(!good.violates(.linkIntegrity), "\(good.violations)")
            #expect(good.history.rejectedWrites.count == 1)
        }
    }

    /// A's delete is still queued offline when B's update is wrongly applied as a delete: that
    /// delete carries no intent to delete, so it is a ghost, though someone else asked for one.
    @Test func noGhostDeletionAttributesEachDeleteToItsTransaction() throws {
        let actions = [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .delete(A, F.todo)),
            TimedAction(at: 1_200, .update(B, F.todo, F.set(.title, .string("b")))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(LazyQueueStrategy(updateAsDelete: true), actions)
        #expect(bad.violates(.noGhostDeletion), "\(bad.violations)")
        let good = try F.run(LazyQueueStrategy(), actions)
        #expect(good.violations.isEmpty, "\(good.violations)")
        #expect(good.server[F.todo] == nil)   // A's own delete, carried by its own transaction
    }

    @Test func noRequestWhileOffline() throws {
        let actions = [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("x")))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let bad = try F.run(LazyQueueStrategy(sendWhileOffline: true), actions)
        #expect(bad.violates(.noRequestWhileOffline), "\(bad.violations)")
        #expect(!bad.violates(.noReconnectWhileOffline))   // a datagram client never connects
        #expect(try F.run(LazyQueueStrategy(), actions).violations.isEmpty)
        #expect(try F.run(ReferenceStrategy(), F.subscribeTodos + actions).violations.isEmpty)
    }
}
