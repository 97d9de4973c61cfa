import Testing
@testable import SyncSim

/// `ScheduleSteps` orders a schedule's steps as the event queue did when every step was pushed
/// into it first: by time, ties in list order. Checked against a stable sort made from scratch,
/// on lists in order, reversed, with runs out of order (typing bursts), with many ties, and on
/// generated schedules.
@Suite struct ScheduleStepsTests {
    static func entries(_ times: [Int64]) -> [CompiledSchedule.Entry] {
        times.map { CompiledSchedule.Entry(time: $0, step: .offline(ClientID(0)), source: nil) }
    }

    /// The steps in run order, read through the cursor as the simulator reads them.
    static func drained(_ s: ScheduleSteps) -> [(Int, Int64)] {
        var s = s
        var out: [(Int, Int64)] = []
        while let x = s.peek() { out.append(x); s.advance() }
        return out
    }

    static func expected(_ times: [Int64]) -> [(Int, Int64)] {
        times.indices.sorted { (times[$0], $0) < (times[$1], $1) }.map { ($0, times[$0]) }
    }

    static func check(_ times: [Int64], _ what: String) {
        let got = drained(ScheduleSteps(entries(times)))
        let want = expected(times)
        #expect(got.map(\.0) == want.map(\.0), "\(what): order")
        #expect(got.map(\.1) == want.map(\.1), "\(what): times")
    }

    @Test func ordersByTimeThenListOrder() {
        Self.check([], "empty")
        Self.check([5], "one")
        Self.check([0, 0, 1, 2, 2, 2, 9], "in order, with ties")
        Self.check([9, 7, 7, 3, 1, 0, 0], "reversed, with ties")
        var rng = SimRandom(seed: 11)
        for round in 0..<300 {
            var times: [Int64] = []
            var t: Int64 = 0
            for _ in 0..<rng.int(in: 0...80) {
                t += Int64(rng.int(in: 0...3))
                times.append(t)
                if rng.int(in: 0...5) == 0 {   // a burst of keystrokes reaching past what comes next
                    let every = Int64(rng.int(in: 1...4))
                    for k in 1...rng.int(in: 1...6) { times.append(t + Int64(k) * every) }
                }
                if rng.int(in: 0...30) == 0 { times.append(Int64(rng.int(in: 0...40))) }
            }
            Self.check(times, "round \(round)")
        }
    }

    @Test func generatedSchedulesKeepTheirOrder() throws {
        for seed in 0..<20 {
            let compiled = try WorkloadGenerator(.init(actions: 120)).generate(seed: UInt64(seed)).compile()
            Self.check(compiled.entries.map(\.time), "seed \(seed)")
        }
    }
}
