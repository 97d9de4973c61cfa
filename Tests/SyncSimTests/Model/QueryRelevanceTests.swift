import Testing
@testable import SyncSim

/// `Query.mayChange` lets the instant server and client skip evaluating a query after a change;
/// it is only worth anything if it is sound (a skipped query's result really is unchanged) and
/// only fast if it actually skips. Checked over random stores and steps, with filters and both
/// include directions, on the default schema and a has-many one.
@Suite struct QueryRelevanceTests {
    static func queries(_ schema: Schema) -> [Query] {
        var out: [Query] = []
        for n in 0..<schema.namespaceCount {
            let ns = NamespaceID(UInt8(n))
            var filters: [FieldAssignment?] = [nil]
            if let f = Array(schema.fields(of: ns)).first {
                switch schema.kind(of: f) {
                case .string: filters.append(FieldAssignment(f, .string("v1")))
                case .int: filters.append(FieldAssignment(f, .int(1)))
                case .bool: filters.append(FieldAssignment(f, .bool(true)))
                }
            }
            for filter in filters {
                out.append(Query(ns, where: filter))
                for l in schema.links(of: ns) { out.append(Query(ns, where: filter, include: .forward(l))) }
                for l in schema.incomingLinks(of: ns) { out.append(Query(ns, where: filter, include: .reverse(l))) }
            }
        }
        return out
    }

    /// Drives 40 random stores through 40 random transactions each (a transaction with a failing
    /// step is rolled back and skipped) and calls `body` after each committed one with the
    /// store, the steps, `queries`' results before it and the entities it touched. Shared by the
    /// skip check here and `QueryPatchTests`, which must agree on what "a change" is.
    static func forEachRandomTransaction(_ schema: Schema, _ queries: [Query], seed: UInt64,
                                         _ body: (_ store: EntityStore, _ steps: [Op], _ before: [QueryResult], _ touched: [EntityID]) -> Void) {
        var random = SimRandom(seed: seed)
        for _ in 0..<40 {
            var store = EntityStore()
            for _ in 0..<40 {
                var steps: [Op] = []
                for _ in 0...random.index(2) { steps.append(NamespaceSetTests().randomOp(schema, &random)) }
                let before = queries.map { $0.evaluate(store) }
                var undo = EntityStore.UndoLog()
                var failed = false
                for op in steps where store.apply(op, schema: schema, undo: &undo) != nil { failed = true; break }
                if failed { store.rollBack(undo); continue }
                body(store, steps, before, store.touched(by: undo))
            }
        }
    }

    @Test(arguments: [Schema.default, notesSchema])
    func skippingIsExact(schema: Schema) {
        let queries = Self.queries(schema)
        var skipped = 0, checked = 0
        Self.forEachRandomTransaction(schema, queries, seed: 11) { store, steps, before, touched in
            for (q, b) in zip(queries, before) {
                checked += 1
                if !q.mayChange(b, touched: touched, in: store, schema: schema) {
                    skipped += 1
                    #expect(q.evaluate(store) == b, "skipped \(q) after \(steps) but its result changed")
                }
            }
        }
        #expect(skipped > checked / 4, "the check must actually skip queries to mean anything (\(skipped) of \(checked))")
    }

    /// A post linked to an author makes the author's reverse view (`profiles with posts`) change
    /// although neither the post nor the link is in the old result: the check must see it.
    @Test func aChildJoiningThroughAReverseLinkIsSeen() {
        var store = EntityStore()
        _ = store.apply(.create(EntityID(1), .profiles, []), schema: .default)
        _ = store.apply(.create(EntityID(2), .posts, []), schema: .default)
        let q = Query(.profiles, include: .reverse(.author))
        let before = q.evaluate(store)
        var undo = EntityStore.UndoLog()
        #expect(store.apply(.link(EntityID(2), .author, EntityID(1)), schema: .default, undo: &undo) == nil)
        #expect(q.evaluate(store) != before)
        #expect(q.mayChange(before, touched: store.touched(by: undo), in: store, schema: .default))
    }

    /// An update of a todo says nothing about profiles, nor about todos a filter leaves out.
    @Test func unrelatedChangesAreSkipped() {
        var store = EntityStore()
        _ = store.apply(.create(EntityID(1), .todos, [FieldAssignment(.done, .bool(false))]), schema: .default)
        _ = store.apply(.create(EntityID(2), .profiles, []), schema: .default)
        let done = Query(.todos, where: FieldAssignment(.done, .bool(true)))
        let profiles = Query(.profiles)
        let (b1, b2) = (done.evaluate(store), profiles.evaluate(store))
        var undo = EntityStore.UndoLog()
        _ = store.apply(.update(EntityID(1), .todos, [FieldAssignment(.title, .string("x"))]), schema: .default, undo: &undo)
        let touched = store.touched(by: undo)
        #expect(touched == [EntityID(1)])
        #expect(!done.mayChange(b1, touched: touched, in: store, schema: .default))
        #expect(!profiles.mayChange(b2, touched: touched, in: store, schema: .default))
        // Marking it done brings it into the filtered view.
        _ = store.apply(.update(EntityID(1), .todos, [FieldAssignment(.done, .bool(true))]), schema: .default, undo: &undo)
        #expect(done.mayChange(b1, touched: store.touched(by: undo), in: store, schema: .default))
    }

    /// Slots a change appended count as touched; a delete touches the records whose links it clears.
    @Test func touchedListsCreatedAndUnlinkedEntities() {
        var store = EntityStore()
        _ = store.apply(.create(EntityID(1), .profiles, []), schema: .default)
        _ = store.apply(.create(EntityID(2), .posts, []), schema: .default)
        _ = store.apply(.link(EntityID(2), .author, EntityID(1)), schema: .default)
        var undo = EntityStore.UndoLog()
        _ = store.apply(.create(EntityID(5), .todos, []), schema: .default, undo: &undo)
        #expect(store.touched(by: undo) == [EntityID(3), EntityID(4), EntityID(5)])
        var undo2 = EntityStore.UndoLog()
        _ = store.apply(.delete(EntityID(1), .profiles), schema: .default, undo: &undo2)
        #expect(Set(store.touched(by: undo2)) == [EntityID(1), EntityID(2)])
    }
}
