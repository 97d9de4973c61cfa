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

    /// `note(from:to:at:within:)` notes exactly the entities the walk notes, when the views can
    /// differ only at the given entities (here: the slots random edits touched), whether it
    /// searches (few ids) or falls back to the walk (many).
    @Test func notingWithinTheTouchedSlotsIsTheWalk() {
        var random = SimRandom(seed: 7)
        var store = EntityStore()
        for id in 0..<200 where random.int(in: 0...2) != 0 {
            _ = store.apply(.create(EntityID(UInt32(id)), .todos, [FieldAssignment(.title, .string("t\(id)"))]), schema: .default)
        }
        var old = Query(.todos).evaluate(store)
        for round in 0..<300 {
            var touched: [EntityID] = []
            let edits = round % 10 == 0 ? 60 : random.int(in: 1...4)
            for _ in 0..<edits {
                let e = EntityID(UInt32(random.int(in: 0...219)))
                if !touched.contains(e) { touched.append(e) }
                switch random.int(in: 0...3) {
                case 0: _ = store.apply(.delete(e, .todos), schema: .default)
                case 1: _ = store.apply(.create(e, .todos, [FieldAssignment(.title, .string("n\(round)"))]), schema: .default)
                case 2: _ = store.apply(.update(e, .todos, [FieldAssignment(.title, .string("u\(round)"))]), schema: .default)
                default: break  // touched, unchanged
                }
            }
            let new = Query(.todos).evaluate(store)
            var walked = SharedDiffSeenChanges(), searched = SharedDiffSeenChanges()
            walked.note(from: old, to: new, at: 1)
            searched.note(from: old, to: new, at: 1, within: touched)
            #expect(Set(walked.ids) == Set(searched.ids) && walked.ids.count == searched.ids.count, "round \(round)")
            old = new
        }
    }

    /// The walk, which passes runs of entries with the same bits or storage without comparing
    /// records, notes exactly the entities where two views differ (a plain diff of both), for
    /// views patched from the last one (untouched entries keep their bits) and views evaluated
    /// again (other bits, the same storage).
    @Test func theWalkNotesWhatAPlainDiffFinds() {
        var random = SimRandom(seed: 3)
        var store = EntityStore()
        for id in 0..<300 where random.int(in: 0...3) != 0 {
            _ = store.apply(.create(EntityID(UInt32(id)), .todos, [FieldAssignment(.title, .string("t\(id)"))]), schema: .default)
        }
        var old = Query(.todos).evaluate(store)
        var c = SharedDiffSeenChanges()
        for round in 0..<200 {
            var edited: [EntityID] = []
            for _ in 0..<(round % 25 == 0 ? 80 : random.int(in: 0...3)) {
                let e = EntityID(UInt32(random.int(in: 0...319)))
                if !edited.contains(e) { edited.append(e) }
                switch random.int(in: 0...2) {
                case 0: _ = store.apply(.delete(e, .todos), schema: .default)
                case 1: _ = store.apply(.create(e, .todos, [FieldAssignment(.title, .string("n\(round)"))]), schema: .default)
                default: _ = store.apply(.update(e, .todos, [FieldAssignment(.title, .string("u\(round)"))]), schema: .default)
                }
            }
            var new = old
            if round % 3 == 0 || Query(.todos).patch(&new, touched: edited, in: store) == nil {
                new = Query(.todos).evaluate(store)
            }
            var expected = Set<EntityID>()
            let a = Dictionary(uniqueKeysWithValues: old.entries.map { ($0.id, $0.record) })
            let b = Dictionary(uniqueKeysWithValues: new.entries.map { ($0.id, $0.record) })
            for (id, r) in a where b[id] != r { expected.insert(id) }
            for id in b.keys where a[id] == nil { expected.insert(id) }
            c.forget(upTo: 0)
            c.note(from: old, to: new, at: 1)
            #expect(Set(c.ids) == expected && c.ids.count == expected.count, "round \(round)")
            old = new
        }
        // Not vacuous: most entries were passed over by their bits or storage words.
        #expect(c.passedByWords > 200 * 100)
    }
}
