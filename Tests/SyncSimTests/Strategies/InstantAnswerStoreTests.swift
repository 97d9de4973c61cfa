import Testing
@testable import SyncSim

/// What the InstantDB client's overlay relies on when no mutation is visible: the view is the
/// server's answer, and the store holding exactly that answer's entries has the answer as its
/// own result (for a query without a limit), so the next write patches the view instead of
/// evaluating it over the whole store.
@Suite("Instant answer store")
struct InstantAnswerStoreTests {
    /// For every query without a limit (one level, sibling includes, conditions, deeper trees),
    /// over random stores: evaluating the query over the store of its own result's entries
    /// gives that result back.
    @Test(arguments: [Schema.default, notesSchema, Schema.blog])
    func anAnswerIsTheQueryOverItsOwnEntries(schema: Schema) {
        var queries = QueryTreePatchTests.queries(schema)
        // A deeper tree: every link of the root namespace, each with every link of the
        // namespace it reaches (both directions).
        for n in 0..<schema.namespaceCount {
            let ns = NamespaceID(UInt8(n))
            var nodes: [Query.IncludeNode] = []
            for l in schema.links(of: ns) {
                var node = Query.IncludeNode(.forward(l))
                let to = schema.target(of: l)
                for m in schema.links(of: to) { node.children.append(Query.IncludeNode(.forward(m))) }
                for m in schema.incomingLinks(of: to) { node.children.append(Query.IncludeNode(.reverse(m))) }
                nodes.append(node)
            }
            if !nodes.isEmpty { queries.append(Query(ns, condition: nil, includes: nodes)) }
        }
        var checked = 0
        QueryRelevanceTests.forEachRandomTransaction(schema, queries, seed: 5) { store, _, _, _ in
            for q in queries where q.limit == nil {
                let r = q.evaluate(store)
                #expect(q.evaluates(EntityStore(entriesOf: r), to: r), "\(q) over its own entries")
                checked += 1
            }
        }
        #expect(checked > 1_000)
    }

    /// `patchBase` between two equal answers built apart (different buffers) writes nothing and
    /// touches nothing, as it does for the same buffer.
    @Test func equalAnswersBuiltApartPatchNothing() {
        var data = EntityStore()
        for op: Op in [
            .create(EntityID(1), .todos, [FieldAssignment(.title, .string("a"))]),
            .create(EntityID(3), .todos, [FieldAssignment(.title, .string("c"))]),
        ] { #expect(data.apply(op, schema: .default) == nil) }
        let q = Query(.todos)
        let a = q.evaluate(data), b = q.evaluate(data)
        var store = EntityStore(entriesOf: a)
        var touched: [EntityID] = []
        InstantClient.patchBase(&store, from: a, to: b, touched: &touched)
        #expect(touched.isEmpty && store == EntityStore(entriesOf: b))
    }
}
