import Testing
@testable import SyncSim

/// `AnyStrategy` runs and shrinks on the concrete type: the same results as `Simulator.run`,
/// and a deadline stops shrinking with a failure that still reproduces.
@Suite struct AnyStrategyTests {
    @Test func runsExactlyLikeTheConcreteSimulator() throws {
        for (erased, seed) in zip(AnyStrategy.builtIns, [UInt64(3), 5, 7, 11, 13, 17]) {
            let s = WorkloadGenerator().generate(seed: seed)
            let a = try erased.run(s, seed: seed)
            let b = try simulate(erased.base, s, seed: seed)
            #expect(a.traceHash == b.traceHash && a.strategy == erased.name)
        }
        let s = WorkloadGenerator().generate(seed: 1)
        #expect(try AnyStrategy(InstantStrategy()).run(s, seed: 1).traceHash == Simulator.run(InstantStrategy(), s, seed: 1).traceHash)
        // A user strategy takes the same path.
        let probe = AnyStrategy(ProbeStrategy())
        #expect(try probe.run(s, seed: 1).traceHash == Simulator.run(ProbeStrategy(), s, seed: 1).traceHash)
        #expect(AnyStrategy(erasing: ProbeStrategy() as any SyncStrategy).name == "probe")
    }

    @Test func builtInsInTheirOrder() {
        #expect(AnyStrategy.builtIns.map(\.name) == ["instant", "fullEntity", "sharedDiff", "conflictPrompt", "pushPull", "reference"])
        #expect(StrategyRegistry.names == AnyStrategy.builtIns.map(\.name))
    }

    @Test func shrinksLikeTheShrinker() {
        let s = WorkloadGenerator().generate(seed: 0)
        let erased = AnyStrategy(SharedDiffStrategy())
        var direct = Shrinker(strategy: SharedDiffStrategy(), seed: 0, invariant: .noGhostDeletion)
        let a = erased.shrink(s, seed: 0, invariant: .noGhostDeletion)
        let b = direct.shrink(s)
        #expect(a != nil && a?.schedule == b?.schedule && a?.runs == b?.runs)
    }

    /// Stopped after 5 runs: a shorter schedule that still fails, found within those runs.
    @Test func aStopReturnsTheShortestFailureSoFar() throws {
        let s = WorkloadGenerator().generate(seed: 0)
        let erased = AnyStrategy(SharedDiffStrategy())
        let budget = Ticks()
        let stopped = erased.shrink(s, seed: 0, invariant: .noGhostDeletion, shouldStop: { budget.next() >= 5 })
        let out = try #require(stopped)
        #expect(out.runs <= 6)
        #expect(out.schedule.actions.count < s.actions.count)
        let replay = try erased.run(out.schedule, seed: 0)
        #expect(replay.violations.contains { $0.invariant == .noGhostDeletion })
        // Stopped before the first run: nothing to return.
        #expect(erased.shrink(s, seed: 0, invariant: .noGhostDeletion, shouldStop: { true }) == nil)
    }
}
