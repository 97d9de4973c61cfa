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
}
