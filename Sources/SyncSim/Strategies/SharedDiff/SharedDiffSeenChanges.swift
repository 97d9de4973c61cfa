/// The entities whose `seen` answer (what the client's collections show of them) may have
/// changed, each with the `shownVersion` it changed at: an overlay whose `seen` lookups held at
/// some version checks again only the lookups of the entities changed since.
///
/// Why: an overlay takes every entity a save needs and its answer lacks from the collections
/// (a save of every todo laid over the view of undone todos looks up each done one), and every
/// refresh after any view changed checked each such lookup again, reading every collection:
/// work growing with the collections on most events, although a view that changes changes at a
/// few entities. A view that changes is compared with the one it replaces (a walk over both,
/// records compared by identity first) and the entities where they differ are noted here; a
/// change this cannot describe entity by entity (a collection comes or goes, the user changes)
/// forgets everything before it (`floor`), so an overlay verified earlier checks every lookup.
struct SharedDiffSeenChanges {
    /// `shownVersion` of each change, ascending, and the entity it changed.
    var versions: [UInt64] = []
    var ids: [EntityID] = []
    /// Changes at versions up to this one are not listed.
    var floor: UInt64 = 0

    /// Entries the walk of `note(from:to:at:)` passed over by their bits or storage words (a test
    /// fails if this stops).
    var passedByWords = 0

    /// The most changes kept; past it the older half is forgotten (`floor` moves up).
    static let capacity = 4096

    /// Forgets every change up to `version`: what changed then is not known entity by entity.
    mutating func forget(upTo version: UInt64) {
        floor = version
        versions.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
    }

    /// Notes the entities where `new` differs from `old` (an entry added, removed or with
    /// another record), the view of one collection changing at `version`.
    mutating func note(from old: QueryResult?, to new: QueryResult, at version: UInt64) {
        if versions.count >= Self.capacity {
            // Drop the older half, never splitting one version's changes.
            let cut = versions[Self.capacity / 2 - 1]
            var k = 0
            while k < versions.count && versions[k] <= cut { k += 1 }
            versions.removeSubrange(0..<k)
            ids.removeSubrange(0..<k)
            floor = cut
        }
        let o = old?.entries ?? []
        let n = new.entries
        // Runs of entries with the same id and record storage (equal, so not noted) are passed
        // over a block at a time (one `memcmp`) or by their storage words, as
        // `SharedDiffOverlay.rebase` does: a view patched from the one it replaces keeps the
        // untouched entries' bits, and this walk ran over both whole views on every change.
        let words = QueryResult.Entry.storageWords
        var passed = 0
        defer { passedByWords &+= passed }
        o.withUnsafeBufferPointer { a in
            n.withUnsafeBufferPointer { b in
                var i = 0, j = 0
                while i < a.count || j < b.count {
                    if let words, i < a.count, j < b.count {
                        let ap = a.baseAddress.unsafelyUnwrapped, bp = b.baseAddress.unsafelyUnwrapped
                        let block = SharedDiffOverlay.rebaseBlock
                        let i0 = i
                        while i + block <= a.count && j + block <= b.count && words.sameBits(ap + i, bp + j, count: block) {
                            i += block
                            j += block
                        }
                        while i < a.count && j < b.count && words.sameStorage(ap + i, bp + j) {
                            i += 1
                            j += 1
                        }
                        passed &+= i - i0
                        if i == a.count && j == b.count { break }
                    }
                    if j == b.count || (i < a.count && a[i].id < b[j].id) {
                        add(a[i].id, version)
                        i += 1
                    } else if i == a.count || b[j].id < a[i].id {
                        add(b[j].id, version)
                        j += 1
                    } else {
                        if a[i].record != b[j].record { add(a[i].id, version) }
                        i += 1
                        j += 1
                    }
                }
            }
        }
    }

    /// `note(from:to:at:)` when `new` can differ from `old` only at the entities `ids` (each
    /// listed once): those of them where the two differ are noted, found by binary search in
    /// both instead of a walk over every entry of both. The same entities are noted (in the
    /// order of `ids`, which nothing reads: `changed(after:)` is a set of entities to check).
    ///
    /// Why: a view patched after a write differs from the one it replaces at a few entities, and
    /// the walk over a whole collection's entries ran on every yield of every view.
    /// Falls back to the walk when `ids` are not few next to the entries.
    mutating func note(from old: QueryResult?, to new: QueryResult, at version: UInt64, within ids: [EntityID]) {
        guard let old, ids.count * 8 < old.entries.count + new.entries.count else {
            note(from: old, to: new, at: version)
            return
        }
        if versions.count >= Self.capacity {
            note(from: old, to: new, at: version)
            return
        }
        old.entries.withUnsafeBufferPointer { a in
            new.entries.withUnsafeBufferPointer { b in
                for id in ids {
                    let i = Self.index(of: id, in: a), j = Self.index(of: id, in: b)
                    switch (i, j) {
                    case (nil, nil): continue
                    case (let i?, let j?): if a[i].record != b[j].record { add(id, version) }
                    default: add(id, version)
                    }
                }
            }
        }
    }

    /// The position of `id` among entries ascending by id, if there.
    @inline(__always)
    static func index(of id: EntityID, in b: UnsafeBufferPointer<QueryResult.Entry>) -> Int? {
        var lo = 0, hi = b.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if b[mid].id == id { return mid }
            if b[mid].id < id { lo = mid + 1 } else { hi = mid }
        }
        return nil
    }

    @inline(__always)
    private mutating func add(_ id: EntityID, _ version: UInt64) {
        versions.append(version)
        ids.append(id)
    }

    /// The entities changed after `version` (each as often as it changed), or nil when changes
    /// from then on are not all listed.
    func changed(after version: UInt64) -> ArraySlice<EntityID>? {
        guard version >= floor else { return nil }
        var lo = 0, hi = versions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if versions[mid] <= version { lo = mid + 1 } else { hi = mid }
        }
        return ids[lo...]
    }
}
