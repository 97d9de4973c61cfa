import Testing
@testable import SyncSim

@Suite struct EventQueueTests {
    @Test func ordersByTimeThenInsertion() {
        var q = EventQueue<String>()
        q.push(at: 10, "b1")
        q.push(at: 5, "a")
        q.push(at: 10, "b2")
        q.push(at: 10, "b3")
        q.push(at: 7, "c")
        var out: [String] = []
        while let (_, p) = q.pop() { out.append(p) }
        #expect(out == ["a", "c", "b1", "b2", "b3"])
    }

    @Test func tiesKeepInsertionOrderAtScale() {
        var q = EventQueue<Int>()
        var r = SimRandom(seed: 1)
        var expected: [(Int64, Int)] = []
        for i in 0..<2_000 {
            let t = Int64(r.below(20))
            q.push(at: t, i)
            expected.append((t, i))
        }
        expected.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var got: [(Int64, Int)] = []
        while let (t, p) = q.pop() { got.append((t, p)) }
        #expect(got.map(\.1) == expected.map(\.1))
    }
}
