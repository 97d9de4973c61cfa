/// The conflictPrompt server's versions of a kept list (`ConflictPromptServer.SharedList.versions`:
/// the `modified` of each entry of its result), brought up to date where they changed.
///
/// Why: every snapshot a message carries needs the `modified` of every entry it holds. Looked up
/// entry by entry for each snapshot sent (a realtime push of a changed list, every fetch of
/// every list), that was a walk over the whole answer per list per message, a cost per event
/// that grew with the store (about 3.7k instructions per event on seed 1's default run at 3,000
/// actions). A list now keeps its versions beside its result: a commit changes the `modified` of
/// the entities it stamps only (`restamp`), and a patch of the result moves entries, inserts a
/// few and drops a few (`realign`, which passes the untouched runs by their bits).
enum CPServerVersions {
    /// Entries `realign` passes with one bit comparison (`QueryResult.Entry.StorageWords.sameBits`).
    static let block = 16

    /// The versions of `new`'s entries, from `old` (the versions of `from`'s entries, each the
    /// current `modified` of its entity unless a commit since stamped it, which `restamp` sets
    /// after) and `modified` for the entries `from` lacks. `new` is `from` patched: a block of
    /// entries with the same bits in both (the server patches a bit-for-bit copy,
    /// `QueryResult.copyBits`) is the same ids, so takes the same versions in one copy; other
    /// entries take the version of the same id in `from`, found by a merge walk (both are
    /// ascending by id; if one were not, an id the walk misses is looked up, which is right
    /// too).
    static func realign(_ old: [UInt64], from: QueryResult, to new: QueryResult, modified: [UInt64]) -> [UInt64] {
        let oe = from.entries, ne = new.entries
        let n = ne.count
        guard old.count == oe.count else { return ne.map { version($0.id, modified) } }
        let words = QueryResult.Entry.storageWords
        return oe.withUnsafeBufferPointer { ob in
            ne.withUnsafeBufferPointer { nb in
                old.withUnsafeBufferPointer { vb in
                    [UInt64](unsafeUninitializedCapacity: n) { out, count in
                        var i = 0, j = 0
                        while j < n {
                            if let words {
                                let o = ob.baseAddress.unsafelyUnwrapped, e = nb.baseAddress.unsafelyUnwrapped
                                while i + block <= ob.count && j + block <= n && words.sameBits(o + i, e + j, count: block) {
                                    (out.baseAddress.unsafelyUnwrapped + j).initialize(from: vb.baseAddress.unsafelyUnwrapped + i, count: block)
                                    i += block
                                    j += block
                                }
                                if j == n { break }
                            }
                            let id = nb[j].id
                            while i < ob.count && ob[i].id < id { i += 1 }
                            if i < ob.count && ob[i].id == id {
                                out[j] = vb[i]
                                i += 1
                            } else {
                                out[j] = version(id, modified)
                            }
                            j += 1
                        }
                        count = n
                    }
                }
            }
        }
    }

    /// Sets the version of each entity of `stamped` that `r` holds to its `modified` (`v` the
    /// versions of `r`'s entries), writing only where it differs: `v` is shared with the
    /// snapshots already sent, and a write copies it.
    static func restamp(_ v: inout [UInt64], of r: QueryResult, _ stamped: [EntityID], modified: [UInt64]) {
        for e in stamped {
            guard let k = ConflictPromptClient.entryIndex(of: e, in: r), k < v.count else { continue }
            let now = version(e, modified)
            if v[k] != now { v[k] = now }
        }
    }

    /// `ConflictPromptServer.modified(e)` over the server's array.
    @inline(__always)
    static func version(_ e: EntityID, _ modified: [UInt64]) -> UInt64 {
        Int(e.raw) < modified.count ? modified[Int(e.raw)] : 0
    }
}
