import Testing
@testable import SyncSim

/// `Query.patch`/`patchTree` with `shared: true` (the server's broadcast: the result it patches
/// is a copy of one it keeps) copy the entries in their own loop before the first change: the
/// patched result, the change flag and the digest are those of the in-place patch, and the
/// value the entries were shared with is left as it was.
@Suite struct QueryPatchSharedTests {
    @Test(arguments: [Schema.default, notesSchema, Schema.blog])
    func sharedPatchingEqualsPatchingInPlace(schema: Schema) {
        let queries = QueryTreePatchTests.queries(schema)
        var changes = 0
        QueryRelevanceTests.forEachRandomTransaction(schema, queries, seed: 13) { store, steps, before, touched in
            for (q, b) in zip(queries, before) {
                var kept = b
                kept.cacheDigest()
                var shared = kept
                var inPlace = kept
                let s = q.patchTree(&shared, touched: touched, in: store, shared: true)
                let p = q.patchTree(&inPlace, touched: touched, in: store)
                #expect(s == p, "\(q) after \(steps): the change flags differ")
                #expect(shared == inPlace && shared.hasCachedDigest == inPlace.hasCachedDigest,
                        "\(q) after \(steps): a shared patch gave another result")
                if shared.hasCachedDigest { #expect(shared.digest == inPlace.digest) }
                #expect(kept == b, "\(q) after \(steps): the shared value changed")
                if s == true { changes += 1 }
            }
        }
        #expect(changes > 100)
    }

    /// `unshareEntries` keeps the value and its digest, and gives it storage of its own.
    @Test func unsharingKeepsTheValue() {
        var store = EntityStore()
        for i in 1...3 { _ = store.apply(.create(EntityID(UInt32(i)), .todos, [FieldAssignment(.title, .string("t\(i)"))]), schema: .default) }
        var a = Query(.todos).evaluate(store)
        a.cacheDigest()
        var b = a
        b.unshareEntries()
        #expect(a == b && b.hasCachedDigest && b.digest == a.digest)
        let distinct = a._entries.withUnsafeBufferPointer { x in b._entries.withUnsafeBufferPointer { y in x.baseAddress != y.baseAddress } }
        #expect(distinct)
    }
}
