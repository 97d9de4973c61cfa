import Foundation
import Testing
import SyncSim

/// Generated schedules with bulk creates and small `pushPull` batches and pages
/// (`WorkloadGenerator.Config.bulk`): no strategy breaks its contract — the new oracle raises
/// no false alarm, and batches and pages lose and double nothing. `swift test` runs a few seeds
/// of `pushPull` and `reference`; `SYNCSIM_BULK_SEEDS=300 swift test --filter BulkSweepTests`
/// runs every built-in on that many seeds and prints what each violated without claiming it.
@Suite struct BulkSweepTests {
    @Test func bulkSchedulesKeepEveryContract() throws {
        let env = ProcessInfo.processInfo.environment["SYNCSIM_BULK_SEEDS"].flatMap(Int.init)
        let seeds = UInt64(env ?? 8)
        let strategies = env == nil ? AnyStrategy.builtIns.filter { ["pushPull", "reference"].contains($0.name) } : AnyStrategy.builtIns
        var config = WorkloadGenerator.Config()
        config.bulk = true
        for s in strategies {
            var unclaimed: [InvariantID: Int] = [:]
            var bulks = 0
            for seed in 0..<seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                bulks += schedule.actions.filter { $0.action.kind == .bulkCreate }.count
                let r = try s.run(schedule, seed: seed)
                let broken = r.violations.filter { s.info.contract.contains($0.invariant) }
                #expect(broken.isEmpty, "\(s.name) seed \(seed): \(broken.map(\.description))")
                for i in Set(r.violations.map(\.invariant)) where !s.info.contract.contains(i) { unclaimed[i, default: 0] += 1 }
            }
            #expect(bulks >= Int(seeds))
            if env != nil {
                print("bulk sweep \(s.name) seeds 0..<\(seeds): \(bulks) bulk creates; not claimed: " +
                      unclaimed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
        }
    }
}
