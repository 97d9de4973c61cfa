import Testing
@testable import SyncSim

/// The oracles' flat tables by (entity, field) key (`KeyTable`, `FieldVersions`) and the root
/// lookup the view oracles use (`Monitor.hasRoot`): each must answer what the dictionary, the
/// set or the scan they replaced answered, for any key or result, the odd ones included.
@Suite struct KeyTableTests {
    @Test func denseAndSparseKeysReadBackWhatWasWritten() {
        var t = KeyTable<Int32>(stride: 3, blank: Monitor.noFloor)
        let near = Monitor.key(EntityID(5), FieldID(2))
        let wideField = Monitor.key(EntityID(5), FieldID(7))       // beyond the stride: sparse
        let hugeEntity = Monitor.key(EntityID(UInt32.max), FieldID(1))  // beyond the dense range
        #expect(t[near] == Monitor.noFloor, "a key never written reads blank")
        t[near] = 4
        t[wideField] = 9
        t[hugeEntity] = -1
        #expect(t[near] == 4)
        #expect(t[wideField] == 9)
        #expect(t[hugeEntity] == -1)
        #expect(t[Monitor.key(EntityID(5), FieldID(1))] == Monitor.noFloor, "a neighbour slot stays blank")
        #expect(t[Monitor.key(EntityID(6), FieldID(0))] == Monitor.noFloor)
        t.modify(near) { $0 += 1 }
        #expect(t[near] == 5)
    }

    @Test func fieldVersionsRangesAcrossTheLayout() {
        var v = FieldVersions(stride: 2)
        let k = Monitor.key(EntityID(3), FieldID(1)), far = Monitor.key(EntityID(1 << 30), FieldID(0))
        v.note(k, .int(1), tx: 0)
        v.note(k, .int(1), tx: 1)       // unchanged: no new version
        v.note(k, .int(2), tx: 2)
        v.note(k, .int(1), tx: 5)
        v.note(far, .int(7), tx: 3)
        #expect(v.range(of: .int(1), k, initial: nil).map { [$0.oldest, $0.newest] } == [0, 5])
        #expect(v.range(of: .int(2), k, initial: .int(2)).map { [$0.oldest, $0.newest] } == [-1, 2])
        #expect(v.range(of: .int(3), k, initial: nil) == nil)
        #expect(v.range(of: .int(7), far, initial: nil).map { [$0.oldest, $0.newest] } == [3, 3])
        #expect(v.held(k, from: 2, before: 5, initial: nil) == [.int(1), .int(2)], "the value current when tx 2 began, then tx 2's")
        #expect(v.holdsOther(than: .int(7), far) == false)
        #expect(v.holdsOther(than: .int(1), k))
    }

    @Test func hasRootAgreesWithAScan() {
        let sorted = QueryResult(roots: [EntityID(1), EntityID(4), EntityID(9)], entries: [])
        let unsorted = QueryResult(roots: [EntityID(9), EntityID(1), EntityID(4)], entries: [])
        for r in [sorted, unsorted, .empty] {
            for e in (0...10).map({ EntityID(UInt32($0)) }) {
                #expect(Monitor.hasRoot(r, e) == r.roots.contains(e))
            }
        }
    }
}
