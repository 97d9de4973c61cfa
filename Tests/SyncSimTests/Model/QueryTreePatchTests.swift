import Testing
@testable import SyncSim

/// `Query.patchTree` replaces evaluating a query with one level of includes after a change
/// (instant's server and client views), and `Query.patch`/`patchTree` keep a result's digest:
/// the patched result must be exactly `evaluate(store)`, report a change exactly when the result
/// changed, and carry the digest a fresh computation gives. Checked over random stores and
/// steps, for every one-level query of the schema, with sibling includes and conditions too.
@Suite struct QueryTreePatchTests {
    static func queries(_ schema: Schema) -> [Query] {
        var out = QueryRelevanceTests.queries(schema)
        for n in 0..<schema.namespaceCount {
            let ns = NamespaceID(UInt8(n))
            var siblings: [Query.IncludeNode] = []
            for l in schema.links(of: ns) { siblings.append(Query.IncludeNode(.forward(l))) }
            for l in schema.incomingLinks(of: ns) { siblings.append(Query.IncludeNode(.reverse(l))) }
            if siblings.count > 1 { out.append(Query(ns, condition: nil, includes: siblings)) }
            if let f = Array(schema.fields(of: ns)).first, let node = siblings.first {
                let v: FieldValue
                switch schema.kind(of: f) {
                case .string: v = .string("v1")
                case .int: v = .int(1)
                case .bool: v = .bool(true)
                }
                out.append(Query(ns, condition: .compare(f, .ne, v), includes: [node]))
            }
        }
        return out
    }

    @Test(arguments: [Schema.default, notesSchema, Schema.blog])
    func patchingTreesEqualsEvaluating(schema: Schema) {
        let queries = Self.queries(schema)
        var patched = 0, changes = 0, trees = 0
        QueryRelevanceTests.forEachRandomTransaction(schema, queries, seed: 9) { store, steps, before, touched in
            for (q, b) in zip(queries, before) {
                var r = b
                r.cacheDigest()
                guard let changed = q.patchTree(&r, touched: touched, in: store) else {
                    Issue.record("a one-level query was not patched: \(q)")
                    continue
                }
                patched += 1
                if !q.includes.isEmpty { trees += 1 }
                let truth = q.evaluate(store)
                #expect(r == truth, "patching \(q) after \(steps) gave another result than evaluating it")
                #expect(changed == (truth != b), "patching \(q) after \(steps) misreported whether it changed")
                #expect(r.hasCachedDigest && r.digest == truth.digest, "patching \(q) after \(steps) lost the digest")
                if changed { changes += 1 }
            }
        }
        #expect(patched > 1_000 && trees > 500 && changes > 100, "the patch must be exercised (\(patched) patched, \(trees) trees, \(changes) changed)")
    }

    /// A limit or a second level is not patched, and the result is left alone.
    @Test func deeperTreesAndLimitsAreLeftAlone() {
        let schema = Schema.default
        guard let l = schema.links(of: .todos).first ?? schema.incomingLinks(of: .todos).first else { return }
        let store = EntityStore()
        let deep = Query(.todos, condition: nil, includes: [Query.IncludeNode(.forward(l), children: [Query.IncludeNode(.reverse(l))])])
        let limited = Query(.todos, condition: nil, limit: 2, includes: [Query.IncludeNode(.forward(l))])
        for q in [deep, limited] {
            var r = QueryResult.empty
            #expect(q.patchTree(&r, touched: [EntityID(1)], in: store) == nil)
            #expect(r == .empty)
        }
    }

    /// The digest is a function of the value: equal results have equal digests whichever way
    /// they were built, and a write through `entries` forgets a cached one.
    @Test func digestFollowsTheValue() {
        var store = EntityStore()
        for i in 1...4 { _ = store.apply(.create(EntityID(UInt32(i)), .todos, [FieldAssignment(.done, .bool(i % 2 == 0))]), schema: .default) }
        var a = Query(.todos).evaluate(store)
        let b = QueryResult(roots: a.roots, entries: a.entries)
        a.cacheDigest()
        #expect(a.hasCachedDigest && !b.hasCachedDigest && a.digest == b.digest && a == b)
        #expect(StableHasher.hash(a) == StableHasher.hash(b))
        a.entries.removeLast()
        #expect(!a.hasCachedDigest && a != b && a.digest != b.digest)
    }
}
