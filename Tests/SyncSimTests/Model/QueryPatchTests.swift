import Testing
@testable import SyncSim

/// `Query.patch` replaces evaluating a query after a change (instant's server and client views):
/// the patched result must be exactly `evaluate(store)`, and report a change exactly when the
/// result changed. Checked over random stores and steps, with and without filters.
@Suite struct QueryPatchTests {
    @Test(arguments: [Schema.default, notesSchema])
    func patchingEqualsEvaluating(schema: Schema) {
        let queries = QueryRelevanceTests.queries(schema)
        var patched = 0, changes = 0
        QueryRelevanceTests.forEachRandomTransaction(schema, queries, seed: 5) { store, steps, before, touched in
            for (q, b) in zip(queries, before) {
                var r = b
                guard let changed = q.patch(&r, touched: touched, in: store) else {
                    #expect(q.include != nil)
                    #expect(r == b, "a query it does not patch is left alone")
                    continue
                }
                patched += 1
                let truth = q.evaluate(store)
                #expect(r == truth, "patching \(q) after \(steps) gave another result than evaluating it")
                #expect(changed == (truth != b), "patching \(q) after \(steps) misreported whether it changed")
                if changed { changes += 1 }
            }
        }
        #expect(patched > 1_000 && changes > 100, "the patch must be exercised (\(patched) patched, \(changes) changed)")
    }

    /// A todo that stops matching the filter leaves the view; one that starts matching joins it
    /// in id order.
    @Test func filteredViewsGainAndLoseEntities() {
        var store = EntityStore()
        for i in [1, 3] { _ = store.apply(.create(EntityID(UInt32(i)), .todos, [FieldAssignment(.done, .bool(true))]), schema: .default) }
        _ = store.apply(.create(EntityID(2), .todos, [FieldAssignment(.done, .bool(false))]), schema: .default)
        let q = Query(.todos, where: FieldAssignment(.done, .bool(true)))
        var r = q.evaluate(store)
        #expect(r.roots == [EntityID(1), EntityID(3)])
        _ = store.apply(.update(EntityID(2), .todos, [FieldAssignment(.done, .bool(true))]), schema: .default)
        _ = store.apply(.update(EntityID(3), .todos, [FieldAssignment(.done, .bool(false))]), schema: .default)
        #expect(q.patch(&r, touched: [EntityID(2), EntityID(3)], in: store) == true)
        #expect(r.roots == [EntityID(1), EntityID(2)] && r == q.evaluate(store))
        #expect(q.patch(&r, touched: [EntityID(1)], in: store) == false)
    }
}
