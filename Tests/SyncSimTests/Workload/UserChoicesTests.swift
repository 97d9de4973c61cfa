import Testing
@testable import SyncSim

/// `WorkloadGenerator.Config.userChoices`: off, schedules are what they always were; on, the
/// same actions plus "drop oldest" taps, and some seeds answer prompts with `merge`.
@Suite struct UserChoicesTests {
    @Test func offByDefaultAndOnlyAddsTheChoices() {
        var on = WorkloadGenerator.Config(actions: 30)
        on.userChoices = true
        let plain = WorkloadGenerator(.init(actions: 30))
        let with = WorkloadGenerator(on)
        var merges = 0, taps = 0
        for seed in UInt64(0)..<24 {
            let a = plain.generate(seed: seed), b = with.generate(seed: seed)
            #expect(a.options.conflictPolicy != .merge)
            let drops = b.actions.filter { if case .dropOldestWrite = $0.action { return true } else { return false } }
            #expect((1...2).contains(drops.count))
            taps += drops.count
            // Every other action is the default schedule's, in order.
            let rest = b.actions.filter { if case .dropOldestWrite = $0.action { return false } else { return true } }
            #expect(rest == a.actions)
            var o = b.options
            if o.conflictPolicy == .merge { merges += 1; o.conflictPolicy = a.options.conflictPolicy }
            #expect(o == a.options)
            #expect(zip(b.actions, b.actions.dropFirst()).allSatisfy { $0.at <= $1.at })
        }
        #expect(merges > 0 && merges < 24)
        #expect(taps >= 24)
    }

    /// Runs with the choices drawn meet every contract of the strategies that have them.
    @Test func drawnChoicesKeepContracts() throws {
        var config = WorkloadGenerator.Config(actions: 30)
        config.userChoices = true
        for name in ["conflictPrompt", "pushPull", "instant"] {
            let s = AnyStrategy.builtIns.first { $0.name == name }!
            for seed in UInt64(0)..<6 {
                let run = try s.run(s.schedule(seed: seed, config), seed: seed)
                let claimed = run.violations.filter { s.info.contract.contains($0.invariant) }
                #expect(claimed.isEmpty, "\(name) seed \(seed): \(claimed)")
            }
        }
    }
}
