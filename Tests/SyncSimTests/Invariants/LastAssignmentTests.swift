import Testing
@testable import SyncSim

/// `LastAssignment` answers `finishFieldOrder`'s question about a wrong register by reading the
/// log backwards, and past a few questions from a table built in one pass: on real runs of
/// every built-in (sharedDiff's whole-collection saves included), both must give the same
/// transaction and the same "targeted" for every register of the final data, assigned or not.
@Suite struct LastAssignmentTests {
    static func compare<S: SyncStrategy>(_ strategy: S, seeds: ClosedRange<Int>) throws -> (registers: Int, assigned: Int, targeted: Int, untargeted: Int) {
        var registers = 0, assigned = 0, targeted = 0, untargeted = 0
        for seed in seeds {
            let schedule = WorkloadGenerator(.init(actions: 200, swarm: true)).generate(seed: UInt64(seed))
            var sim = try Simulator(strategy: strategy, schedule: schedule, seed: 1)
            _ = sim.run()
            let h = sim.history
            let schema = schedule.schema
            let table = LastAssignment.tabulate(h, stride: schema.fieldCount)
            let data = sim.serverData
            for i in data.records.indices {
                guard let ns = data.records[i]?.namespace else { continue }
                let e = EntityID(UInt32(i))
                for f in schema.fields(of: ns) {
                    let scanned = LastAssignment.scan(e, f, in: h)
                    let tabulated = table[Monitor.key(e, f)]
                    #expect(scanned == tabulated, "seed \(seed) \(e) \(f.name)")
                    registers += 1
                    if scanned.tx >= 0 { assigned += 1; if scanned.targeted { targeted += 1 } else { untargeted += 1 } }
                }
            }
        }
        return (registers, assigned, targeted, untargeted)
    }

    @Test func backwardsReadingAgreesWithTheTable() throws {
        var totals = (registers: 0, assigned: 0, targeted: 0, untargeted: 0)
        for r in [try Self.compare(InstantStrategy(), seeds: 1...3),
                  try Self.compare(SharedDiffStrategy(), seeds: 1...3),
                  try Self.compare(ConflictPromptStrategy(), seeds: 1...2),
                  try Self.compare(PushPullStrategy(), seeds: 1...2),
                  try Self.compare(ReferenceStrategy(), seeds: 1...2)] {
            totals.registers += r.registers; totals.assigned += r.assigned
            totals.targeted += r.targeted; totals.untargeted += r.untargeted
        }
        // Every kind of answer occurred (never assigned, targeted, overwritten by another field's write).
        #expect(totals.assigned > 0 && totals.assigned < totals.registers, "\(totals)")
        #expect(totals.targeted > 0 && totals.untargeted > 0, "\(totals)")
    }

    @Test func answersTheSameBeforeAndAfterTheTableIsBuilt() throws {
        let schedule = WorkloadGenerator(.init(actions: 200, swarm: true)).generate(seed: 2)
        var sim = try Simulator(strategy: SharedDiffStrategy(), schedule: schedule, seed: 1)
        _ = sim.run()
        let h = sim.history
        let data = sim.serverData
        var asked: [(EntityID, FieldID)] = []
        for i in data.records.indices {
            guard let ns = data.records[i]?.namespace else { continue }
            for f in schedule.schema.fields(of: ns) { asked.append((EntityID(UInt32(i)), f)) }
        }
        #expect(asked.count > LastAssignment.questionsBeforeTable * 2)
        var lazy = LastAssignment(stride: schedule.schema.fieldCount)
        for (e, f) in asked {
            let got = lazy.of(e, f, in: h)
            #expect(got == LastAssignment.scan(e, f, in: h), "\(e) \(f.name)")
        }
    }
}
