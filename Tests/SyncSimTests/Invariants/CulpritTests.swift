import Testing
@testable import SyncSim

/// Culprits (`Violation.culprit`: origin and kind of what did it) for the invariants one
/// offending transaction or write breaks, and that the real shrinker, running the real
/// simulator, keeps them: the shrunk schedule fails for the same reason.
@Suite struct CulpritTests {
    typealias F = Fixture
    let A = Fixture.A, B = Fixture.B

    /// Runs `actions`, returns the first violation of `invariant`, and shrinks the schedule
    /// keeping its culprit; returns (original, shrunk) violations.
    func failAndShrink<S: SyncStrategy>(_ s: S, _ invariant: InvariantID, _ actions: [TimedAction],
                                        options: SimulationOptions = F.options()) throws -> (Violation, Violation) {
        let schedule = Schedule(options: options, initial: F.initial, actions: actions)
        let first = try Simulator.run(s, schedule, seed: 1, trace: .hashOnly).violations.first { $0.invariant == invariant }
        let original = try #require(first, "no \(invariant)")
        var shrinker = Shrinker(invariant: invariant, run: { try? Simulator.run(s, $0, seed: 1, trace: .hashOnly).violations })
        shrinker.maxRuns = 120
        let shrunk = shrinker.shrink(schedule)
        let out = try #require(shrunk)
        return (original, out.violation)
    }

    @Test func lwwConvergenceNamesTheOverwritingStep() throws {
        var o = F.options()
        o.clockSkewMs = [-5_000, 0]
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("older")))),
            TimedAction(at: 1_500, .update(B, F.todo, F.set(.done, .bool(true)))),
            TimedAction(at: 2_000, .update(B, F.todo, F.set(.title, .string("newer")))),
            TimedAction(at: 4_000, .goOnline(A)),
        ]
        let (v, shrunk) = try failAndShrink(StampBlindPushPull(), .lwwConvergence, actions, options: o)
        #expect(v.culprit == "client update", "\(v)")
        #expect(shrunk.culprit == v.culprit, "\(shrunk)")
    }

    @Test func toldOutcomeIsTrueNamesWhatTheUserWasTold() throws {
        let actions = [TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("x")))),
                       TimedAction(at: 1_500, .update(B, F.todo, F.set(.done, .bool(true))))]
        let (early, earlyShrunk) = try failAndShrink(LazyQueueStrategy(confirmAtOnce: true), .toldOutcomeIsTrue, actions)
        #expect(early.culprit == "client update told confirmed, not applied", "\(early)")
        #expect(earlyShrunk.culprit == early.culprit)
        let (limbo, limboShrunk) = try failAndShrink(LazyQueueStrategy(rejectButSend: true), .toldOutcomeIsTrue, actions)
        #expect(limbo.culprit?.hasPrefix("client update told ") == true && limbo.culprit?.hasSuffix(", applied") == true, "\(limbo)")
        #expect(limboShrunk.culprit == limbo.culprit)
    }

    @Test func neverRevertOwnWriteNamesTheRevertedWrite() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("offline")))),
            TimedAction(at: 1_200, .update(B, F.todo, F.set(.priority, .int(3)))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let (v, shrunk) = try failAndShrink(ViewBugInstant(.serverViewAfterReconnect), .neverRevertOwnWrite, actions)
        #expect(v.culprit == "client update reverted", "\(v)")
        #expect(shrunk.culprit == v.culprit)
    }

    @Test func noLostAcknowledgedWriteSaysHowItWasLost() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("queued")))),
            TimedAction(at: 1_150, .update(B, F.todo, F.set(.done, .bool(true)))),
            TimedAction(at: 1_200, .restart(A)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let (v, shrunk) = try failAndShrink(InstantStrategy(), .noLostAcknowledgedWrite, actions, options: F.options(persistence: false))
        #expect(v.culprit == "client update lost at restart", "\(v)")
        #expect(shrunk.culprit == v.culprit)
    }

    @Test func noDuplicateApplicationNamesTheReapplyingTransaction() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("once")))),
            TimedAction(at: 1_020, .update(B, F.todo, F.set(.done, .bool(true)))),
            TimedAction(at: 1_075, .goOffline(A)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let (v, shrunk) = try failAndShrink(InstantStrategy(), .noDuplicateApplication, actions)
        #expect(v.culprit == "client update applied again", "\(v)")
        #expect(shrunk.culprit == v.culprit)
    }
}
