import Testing
@testable import SyncSim

/// The soundness of skipping a subscription: whenever a step's changed namespaces and a query's
/// read namespaces are disjoint, the query's result is the same before and after the step. Checked
/// over random stores and steps on the default schema (cardinality-one link) and a has-many one.
@Suite struct NamespaceSetTests {
    @Test func bitSetBasics() {
        var s = NamespaceSet()
        #expect(s.isEmpty && !s.contains(.todos))
        s.insert(.posts)
        #expect(s.contains(.posts) && !s.contains(.profiles))
        var t = NamespaceSet()
        t.insert(.profiles)
        #expect(s.isDisjoint(with: t))
        t.formUnion(s)
        #expect(!s.isDisjoint(with: t) && t.contains(.profiles) && t.contains(.posts))
        #expect(NamespaceSet.all.contains(NamespaceID(31)))
    }

    /// Deleting a profile clears posts' author links: the posts namespace changes too, so a query
    /// over posts alone must not be skipped.
    @Test func deleteTouchesTheNamespacesOfItsReferrers() {
        var store = EntityStore()
        _ = store.apply(.create(EntityID(1), .profiles, []), schema: .default)
        _ = store.apply(.create(EntityID(2), .posts, []), schema: .default)
        _ = store.apply(.link(EntityID(2), .author, EntityID(1)), schema: .default)
        let changed = Op.delete(EntityID(1), .profiles).changedNamespaces(in: .default, before: store)
        #expect(changed.contains(.profiles) && changed.contains(.posts) && !changed.contains(.todos))
        #expect(!changed.isDisjoint(with: Query(.posts).readNamespaces(in: .default)))
        #expect(changed.isDisjoint(with: Query(.todos).readNamespaces(in: .default)))
    }

    @Test(arguments: [Schema.default, notesSchema])
    func skippingIsSound(schema: Schema) {
        var queries: [Query] = []
        for n in 0..<schema.namespaceCount {
            let ns = NamespaceID(UInt8(n))
            queries.append(Query(ns))
            for l in schema.links(of: ns) { queries.append(Query(ns, include: .forward(l))) }
            for l in schema.incomingLinks(of: ns) { queries.append(Query(ns, include: .reverse(l))) }
        }
        var random = SimRandom(seed: 7)
        var skipped = 0
        for _ in 0..<40 {
            var store = EntityStore()
            for _ in 0..<30 {
                let op = randomOp(schema, &random)
                let changed = op.changedNamespaces(in: schema, before: store)
                let before = queries.map { $0.evaluate(store) }
                guard store.apply(op, schema: schema) == nil else { continue }
                for (q, b) in zip(queries, before) where changed.isDisjoint(with: q.readNamespaces(in: schema)) {
                    skipped += 1
                    #expect(q.evaluate(store) == b, "skipped \(q) after \(op) but its result changed")
                }
            }
        }
        #expect(skipped > 100, "the check must actually skip queries to mean anything")
    }

    func randomOp(_ schema: Schema, _ r: inout SimRandom) -> Op {
        let e = EntityID(UInt32(r.int(in: 0...7)))
        let ns = NamespaceID(UInt8(r.index(schema.namespaceCount)))
        switch r.index(5) {
        case 0: return .create(e, ns, [])
        case 1:
            let fields = Array(schema.fields(of: ns))
            guard let f = fields.first else { return .create(e, ns, []) }
            let v: FieldValue = switch schema.kind(of: f) {
            case .string: .string("v\(r.index(3))")
            case .int: .int(r.index(3))
            case .bool: .bool(r.index(2) == 0)
            }
            return .update(e, ns, [FieldAssignment(f, v)])
        case 2: return .delete(e, ns)
        default:
            guard schema.linkCount > 0 else { return .delete(e, ns) }
            let l = LinkID(UInt8(r.index(schema.linkCount)))
            let t = EntityID(UInt32(r.int(in: 0...7)))
            return r.index(3) == 0 ? .unlink(e, l, t) : .link(e, l, t)
        }
    }
}
