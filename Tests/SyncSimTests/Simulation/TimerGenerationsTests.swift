import Testing
@testable import SyncSim

/// The simulator's table of armed timers (`TimerGenerations`): it must answer what the
/// dictionary it replaced answered, for any timer ids (few or many armed at once, ids that
/// collide in the table, counters and high-bit tags) and any generation (0 included, which a
/// wrapped counter can give), through growth, probe runs and deletions that shift them back.
@Suite struct TimerGenerationsTests {
    @Test func readsBackWhatADictionaryWould() {
        var t = TimerGenerations()
        var d: [TimerID: UInt32] = [:]
        // Counters, high-bit tags, and multiples of the table sizes (which share home slots).
        let ids: [UInt32] = Array(0..<40) + [1000, 0x8000_0001, UInt32.max] + (1..<24).map { UInt32($0) << 16 } + (1..<12).map { UInt32($0) << 27 }
        // A fixed pseudo-random walk of sets, cancels and reads (no randomness at run time).
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for step in 0..<2_000 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let id = TimerID(ids[Int(x >> 33) % ids.count])
            switch (x >> 20) % 3 {
            case 0:
                let gen = UInt32(truncatingIfNeeded: step % 5 == 0 ? 0 : x >> 40)
                t[id] = gen
                d[id] = gen
            case 1:
                t[id] = nil
                d[id] = nil
            default:
                break
            }
            for i in ids { #expect(t[TimerID(i)] == d[TimerID(i)], "timer \(i) at step \(step)") }
            if step % 500 == 499 {
                t.removeAll()
                d = [:]
                for i in ids { #expect(t[TimerID(i)] == nil) }
            }
        }
    }

    @Test func cancellingAnUnarmedTimerLeavesTheTableEmpty() {
        var t = TimerGenerations()
        t[TimerID(40)] = nil
        #expect(t.slots.isEmpty && t.isEmpty, "nothing grows for a cancel")
        #expect(t[TimerID(40)] == nil)
        t[TimerID(2)] = 0
        #expect(t[TimerID(2)] == 0, "generation 0 is armed, not absent")
    }
}
