import Testing
@testable import SyncSim

/// `InstantClient.CachedResult` keeps its parts in one shared box: it must still behave as the
/// plain value it replaced (setters change only the copy set, equality and hashing by parts).
@Suite("Instant cached result")
struct InstantCachedResultTests {
    static func result(_ titles: [String]) -> QueryResult {
        var store = EntityStore()
        for (i, t) in titles.enumerated() {
            _ = store.apply(.create(EntityID(UInt32(i + 1)), .todos, [FieldAssignment(.title, .string(t))]), schema: .default)
        }
        return Query(.todos).evaluate(store)
    }

    @Test func aSetterChangesOnlyTheCopyItIsCalledOn() {
        let a = InstantClient.CachedResult(query: Query(.todos), result: Self.result(["a"]), processedTxID: 3)
        var b = a
        b.result = Self.result(["a", "b"])
        var c = a
        c.processedTxID = 4
        var d = a
        d.query = Query(.posts)
        #expect(a.result == Self.result(["a"]) && a.processedTxID == 3 && a.query == Query(.todos))
        #expect(b.result == Self.result(["a", "b"]) && b.processedTxID == 3 && b.query == Query(.todos))
        #expect(c.processedTxID == 4 && c.result == a.result && c.query == a.query)
        #expect(d.query == Query(.posts) && d.result == a.result && d.processedTxID == 3)
        #expect(a != b && a != c && a != d)
    }

    @Test func equalPartsAreEqualValuesWithEqualHashes() {
        // Two boxes built apart (not one shared box) must compare and hash by their parts.
        let a = InstantClient.CachedResult(query: Query(.todos), result: Self.result(["x", "y"]), processedTxID: 7)
        let b = InstantClient.CachedResult(query: Query(.todos), result: Self.result(["x", "y"]), processedTxID: 7)
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a.caches(Query(.todos)) && !a.caches(Query(.posts)))
        #expect(Set([a, b]).count == 1)
    }
}
