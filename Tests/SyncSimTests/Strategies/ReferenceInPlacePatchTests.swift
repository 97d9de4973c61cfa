import Testing
@testable import SyncSim

/// The `reference` and `pushPull` clients patch a subscription's shown result in place
/// (`ViewPatch`, the result taken out of the subscription so that it is held once): the patched
/// result is exactly what evaluating the query gives, and a patch writes into the result's own
/// entries buffer instead of copying it. The monitor keeps its own copy of what was shown
/// (`ShownEntries`), so it holds no second reference between yields.
@Suite("Reference in-place patch")
struct ReferenceInPlacePatchTests {
    /// Drives every query of `ReferenceViewPatchTests.queries` through random changes the way
    /// the clients do (take the result out, patch it, put it back; evaluate when the patch
    /// declines), comparing each result with a from-scratch evaluation.
    func check(_ schema: Schema, seed: UInt64) -> (patches: Int, inPlace: Int, failures: [String]) {
        let t = ReferenceViewPatchTests()
        var d = ReferenceViewPatchTests.Draw(state: seed)
        var store = EntityStore()
        var index = ViewLinkIndex(store)
        let qs = t.queries(schema)
        var shown: [QueryResult?] = qs.map { $0.evaluate(store) }
        var patches = 0, inPlace = 0
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
                guard var work = shown[k] else { continue }
                shown[k] = nil
                // Read without keeping a second reference to the entries (one would be copied).
                let address = work.entries.withUnsafeBufferPointer { $0.baseAddress }
                let links = index
                let said = ViewPatch.patch(q, &work, touched: touched, in: store, schema: schema,
                                           referrers: { links.referrers(of: $0) })
                if said == true {
                    patches += 1
                    if work.entries.withUnsafeBufferPointer({ $0.baseAddress }) == address { inPlace += 1 }
                    if work != want { failures.append("step \(step) \(q): \(work.summary) != \(want.summary)") }
                    shown[k] = work
                } else if said == nil {
                    shown[k] = want
                } else {
                    if work != want { failures.append("step \(step) \(q): said unchanged") }
                    shown[k] = work
                }
            }
        }
        return (patches, inPlace, failures)
    }

    @Test func patchingInPlaceEqualsEvaluatingOnTheDefaultSchema() {
        for seed in UInt64(1)...5 {
            let (patches, inPlace, failures) = check(.default, seed: seed)
            #expect(failures.isEmpty, "seed \(seed): \(failures.prefix(3))")
            #expect(patches > 100)
            // Most patches write into the result's own buffer (one that grows moves).
            #expect(inPlace * 2 > patches, "seed \(seed): \(inPlace) of \(patches) patches in place")
        }
    }

    @Test func patchingInPlaceEqualsEvaluatingWithHasManyLinks() {
        for seed in UInt64(1)...3 {
            let (patches, _, failures) = check(notesSchema, seed: seed)
            #expect(failures.isEmpty, "seed \(seed): \(failures.prefix(3))")
            #expect(patches > 100)
        }
    }

    /// A result held once is patched in its own buffer: no copy of the entries.
    @Test func aResultHeldOnceIsPatchedInItsOwnBuffer() {
        let schema = Schema.default
        var store = EntityStore()
        for i in 1...6 { _ = store.apply(.create(EntityID(UInt32(i)), .todos, []), schema: schema) }
        let q = Query(.todos)
        var r = q.evaluate(store)
        r.entries.reserveCapacity(16)
        let address = r.entries.withUnsafeBufferPointer { $0.baseAddress }
        _ = store.apply(.delete(EntityID(2), .todos), schema: schema)
        _ = store.apply(.create(EntityID(9), .todos, []), schema: schema)
        let said = ViewPatch.patch(q, &r, touched: [EntityID(2), EntityID(9)], in: store, schema: schema,
                                   referrers: { _ in [] })
        #expect(said == true)
        #expect(r == q.evaluate(store))
        #expect(r.entries.withUnsafeBufferPointer { $0.baseAddress } == address)
    }
}
