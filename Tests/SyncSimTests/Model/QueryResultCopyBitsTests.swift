import Testing
@testable import SyncSim

/// `QueryResult.copyBits` (the copy `unshareEntries` makes of a large answer before the server
/// patches it): the copy is equal, bit for bit the same (so the walks over a patched answer
/// pass its blocks with `StorageWords.sameBits`), and holds exactly one reference to each
/// record's box (a missing retain would free a box still in use, an extra one would leak it).
@Suite struct QueryResultCopyBitsTests {
    /// `n` entries, each record in a box of its own that nothing else holds.
    static func entries(_ n: Int) -> [QueryResult.Entry] {
        (0..<n).map { i in
            var r = EntityRecord(namespace: .todos, schema: .default)
            r[.title] = .string("todo \(i)")
            r[.done] = .bool(i % 2 == 0)
            return QueryResult.Entry(id: EntityID(UInt32(i * 3)), record: r)
        }
    }

    @Test func theCopyIsEqualAndTheSameBits() throws {
        let words = try #require(QueryResult.Entry.storageWords)
        let original = Self.entries(100)
        let copy = QueryResult.copyBits(of: original, extra: 5, words: words)
        #expect(copy == original)
        #expect(copy.capacity >= 105)
        let same = original.withUnsafeBufferPointer { a in
            copy.withUnsafeBufferPointer { b in
                a.baseAddress != b.baseAddress && words.sameBits(a.baseAddress!, b.baseAddress!, count: 100)
            }
        }
        #expect(same)
    }

    /// Once the original is gone, the copy is each box's only holder: the copy retained each box
    /// exactly once. (Under-retained, the boxes would have been freed with the original.)
    @Test func theCopyHoldsOneReferencePerBox() throws {
        let words = try #require(QueryResult.Entry.storageWords)
        var original: [QueryResult.Entry]? = Self.entries(64)
        var copy = QueryResult.copyBits(of: original!, extra: 0, words: words)
        for k in copy.indices { #expect(!isKnownUniquelyReferenced(&copy[k].record.slots), "entry \(k): shared with the original") }
        original = nil
        for k in copy.indices {
            #expect(isKnownUniquelyReferenced(&copy[k].record.slots), "entry \(k): a box held twice (leaked)")
            #expect(copy[k].record[.title] == .string("todo \(k)"))
        }
        // Writing a record of the copy writes its own box (nothing else holds it).
        let before = ObjectIdentifier(copy[3].record.slots)
        copy[3].record[.title] = .string("changed")
        #expect(ObjectIdentifier(copy[3].record.slots) == before)
    }

    /// `sameBits` says false when an entry's record is in another box, even an equal one.
    @Test func otherBoxesAreOtherBits() throws {
        let words = try #require(QueryResult.Entry.storageWords)
        let a = Self.entries(20)
        var b = QueryResult.copyBits(of: a, extra: 0, words: words)
        b[7].record = EntityRecord(namespace: b[7].record.namespace, values: b[7].record.values,
                                   links: b[7].record.links, manyLinks: b[7].record.manyLinks)
        #expect(a == b)
        let same = a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in words.sameBits(x.baseAddress!, y.baseAddress!, count: 20) } }
        #expect(!same)
        let before = a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in words.sameBits(x.baseAddress!, y.baseAddress!, count: 7) } }
        #expect(before)
    }

    /// `unshareEntries` takes the bitwise copy from `bitwiseCopyMinimum` entries on, and the
    /// typed loop below it; either way the value and its digest are kept.
    @Test(arguments: [QueryResult.bitwiseCopyMinimum - 1, QueryResult.bitwiseCopyMinimum, 200])
    func unsharingKeepsTheValueAtEitherSize(n: Int) {
        var store = EntityStore()
        for i in 1...n { _ = store.apply(.create(EntityID(UInt32(i)), .todos, [FieldAssignment(.title, .string("t\(i)"))]), schema: .default) }
        var a = Query(.todos).evaluate(store)
        a.cacheDigest()
        var b = a
        b.unshareEntries(extra: 3)
        #expect(a == b && b.hasCachedDigest && b.digest == a.digest)
        #expect(b._entries.capacity >= n + 3)
        let distinct = a._entries.withUnsafeBufferPointer { x in b._entries.withUnsafeBufferPointer { y in x.baseAddress != y.baseAddress } }
        #expect(distinct)
        #expect(b == Query(.todos).evaluate(store))
    }
}
