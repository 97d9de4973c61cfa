import Testing
@testable import SyncSim

/// `SharedDiffSeenChanges`: which entities changed since a version, or that it cannot tell.
@Suite("SharedDiff seen changes")
struct SharedDiffSeenChangesTests {
    func result(_ titles: [UInt32: String]) -> QueryResult {
        var s = EntityStore()
        for (id, t) in titles.sorted(by: { $0.key < $1.key }) {
            _ = s.apply(.create(EntityID(id), .todos, [FieldAssignment(.title, .string(t))]), schema: .default)
        }
        return Query(.todos).evaluate(s)
    }

    @Test func listsTheEntitiesWhereAViewChanged() {
        var c = SharedDiffSeenChanges()
        let a = result([1: "a", 2: "b", 4: "d"])
        c.note(from: nil, to: a, at: 1)
        #expect(Array(c.changed(after: 0)!) == [EntityID(1), EntityID(2), EntityID(4)])
        // 2 changed, 4 left, 5 came, 1 kept (the same record).
        var b = a
        var store = EntityStore(entriesOf: a)
        _ = store.apply(.update(EntityID(2), .todos, [FieldAssignment(.title, .string("B"))]), schema: .default)
        _ = store.apply(.delete(EntityID(4), .todos), schema: .default)
        _ = store.apply(.create(EntityID(5), .todos, []), schema: .default)
        b = Query(.todos).evaluate(store)
        c.note(from: a, to: b, at: 2)
        #expect(Array(c.changed(after: 1)!) == [EntityID(2), EntityID(4), EntityID(5)])
        #expect(c.changed(after: 2)!.isEmpty)
        #expect(c.changed(after: 0)!.count == 6)
    }

    @Test func forgetsWhatItCannotList() {
        var c = SharedDiffSeenChanges()
        c.note(from: nil, to: result([1: "a"]), at: 1)
        c.forget(upTo: 2)
        #expect(c.changed(after: 1) == nil)
        #expect(c.changed(after: 2)!.isEmpty)
        c.note(from: nil, to: result([3: "c"]), at: 3)
        #expect(Array(c.changed(after: 2)!) == [EntityID(3)])
        // Past its capacity the older half goes, whole versions at a time.
        var v: UInt64 = 3
        while c.versions.count < SharedDiffSeenChanges.capacity {
            v += 1
            c.note(from: nil, to: result([UInt32(v % 50): "x", 60: "y"]), at: v)
        }
        v += 1
        c.note(from: nil, to: result([7: "z"]), at: v)
        #expect(c.floor > 2 && c.changed(after: 2) == nil)
        #expect(c.versions.first! > c.floor)
        #expect(Array(c.changed(after: v - 1)!) == [EntityID(7)])
        #expect(c.changed(after: c.floor) != nil)
    }
}
