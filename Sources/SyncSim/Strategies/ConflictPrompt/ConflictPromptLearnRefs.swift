/// What the conflictPrompt client's `learn` compares a list's next answer with: per query group,
/// the last answer it learnt for a list of that group, and the entities whose known copy or
/// version changed since (`log`).
///
/// Why: `learn` keeps each entry of every answer as the newest known copy of its entity. Every
/// answer carries whole lists, so reading `known` and its versions for every entry was a walk
/// over the whole answer per list per message, a cost per event that grew with the store
/// (about 4.5k instructions per event on seed 1's default run at 3,000 actions). A list's next
/// answer is mostly its last one: the server patches a bit-for-bit copy of its last result and
/// keeps the versions of untouched entries (`CPServerVersions`).
///
/// Why it is exact: right after an answer is learnt, `learn` changes nothing for any of its
/// entries (the debug build checks it after every learn through here), and what decides that
/// for an entry is its entity's known record (by storage) and version, nothing else. So an
/// entry of the next answer with the same id, the same record box and the same version as an
/// entry of the kept answer is one `learn` changes nothing for, unless its entity's known copy
/// or version changed since: those entities are logged (`note`, from `setKnown`, `applyKnown`
/// and `setVersion`; `epoch` tells a change of `known` made around them, which forgets every
/// kept answer). The entries left (`candidates`) are checked as before, in ascending order, so
/// `known`, its versions and the redraw log change as in the full walk. Kept answers are
/// strictly ascending by id (checked), so no entity appears twice in one.
///
/// Derived, never observable; lost with the client on a restart.
struct CPLearnRefs: Sendable {
    struct Ref: Sendable {
        var group: Int
        var snap: CPSnapshot
        /// `log.count` when `snap` was learnt: the entities changed since are `log[mark...]`.
        var mark: Int
    }

    var refs: [Ref] = []
    /// Entities whose known copy or version changed since the oldest kept answer was learnt
    /// (kept only while some answer is kept).
    var log: [EntityID] = []
    /// The client's `knownEpoch` after the last change of `known` made through a logged path.
    var epoch: UInt64 = 0
    /// `learn`'s entries to check, kept for its capacity.
    var candidates: [Int] = []
    /// Entries passed without reading `known` (tests: the shortcut must run).
    var passed = 0

    /// Entries passed with one bit comparison of entries and one of versions.
    static let block = 16
    /// Kept answers at most (lists of queries no longer open leave theirs behind).
    static let maxRefs = 64
    /// A kept answer is dropped once a quarter of this many changes were logged after it.
    static let maxLog = 4096

    /// Logs a change of `e`'s known copy or version.
    mutating func note(_ e: EntityID) {
        if !refs.isEmpty { log.append(e) }
    }

    /// Drops every kept answer: `known` changed around the log.
    mutating func forget(knownEpoch: UInt64) {
        refs.removeAll()
        log.removeAll(keepingCapacity: true)
        epoch = knownEpoch
    }

    /// Fills `candidates` (ascending) with the entries of `snap` that `learn` must check,
    /// compared with the kept answer of `group`; false when there is none to compare with or
    /// the comparison does not hold (then every entry is checked).
    mutating func select(_ snap: CPSnapshot, group: Int, into candidates: inout [Int]) -> Bool {
        guard let r = refs.firstIndex(where: { $0.group == group }) else { return false }
        let n = snap.result.entries.count
        let mark = refs[r].mark
        guard snap.versions.count == n, log.count - mark <= n / 2 else { return false }
        guard Self.walk(snap, refs[r].snap, into: &candidates, passed: &passed) else {
            candidates.removeAll(keepingCapacity: true)
            return false
        }
        if mark < log.count {
            for t in mark..<log.count {
                if let k = ConflictPromptClient.entryIndex(of: log[t], in: snap.result) { candidates.append(k) }
            }
            candidates.sort()
            var w = 0
            for k in candidates.indices where w == 0 || candidates[k] != candidates[w - 1] {
                candidates[w] = candidates[k]
                w += 1
            }
            candidates.removeLast(candidates.count - w)
        }
        return true
    }

    /// Keeps `snap`, just learnt, as `group`'s answer to compare the next with: when it is
    /// strictly ascending by id (`verified`: `walk` found so) with one version per entry.
    mutating func keep(_ snap: CPSnapshot, group: Int, verified: Bool) {
        // Kept answers with more changes since than a comparison takes are dropped, and the
        // log's prefix that no kept answer reads with them (so the log stays short).
        if log.count > Self.maxLog / 4 { refs.removeAll { log.count - $0.mark > Self.maxLog / 4 } }
        let low = refs.reduce(log.count) { min($0, $1.mark) }
        if low > 0 && low >= log.count / 2 {
            log.removeFirst(low)
            for k in refs.indices { refs[k].mark -= low }
        }
        let r = refs.firstIndex(where: { $0.group == group })
        guard snap.versions.count == snap.result.entries.count, verified || Self.ascending(snap.result.entries) else {
            if let r { refs.remove(at: r) }
            return
        }
        let ref = Ref(group: group, snap: snap, mark: log.count)
        if let r {
            refs[r] = ref
        } else {
            if refs.count >= Self.maxRefs { refs.removeFirst() }
            refs.append(ref)
        }
    }

    /// Whether the ids of `entries` are strictly ascending.
    static func ascending(_ entries: [QueryResult.Entry]) -> Bool {
        entries.withUnsafeBufferPointer { b in
            var k = 1
            while k < b.count {
                if !(b[k - 1].id < b[k].id) { return false }
                k += 1
            }
            return true
        }
    }

    /// Appends to `candidates` (ascending) every entry of `snap` that is not, by id, record
    /// box and version, an entry of `ref` (strictly ascending); false when `snap`'s entries are
    /// not strictly ascending. Runs of entries with the same bits in both, and versions with
    /// the same values, are passed a block at a time (they are the same ids, so ascending as
    /// `ref`'s); the others by a merge walk by id.
    static func walk(_ snap: CPSnapshot, _ ref: CPSnapshot, into candidates: inout [Int], passed: inout Int) -> Bool {
        guard let words = QueryResult.Entry.storageWords else { return false }
        let ne = snap.result.entries, nv = snap.versions, re = ref.result.entries, rv = ref.versions
        let n = ne.count, rn = re.count
        guard nv.count == n, rv.count == rn else { return false }
        if n == 0 { return true }
        return ne.withUnsafeBufferPointer { nb in
            nv.withUnsafeBufferPointer { nvb in
                re.withUnsafeBufferPointer { rb in
                    rv.withUnsafeBufferPointer { rvb -> Bool in
                        let e0 = nb.baseAddress.unsafelyUnwrapped, v0 = nvb.baseAddress.unsafelyUnwrapped
                        // The kept answer itself (one storage for entries and versions).
                        if n == rn && e0 == rb.baseAddress && v0 == rvb.baseAddress {
                            passed += n
                            return true
                        }
                        var i = 0, j = 0
                        while j < n {
                            if j > 0 && !(nb[j - 1].id < nb[j].id) { return false }
                            if i + block <= rn && j + block <= n {
                                let r0 = rb.baseAddress.unsafelyUnwrapped, rv0 = rvb.baseAddress.unsafelyUnwrapped
                                let j0 = j
                                while i + block <= rn && j + block <= n && words.sameBits(r0 + i, e0 + j, count: block)
                                        && sameWords(rv0 + i, v0 + j, count: block) {
                                    i += block
                                    j += block
                                }
                                if j != j0 {
                                    passed += j - j0
                                    continue
                                }
                            }
                            let id = nb[j].id
                            while i < rn && rb[i].id < id { i += 1 }
                            if i < rn && rb[i].id == id {
                                if words.sameStorage(rb.baseAddress.unsafelyUnwrapped + i, e0 + j) && rvb[i] == nvb[j] {
                                    passed += 1
                                } else {
                                    candidates.append(j)
                                }
                                i += 1
                            } else {
                                candidates.append(j)
                            }
                            j += 1
                        }
                        return true
                    }
                }
            }
        }
    }

    /// Whether `count` words from `a` and from `b` are equal (one pass, no early exit).
    @inline(__always)
    static func sameWords(_ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>, count: Int) -> Bool {
        var d: UInt64 = 0
        for t in 0..<count { d |= a[t] ^ b[t] }
        return d == 0
    }
}
