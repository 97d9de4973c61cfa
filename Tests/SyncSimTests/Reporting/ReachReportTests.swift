import Testing
@testable import SyncSim

/// The reach report: each claim with a reach goal shows how many runs reached the situation that
/// tests it, and a claim reached in under 1% of runs is listed as barely tested.
@Suite struct ReachReportTests {
    /// Reports of `reference` (which claims queueCapNoSilentDrop) over the given seeds.
    static func report(seeds: [UInt64], generator: WorkloadGenerator = WorkloadGenerator()) throws -> FuzzReport {
        var records: [RunRecord] = []
        for seed in seeds {
            let s = generator.generate(seed: seed)
            records.append(RunRecord(try Simulator.run(ReferenceStrategy(), s, seed: seed), schedule: s))
        }
        return FuzzReport.build(
            strategies: [FuzzReport.StrategyDescription(ReferenceStrategy().info)],
            options: .init(strategies: ["reference"], seeds: "test", shard: nil, swarm: generator.config.swarm, clients: nil,
                           actions: generator.config.actions, shrink: false),
            complete: true, records: records, failures: [],
            timing: .init(startedAt: "", wallSeconds: 0, runsPerSecond: 0, shrinkSeconds: 0))
    }

    static func cell(_ r: FuzzReport, _ inv: String) -> FuzzReport.Cell? {
        r.strategies[0].cells.first { $0.invariant == inv }
    }

    /// Without swarm no seed draws a small cap, so no queue fills: the claim held untested, and
    /// the report says so (in the cell, the list and both renderings).
    @Test func aClaimWhoseSituationIsNeverReachedIsFlagged() throws {
        let r = try Self.report(seeds: Array(0..<20), generator: WorkloadGenerator(.init(swarm: false)))
        let c = try #require(Self.cell(r, "queueCapNoSilentDrop"))
        #expect(c.claimed && c.violations == 0)
        #expect(c.reachSituation == Situation.queueFull.rawValue)
        #expect(c.reachedRuns == 0)
        #expect(r.barelyReachedClaims.contains("reference · queueCapNoSilentDrop"))
        #expect(MarkdownReport.render(r).contains("**Claims barely tested**"))
        #expect(HTMLReport.render(r).contains("Claims barely tested"))
    }

    /// With the default generator a share of seeds fills the queue, and the claim is not flagged.
    @Test func aReachedClaimIsNotFlagged() throws {
        let r = try Self.report(seeds: Array(0..<40))
        let c = try #require(Self.cell(r, "queueCapNoSilentDrop"))
        #expect((c.reachedRuns ?? 0) > 0)
        #expect(!r.barelyReachedClaims.contains("reference · queueCapNoSilentDrop"))
        #expect(MarkdownReport.render(r).contains("## Reach"))
    }

    /// Invariants without a reach goal (every run tests them) carry none, rather than a made-up count.
    @Test func invariantsWithoutAGoalCarryNone() throws {
        let r = try Self.report(seeds: [0])
        let c = try #require(Self.cell(r, "convergence"))
        #expect(c.reachSituation == nil && c.reachedRuns == nil)
        #expect(!c.isBarelyReached(runs: 1))
    }
}
