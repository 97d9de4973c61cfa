import Testing
@testable import SyncSim

/// `SharedDiffNamespaceClaims.claim(_:)` of a whole answer, which writes the slots through one
/// buffer, claims what claiming each entry in turn claims.
@Suite("SharedDiff namespace claims")
struct SharedDiffNamespaceClaimsTests {
    func answer(_ entries: [(UInt32, NamespaceID)]) -> QueryResult {
        QueryResult(roots: [], entries: entries.map { QueryResult.Entry(id: EntityID($0.0), record: EntityRecord(namespace: $0.1, schema: .default)) })
    }

    @Test func anAnswerClaimsWhatItsEntriesClaimOneByOne() {
        var random = SimRandom(seed: 11)
        var whole = SharedDiffNamespaceClaims(), single = SharedDiffNamespaceClaims()
        var mixedSeen = false
        for round in 0..<400 {
            // Ascending ids, mostly todos; now and then an id named again as a profile, and one
            // answer larger than any before (the slots grow).
            var entries: [(UInt32, NamespaceID)] = []
            let top = round == 200 ? 900 : random.int(in: 0...120)
            var id = random.int(in: 0...5)
            while id <= top {
                entries.append((UInt32(id), random.int(in: 0...199) == 0 ? .profiles : .todos))
                id += random.int(in: 1...7)
            }
            let r = answer(entries)
            let a = whole.claim(r)
            var b = false
            for e in r.entries where single.claim(e.id, e.record.namespace) { b = true }
            #expect(a == b, "round \(round)")
            #expect(whole.namespaces == single.namespaces && whole.mixed == single.mixed, "round \(round)")
            mixedSeen = mixedSeen || a
        }
        // Not vacuous: the claims became mixed once, reported by the answer that did it.
        #expect(mixedSeen && whole.mixed)
        let none = whole.claim(QueryResult.empty)
        #expect(!none)
    }

    /// `claim(_:since:)`, which passes over the entries the answer it replaces already claimed,
    /// claims what claiming the whole answer claims, for answers edited from the last one (most
    /// entries keep their record's storage) and answers built afresh.
    @Test func anAnswerClaimedAgainstTheLastClaimsWhatItsEntriesClaim() {
        var random = SimRandom(seed: 17)
        var walked = SharedDiffNamespaceClaims(), whole = SharedDiffNamespaceClaims()
        var last: QueryResult?
        var entries: [QueryResult.Entry] = []
        var mixedSeen = false
        for round in 0..<300 {
            if round % 50 == 0 {
                // Afresh: other storage for every record.
                entries = stride(from: 0, to: 400, by: random.int(in: 1...3)).map {
                    QueryResult.Entry(id: EntityID(UInt32($0)), record: EntityRecord(namespace: .todos, schema: .default))
                }
            } else {
                // A few entries replaced, inserted or removed; now and then an id named again in
                // another namespace.
                for _ in 0..<random.int(in: 0...4) {
                    let id = EntityID(UInt32(random.int(in: 0...450)))
                    let ns: NamespaceID = random.int(in: 0...149) == 0 ? .profiles : .todos
                    let e = QueryResult.Entry(id: id, record: EntityRecord(namespace: ns, schema: .default))
                    if let k = entries.firstIndex(where: { $0.id >= id }) {
                        if entries[k].id == id {
                            if random.int(in: 0...1) == 0 { entries[k] = e } else { entries.remove(at: k) }
                        } else {
                            entries.insert(e, at: k)
                        }
                    } else {
                        entries.append(e)
                    }
                }
            }
            let r = QueryResult(roots: [], entries: entries)
            let a = walked.claim(r, since: last)
            let b = whole.claim(r)
            #expect(a == b, "round \(round)")
            #expect(walked.namespaces == whole.namespaces && walked.mixed == whole.mixed, "round \(round)")
            mixedSeen = mixedSeen || a
            last = r
        }
        // Not vacuous: the claims became mixed, and most entries were passed over.
        #expect(mixedSeen)
        #expect(walked.passedByWords > 300 * 100)
    }
}
