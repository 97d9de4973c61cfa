import Testing
@testable import SyncSim

/// `SharedDiffOverlay.rebase`, which passes runs of entries with the same bits or storage
/// without comparing their records, brings the store to the new answer and notes exactly the
/// slots where the two answers differ.
@Suite("SharedDiff rebase")
struct SharedDiffRebaseTests {
    /// Random edits, each new answer either patched from the last (untouched entries keep their
    /// bits) or evaluated again (other bits, same storage); the store after `rebase` must be the
    /// new answer's and `touched` the entities where the answers differ, found by a plain diff.
    @Test func aRebasedStoreIsTheNewAnswer() {
        var random = SimRandom(seed: 5)
        var store = EntityStore()
        for id in 0..<300 where random.int(in: 0...3) != 0 {
            _ = store.apply(.create(EntityID(UInt32(id)), .todos, [FieldAssignment(.title, .string("t\(id)"))]), schema: .default)
        }
        var answer = Query(.todos).evaluate(store)
        var overlay = SharedDiffOverlay(base: answer)
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
            var next = answer
            if round % 3 == 0 || Query(.todos).patch(&next, touched: edited, in: store) == nil {
                next = Query(.todos).evaluate(store)
            }
            var expected = Set<EntityID>()
            let old = Dictionary(uniqueKeysWithValues: answer.entries.map { ($0.id, $0.record) })
            let new = Dictionary(uniqueKeysWithValues: next.entries.map { ($0.id, $0.record) })
            for (id, r) in old where new[id] != r { expected.insert(id) }
            for id in new.keys where old[id] == nil { expected.insert(id) }
            overlay.beginTouching()
            var touched: [EntityID] = []
            overlay.rebase(on: next, touched: &touched)
            #expect(Set(touched) == expected && touched.count == expected.count, "round \(round)")
            #expect(overlay.store == EntityStore(entriesOf: next), "round \(round)")
            #expect(overlay.base == next)
            answer = next
        }
        // Not vacuous: most entries were passed over by their bits or storage words.
        #expect(overlay.passedByWords > 200 * 100)
    }
}
