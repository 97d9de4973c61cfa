import Testing
@testable import SyncSim

/// `ResultSpare` (the second entries buffer the `reference` and `pushPull` clients patch a
/// subscription's next result into): brought up to date at the entities the last patch changed
/// (`ViewPatch`'s `changedAt`), it equals the shown result, so patching it gives exactly what
/// evaluating the query gives; and the patched result reuses the spare's buffer instead of
/// copying the shown one.
@Suite("Reference result spare")
struct ReferenceResultSpareTests {
    /// Drives every query of `ReferenceViewPatchTests.queries` through random changes the way
    /// the clients do (take the spare, patch it, keep the old entries with the changed ids),
    /// holding each shown result's entries elsewhere too, as the monitor does.
    func check(_ schema: Schema, seed: UInt64) -> (patches: Int, reused: Int, failures: [String]) {
        let t = ReferenceViewPatchTests()
        var d = ReferenceViewPatchTests.Draw(state: seed)
        var store = EntityStore()
        var index = ViewLinkIndex(store)
        let qs = t.queries(schema)
        var shown = qs.map { $0.evaluate(store) }
        var spares = qs.map { _ in ResultSpare() }
        var monitor = shown.map(\.entries)
        var patches = 0, reused = 0
        var failures: [String] = []
        for step in 0..<300 {
            let before = store
            for _ in 0..<(1 + d.below(3)) { t.change(&store, schema, &d) }
            let n = max(before.records.count, store.records.count)
            let touched = (0..<n).filter { i in
                (i < before.records.count ? before.records[i] : nil) != (i < store.records.count ? store.records[i] : nil)
            }.map { EntityID(UInt32($0)) }
            for x in touched { index.update(Int(x.raw), in: store) }
            for (k, q) in qs.enumerated() {
                let want = q.evaluate(store)
                let old = shown[k]
                var work = old
                let fromSpare = spares[k].take(matching: old, into: &work)
                if fromSpare && (work.entries != old.entries || work.roots != old.roots) {
                    failures.append("step \(step) \(q): the spare differs from the shown result")
                }
                let spareAddress = fromSpare ? work.entries.withUnsafeBufferPointer { $0.baseAddress } : nil
                var at: [EntityID] = []
                let links = index
                let said = ViewPatch.patch(q, &work, touched: touched, in: store, schema: schema,
                                           referrers: { links.referrers(of: $0) }, changedAt: &at)
                if said == true {
                    patches += 1
                    if spareAddress != nil && spareAddress == work.entries.withUnsafeBufferPointer({ $0.baseAddress }) { reused += 1 }
                    if work != want { failures.append("step \(step) \(q): \(work.summary) != \(want.summary)") }
                    shown[k] = work
                    spares[k].keep(old.entries, lag: at)
                } else {
                    if fromSpare { spares[k].keep(work.entries, lag: []) }
                    if said == nil {
                        if want != old { spares[k].drop() }
                        shown[k] = want
                    } else if old != want {
                        failures.append("step \(step) \(q): said unchanged")
                    }
                }
                // The monitor moves on to the result now shown, releasing the one before.
                monitor[k] = shown[k].entries
            }
        }
        _ = monitor
        return (patches, reused, failures)
    }

    @Test func aPatchedSpareEqualsEvaluatingOnTheDefaultSchema() {
        for seed in UInt64(1)...5 {
            let (patches, reused, failures) = check(.default, seed: seed)
            #expect(failures.isEmpty, "seed \(seed): \(failures.prefix(3))")
            #expect(patches > 100)
            // Most patches write into the spare's own buffer (one that grows moves).
            #expect(reused * 2 > patches, "seed \(seed): \(reused) of \(patches) patches reused the spare")
        }
    }

    @Test func aPatchedSpareEqualsEvaluatingWithHasManyLinks() {
        for seed in UInt64(1)...3 {
            let (patches, _, failures) = check(notesSchema, seed: seed)
            #expect(failures.isEmpty, "seed \(seed): \(failures.prefix(3))")
            #expect(patches > 100)
        }
    }

    @Test func aSpareThatLagsIsBroughtUpToDate() {
        let schema = Schema.default
        var store = EntityStore()
        for i in 1...6 { _ = store.apply(.create(EntityID(UInt32(i)), .todos, []), schema: schema) }
        let q = Query(.todos)
        let first = q.evaluate(store)
        _ = store.apply(.delete(EntityID(2), .todos), schema: schema)
        _ = store.apply(.create(EntityID(9), .todos, []), schema: schema)
        let second = q.evaluate(store)
        var spare = ResultSpare()
        spare.keep(first.entries, lag: [EntityID(9), EntityID(2), EntityID(9)])
        var work = QueryResult.empty
        #expect(spare.take(matching: second, into: &work))
        #expect(work == second)
        #expect(spare.entries == nil)
        work = .empty
        #expect(!spare.take(matching: second, into: &work))
        #expect(work == .empty)
    }
}
