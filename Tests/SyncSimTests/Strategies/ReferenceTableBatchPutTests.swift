import Testing
@testable import SyncSim

/// `ReferenceTable.put(_:schema:)` (a reply's changes put at once, the store built in one pass
/// into an empty table) makes the table the changes put one by one make, slot for slot.
@Suite("Reference table batch put")
struct ReferenceTableBatchPutTests {
    /// Changes over ids 1...n: creates in random order, some repeated (the later wins), some
    /// tombstones (the last id among them, so the store must end before it).
    func changes(_ n: Int, seed: UInt64, tombstoneLast: Bool) -> [EntityChange] {
        var d = ReferenceViewPatchTests.Draw(state: seed)
        var out: [EntityChange] = []
        let namespaces: [NamespaceID] = [.todos, .profiles, .posts]
        for k in 0..<n {
            let id = EntityID(UInt32(1 + d.below(n)))
            var s = EntityState(namespace: namespaces[d.below(3)], schema: .default)
            s.version = UInt64(k + 1)
            if d.below(5) == 0 { s.deleted = true }
            out.append(EntityChange(id: id, state: s))
        }
        if tombstoneLast {
            var s = EntityState(namespace: .todos, schema: .default)
            s.deleted = true
            out.append(EntityChange(id: EntityID(UInt32(n + 5)), state: s))
        }
        return out
    }

    func oneByOne(_ start: ReferenceTable, _ cs: [EntityChange]) -> ReferenceTable {
        var t = start
        for c in cs { t.put(c.id, c.state, schema: .default) }
        return t
    }

    func same(_ a: ReferenceTable, _ b: ReferenceTable) -> Bool {
        a.states == b.states && a.store.records == b.store.records && a.store.count == b.store.count
    }

    @Test func intoAnEmptyTable() {
        for seed in UInt64(1)...20 {
            let cs = changes(40, seed: seed, tombstoneLast: seed % 2 == 0)
            var t = ReferenceTable()
            t.put(cs, schema: .default)
            #expect(same(t, oneByOne(ReferenceTable(), cs)), "seed \(seed)")
        }
        var t = ReferenceTable()
        t.put([], schema: .default)
        #expect(same(t, ReferenceTable()))
    }

    @Test func intoATableWithRows() {
        for seed in UInt64(1)...20 {
            let start = oneByOne(ReferenceTable(), changes(10, seed: seed + 100, tombstoneLast: false))
            let cs = changes(40, seed: seed, tombstoneLast: seed % 2 == 0)
            var t = start
            t.put(cs, schema: .default)
            #expect(same(t, oneByOne(start, cs)), "seed \(seed)")
        }
    }
}
