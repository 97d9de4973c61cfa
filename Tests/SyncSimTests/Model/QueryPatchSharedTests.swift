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

    /// `shared: false` on a value whose entries another value also holds (a client's view that
    /// is the answer it was sent) copies them before the first change (`ownEntries`): the other
    /// value keeps its entries, and the patched one is the query's result.
    @Test(arguments: [Schema.default, notesSchema, Schema.blog])
    func patchingACopyLeavesTheOriginal(schema: Schema) {
        let queries = QueryTreePatchTests.queries(schema)
        var changes = 0
        QueryRelevanceTests.forEachRandomTransaction(schema, queries, seed: 17) { store, steps, before, touched in
            for (q, b) in zip(queries, before) {
                // The same value in a buffer of its own: what `b` must still be afterwards.
                let snapshot = QueryResult(roots: b.roots, entries: b.entries.map { $0 })
                var copy = b
                guard let c = q.patchTree(&copy, touched: touched, in: store) else { continue }
                #expect(b == snapshot, "\(q) after \(steps): patching a copy changed the original")
                #expect(copy == q.evaluate(store), "\(q) after \(steps)")
                if c { changes += 1 }
            }
        }
        #expect(changes > 100)
    }

    /// `ownEntries(shared: true, extra:)` copies the entries into storage of their own with room
    /// for the inserts; the value and the other holder are unchanged.
    @Test func owningSharedEntriesReservesRoomForTheInserts() {
        var store = EntityStore()
        for i in 1...3 { _ = store.apply(.create(EntityID(UInt32(i)), .todos, [FieldAssignment(.title, .string("t\(i)"))]), schema: .default) }
        var a = Query(.todos).evaluate(store)
        let b = a
        a.ownEntries(shared: true, extra: 2)
        #expect(a == b)
        #expect(a._entries.capacity >= a._entries.count + 2)
        let distinct = a._entries.withUnsafeBufferPointer { x in b._entries.withUnsafeBufferPointer { y in x.baseAddress != y.baseAddress } }
        #expect(distinct)
    }
}
