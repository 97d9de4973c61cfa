import Testing
@testable import SyncSim

/// `ViewPatch` (how the `reference` and `pushPull` clients bring a subscription up to date after
/// their view changed) gives exactly what evaluating the query over the changed view gives, and
/// says "changed" exactly when the result changed; `ViewLinkIndex` lists every row linking to an
/// entity.
@Suite("Reference view patch")
struct ReferenceViewPatchTests {
    /// A small deterministic generator (the test needs no particular distribution).
    struct Draw {
        var state: UInt64
        mutating func below(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(n, 1)))
        }
    }

    func value(_ f: FieldID, _ schema: Schema, _ d: inout Draw) -> FieldValue {
        switch schema.kind(of: f) {
        case .bool: return .bool(d.below(2) == 0)
        case .int: return .int(d.below(3))
        case .string: return .string(["a", "b"][d.below(2)])
        }
    }

    /// The queries a view may hold: every namespace plain and filtered, every link both ways
    /// (filtered too), links followed from the wrong namespace, and a rich query (not patched).
    func queries(_ schema: Schema) -> [Query] {
        var qs: [Query] = []
        for ns in schema.namespaceIDs {
            qs.append(Query(ns))
            if let f = schema.fields(of: ns).first {
                qs.append(Query(ns, where: FieldAssignment(f, schema.kind(of: f) == .bool ? .bool(false) : schema.kind(of: f) == .int ? .int(0) : .string("a"))))
            }
            for l in schema.linkIDs {
                qs.append(Query(ns, include: .forward(l)))
                qs.append(Query(ns, include: .reverse(l)))
                if let f = schema.fields(of: ns).first, schema.kind(of: f) == .string {
                    qs.append(Query(ns, where: FieldAssignment(f, .string("a")), include: .forward(l)))
                    qs.append(Query(ns, where: FieldAssignment(f, .string("b")), include: .reverse(l)))
                }
            }
        }
        qs.append(Query(schema.namespaceIDs[0], condition: nil, limit: 2))
        return qs
    }

    /// One random change: a valid op through `EntityStore.apply`, or (one time in four) a record
    /// put as is, links to missing entities included, which a view never holds but the patch
    /// must not depend on.
    func change(_ store: inout EntityStore, _ schema: Schema, _ d: inout Draw) {
        let e = EntityID(UInt32(1 + d.below(24)))
        let ns = schema.namespaceIDs[d.below(schema.namespaceCount)]
        if d.below(4) == 0 {
            if d.below(5) == 0 { store[e] = nil; return }
            var r = EntityRecord(namespace: ns, schema: schema)
            for f in schema.fields(of: ns) where d.below(2) == 0 { r[f] = value(f, schema, &d) }
            for l in schema.links(of: ns) where d.below(2) == 0 {
                for _ in 0..<(1 + d.below(2)) { r.setLink(l, to: EntityID(UInt32(1 + d.below(26))), many: schema.isMany(l)) }
            }
            store[e] = r
            return
        }
        let op: Op
        switch d.below(5) {
        case 0:
            op = .create(e, ns, schema.fields(of: ns).map { FieldAssignment($0, value($0, schema, &d)) })
        case 1:
            let fs = Array(schema.fields(of: store.namespace(of: e) ?? ns))
            op = .update(e, store.namespace(of: e) ?? ns, fs.isEmpty ? [] : [FieldAssignment(fs[d.below(fs.count)], value(fs[d.below(fs.count)], schema, &d))])
        case 2:
            op = .delete(e, store.namespace(of: e) ?? ns)
        default:
            let l = schema.linkIDs[d.below(schema.linkCount)]
            let t = EntityID(UInt32(1 + d.below(24)))
            op = d.below(3) == 0 ? .unlink(e, l, t) : .link(e, l, t)
        }
        _ = store.apply(op, schema: schema)
    }

    func check(_ schema: Schema, seed: UInt64) -> (checks: Int, patched: Int, failures: [String]) {
        var d = Draw(state: seed)
        var store = EntityStore()
        var index = ViewLinkIndex(store)
        let qs = queries(schema)
        var shown = qs.map { $0.evaluate(store) }
        var checks = 0, patched = 0
        var failures: [String] = []
        for step in 0..<400 {
            let before = store
            for _ in 0..<(1 + d.below(3)) { change(&store, schema, &d) }
            let n = max(before.records.count, store.records.count)
            var touched = (0..<n).filter { i in
                (i < before.records.count ? before.records[i] : nil) != (i < store.records.count ? store.records[i] : nil)
            }.map { EntityID(UInt32($0)) }
            if d.below(4) == 0, let t = touched.first { touched.append(t) }  // repeats are allowed
            for t in touched { index.update(Int(t.raw), in: store) }
            for (k, q) in qs.enumerated() {
                let want = q.evaluate(store)
                var r = shown[k]
                let links = index
                let said = ViewPatch.patch(q, &r, touched: touched, in: store, schema: schema,
                                           referrers: { links.referrers(of: $0) })
                checks += 1
                if let said {
                    patched += 1
                    if r != want { failures.append("step \(step) \(q): \(r.summary) != \(want.summary)") }
                    if said != (want != shown[k]) { failures.append("step \(step) \(q): said changed = \(said)") }
                } else if r != shown[k] {
                    failures.append("step \(step) \(q): nil but the result was changed")
                }
                shown[k] = want
            }
        }
        // The index, kept up to date slot by slot, lists every referrer.
        for t in 0..<(store.records.count + 3) {
            let want = (0..<store.records.count).filter { store.records[$0]?.refers(to: EntityID(UInt32(t))) ?? false }
            if index.referrers(of: EntityID(UInt32(t))).map({ Int($0.raw) }) != want { failures.append("referrers of \(t)") }
        }
        return (checks, patched, failures)
    }

    @Test func patchingEqualsEvaluatingOnTheDefaultSchema() {
        for seed in UInt64(1)...6 {
            let (checks, patched, failures) = check(.default, seed: seed)
            #expect(failures.isEmpty, "seed \(seed): \(failures.prefix(3))")
            #expect(patched * 2 > checks)
        }
    }

    @Test func patchingEqualsEvaluatingWithHasManyLinks() {
        for seed in UInt64(1)...4 {
            let (checks, patched, failures) = check(notesSchema, seed: seed)
            #expect(failures.isEmpty, "seed \(seed): \(failures.prefix(3))")
            #expect(patched * 2 > checks)
        }
    }

    @Test func aWideChangeIsLeftToAnEvaluation() {
        var store = EntityStore()
        for i in 1...40 { _ = store.apply(.create(EntityID(UInt32(i)), .todos, []), schema: .default) }
        var r = QueryResult.empty
        let touched = (1...40).map { EntityID(UInt32($0)) }
        #expect(ViewPatch.patch(Query(.todos), &r, touched: touched, in: store, schema: .default, referrers: { _ in [] }) == nil)
        #expect(r == .empty)
    }
}
