import Testing
@testable import SyncSim

/// `Query.evaluate` against the straightforward definition (roots in id order; forward targets
/// that exist or referrers of each root; entries sorted and unique), over random stores.
@Suite struct QueryEvaluateTests {
    static func reference(_ q: Query, _ store: EntityStore) -> QueryResult {
        var roots: [EntityID] = []
        var children: [EntityID] = []
        for (i, r) in store.records.enumerated() {
            guard let r, q.matches(r) else { continue }
            let id = EntityID(UInt32(i))
            roots.append(id)
            switch q.include {
            case .forward(let l)?: if let t = r[l], store.contains(t) { children.append(t) }
            case .reverse(let l)?: children.append(contentsOf: store.referrers(to: id, via: l))
            case nil: break
            }
        }
        let ids = Array(Set(roots + children)).sorted()
        return QueryResult(roots: roots, entries: ids.compactMap { id in store[id].map { QueryResult.Entry(id: id, record: $0) } })
    }

    @Test func matchesTheDefinitionOnRandomStores() {
        var rnd = SimRandom(seed: 7)
        let queries: [Query] = [
            Query(.todos), Query(.todos, where: FieldAssignment(.done, .bool(true))),
            Query(.posts, include: .forward(.author)), Query(.profiles, include: .reverse(.author)),
            Query(.profiles, where: FieldAssignment(.name, .string("a")), include: .reverse(.author)),
            Query(.todos, include: .reverse(.author)), Query(.posts, include: .reverse(.author)),
        ]
        for _ in 0..<300 {
            var s = EntityStore()
            let n = Int(rnd.below(24))
            for i in 0..<n where rnd.below(4) != 0 {
                let ns = Schema.default.namespaceIDs[Int(rnd.below(3))]
                var r = EntityRecord(namespace: ns, schema: .default)
                if ns == .todos, rnd.below(2) == 0 { r[.done] = .bool(rnd.below(2) == 0) }
                if ns == .profiles, rnd.below(2) == 0 { r[.name] = .string(rnd.below(2) == 0 ? "a" : "b") }
                if ns == .posts, rnd.below(3) != 0 { r[.author] = EntityID(UInt32(rnd.below(30))) }
                s[EntityID(UInt32(i))] = r
            }
            for q in queries {
                let want = Self.reference(q, s)
                let got = q.evaluate(s)
                #expect(got == want)
                #expect(q.evaluates(s, to: want))
                if !want.entries.isEmpty {
                    var other = want
                    other.entries.removeLast()
                    #expect(!q.evaluates(s, to: other))
                }
            }
        }
    }
}
