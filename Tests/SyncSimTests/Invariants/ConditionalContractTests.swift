import Foundation
import Testing
@testable import SyncSim

/// Conditional contracts: an invariant claimed only when the run's options satisfy a condition
/// is a contract failure in such a run and an expected violation in any other.
@Suite struct ConditionalContractTests {
    typealias F = Fixture
    let A = Fixture.A

    /// A queued offline write, then a crash and relaunch before going online.
    var restartWithQueue: [TimedAction] {
        [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("queued")))),
            TimedAction(at: 1_200, .restart(A)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
    }

    @Test func instantClaimsDurabilityOnlyWithPersistenceOn() {
        let info = InstantStrategy().info
        #expect(!info.contract.contains(.noLostAcknowledgedWrite))
        #expect(info.claims(.noLostAcknowledgedWrite, under: F.options(persistence: true)))
        #expect(!info.claims(.noLostAcknowledgedWrite, under: F.options(persistence: false)))
        #expect(info.claims(.convergence, under: F.options(persistence: false)))
        #expect(ReferenceStrategy().info.conditionalContract.isEmpty)
    }

    /// Judged by a report: the same lost write is a contract failure with persistence on and an
    /// expected violation with it off.
    @Test func aViolationBreaksTheContractOnlyWhereTheConditionHeld() throws {
        let desc = FuzzReport.StrategyDescription(
            name: "lazyQueue", summary: "", knownBad: false, arbitration: "serverArrival", contract: ["convergence"],
            conditional: [.init(invariant: "noLostAcknowledgedWrite", condition: ContractCondition.persistenceOn.rawValue,
                                text: ContractCondition.persistenceOn.description)])
        func report(persistence: Bool) throws -> FuzzReport {
            let schedule = Schedule(options: F.options(persistence: persistence), initial: F.initial, actions: restartWithQueue)
            let r = try Simulator.run(LazyQueueStrategy(forgetOnRestart: true), schedule, seed: 1)
            #expect(r.violates(.noLostAcknowledgedWrite), "\(r.violations)")
            return FuzzReport.build(strategies: [desc], options: .init(strategies: [], seeds: "1", shard: nil, swarm: false, clients: nil, actions: 4, shrink: false),
                                    complete: true, records: [RunRecord(r, schedule: schedule)], failures: [],
                                    timing: .init(startedAt: "", wallSeconds: 0, runsPerSecond: 0, shrinkSeconds: 0))
        }
        let on = try report(persistence: true)
        #expect(on.strategies[0].contractViolations == ["noLostAcknowledgedWrite"])
        #expect(!on.allContractsMet)
        let cell = try #require(on.strategies[0].cells.first { $0.invariant == "noLostAcknowledgedWrite" })
        #expect(!cell.claimed && cell.condition == "when persistence is on" && cell.violationsUnderCondition == 1)
        #expect(MarkdownReport.render(on).contains("claimed when persistence is on: 1 violating"))
        #expect(JUnitReport.render(on).contains("type=\"contractViolation\""))

        let off = try report(persistence: false)
        #expect(off.strategies[0].contractViolations.isEmpty)
        #expect(off.allContractsMet)
        #expect(off.strategies[0].cells.first { $0.invariant == "noLostAcknowledgedWrite" }?.violationsUnderCondition == 0)
        #expect(!JUnitReport.render(off).contains("type=\"contractViolation\""))
    }

    /// A report written before conditional claims existed reads the same, and one with them
    /// round-trips.
    @Test func descriptionsCodeConditionalClaimsOnlyWhenThereAreSome() throws {
        let plain = FuzzReport.StrategyDescription(ReferenceStrategy().info)
        let json = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!json.contains("conditional"))
        let instant = FuzzReport.StrategyDescription(InstantStrategy().info)
        let back = try JSONDecoder().decode(FuzzReport.StrategyDescription.self, from: try JSONEncoder().encode(instant))
        #expect(back == instant && back.conditional.map(\.invariant) == ["noLostAcknowledgedWrite"])
    }
}
