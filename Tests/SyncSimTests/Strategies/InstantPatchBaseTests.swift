import Testing
@testable import SyncSim

/// `InstantClient.patchBase` passes over a run of entries in the same storage by their words
/// (`QueryResult.Entry.StorageWords`); it must write and touch exactly what the plain merge walk
/// does, whether the new answer was patched from the old one (the server's way: most entries
/// share storage) or built apart.
@Suite("Instant patchBase")
struct InstantPatchBaseTests {
    /// The merge walk `patchBase` did before the shortcut, record by record.
    static func patchByMerge(_ store: inout EntityStore, from old: QueryResult, to new: QueryResult, touched: inout [EntityID]) {
        let o = old.entries, n = new.entries
        var j = 0
        for k in 0..<n.count {
            let id = n[k].id
            while j < o.count && o[j].id < id {
                store[o[j].id] = nil
                touched.append(o[j].id)
                j += 1
            }
            if j < o.count && o[j].id == id {
                if o[j].record != n[k].record {
                    store[id] = n[k].record
                    touched.append(id)
                }
                j += 1
            } else {
                store[id] = n[k].record
                touched.append(id)
            }
        }
        while j < o.count {
            store[o[j].id] = nil
            touched.append(o[j].id)
            j += 1
        }
    }

    /// Over random transactions, for every query: the old answer, the new one patched from it
    /// as the server does (`shared: true`) and the new one evaluated apart. `patchBase` gives
    /// the merge walk's store and `touched` for both, and passes over entries by their words
    /// for the patched ones (the shortcut fires).
    @Test(arguments: [Schema.default, notesSchema, Schema.blog])
    func matchesTheMergeWalk(schema: Schema) {
        let queries = QueryTreePatchTests.queries(schema)
        var passed = 0, compared = 0
        QueryRelevanceTests.forEachRandomTransaction(schema, queries, seed: 21) { store, steps, before, touched in
            for (q, old) in zip(queries, before) {
                var patched = old
                guard q.patchTree(&patched, touched: touched, in: store, shared: true) != nil else { continue }
                for new in [patched, q.evaluate(store)] {
                    var fast = EntityStore(entriesOf: old), slow = fast
                    var fastTouched: [EntityID] = [], slowTouched: [EntityID] = []
                    passed += InstantClient.patchBase(&fast, from: old, to: new, touched: &fastTouched)
                    Self.patchByMerge(&slow, from: old, to: new, touched: &slowTouched)
                    #expect(fast == slow && fastTouched == slowTouched, "\(q) after \(steps)")
                    #expect(fast == EntityStore(entriesOf: new), "\(q) after \(steps): not the new answer's entries")
                    compared += 1
                }
            }
        }
        #expect(compared > 1_000)
        #expect(passed > 1_000, "patchBase never passed over entries by their storage")
    }

    /// The words tell the same storage only: an entry compared with itself, with a copy (same
    /// buffers) and not with an equal record in other storage, nor with another id.
    @Test func storageWordsTellSameStorageOnly() throws {
        let words = try #require(QueryResult.Entry.storageWords)
        var data = EntityStore()
        for op: Op in [
            .create(EntityID(1), .todos, [FieldAssignment(.title, .string("a"))]),
            .create(EntityID(2), .todos, [FieldAssignment(.title, .string("a"))]),
        ] { #expect(data.apply(op, schema: .default) == nil) }
        let a = Query(.todos).evaluate(data).entries
        let b = a
        let apart = Query(.todos).evaluate(data).entries.map { e -> QueryResult.Entry in
            var r = EntityRecord(namespace: e.record.namespace, schema: .default)
            for (f, v) in e.record.values.enumerated() { r.values[f] = v }
            return QueryResult.Entry(id: e.id, record: r)
        }
        a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                apart.withUnsafeBufferPointer { z in
                    #expect(words.sameStorage(x.baseAddress!, y.baseAddress!))
                    #expect(!words.sameStorage(x.baseAddress!, x.baseAddress! + 1))
                    #expect(x[0].record == z[0].record && !words.sameStorage(x.baseAddress!, z.baseAddress!))
                }
            }
        }
    }
}
