import Foundation   // memcmp

/// The monitor's own copy of the entries a subscription showed at its last yield (`YieldMemo`),
/// brought up to date at each yield by a merge walk that also lists what changed.
///
/// Why a copy the monitor owns, and not the client's result itself (as before): a memo that
/// holds the client's entries buffer is a second reference to it, so the client's next in-place
/// patch of that view (`Query.patch`, `ViewPatch`: "uniquely referenced, patched in place")
/// copied the whole result, every record retained, and the memo's release of the old one freed
/// it again: two walks of every entry per yield, growing with the store. This copy shares the
/// records' storage with the client (no record is copied), lives in its own buffer, and is
/// edited where the result changed: a record replaced in place, runs of entries removed and
/// inserted (moves, not copies: reference counting only for what changed). Because the records
/// are shared, an unchanged entry is told by its words alone (id, namespace, storage
/// references), so a yield costs a tight walk plus its changes. Its content is always equal,
/// entry by entry, to the result it was synchronised with, so the entries listed as changed are
/// exactly those the old walk (against the result itself) listed.
struct ShownEntries: Sendable {
    private(set) var entries: [QueryResult.Entry] = []
    /// `entries` ascends strictly by id (every result a query builds does; the merge relies on
    /// it, and anything else is copied whole).
    private var ascending = true
    /// `sync`'s lists (places to replace, new entries), kept between calls for their capacity.
    private var scratch: [Int32] = []
    private var scratchEntries: [QueryResult.Entry] = []
    private var scratchRemovals: [Int32] = []
    private var scratchInserts: [Int32] = []
    private var scratchRefresh: [Int32] = []
    /// How many blocks `sync` passed with one `memcmp` so far (for the tests that assert the
    /// fast path is taken).
    private(set) var blockPasses = 0

    /// A copy of `now` (the first yield of a subscription).
    init(copying now: [QueryResult.Entry]) {
        self.entries = Self.copy(now)
        self.ascending = Self.isAscending(now)
        if !now.isEmpty {
            entries.withUnsafeMutableBufferPointer { w in
                now.withUnsafeBufferPointer { n in Self.copyBits(to: w.baseAddress!, from: n.baseAddress!, count: n.count) }
            }
        }
    }

    init() {}

    /// Appends to `changed` the id of each entry of `now` that is new or differs from the entry
    /// with its id here, in `now`'s order (the old walk's list), and makes this copy equal `now`.
    ///
    /// One walk of both lists that tells an unchanged entry by its bits (`sameStorage`: the
    /// same id, namespace and storage references, the usual case, since this copy shares the
    /// client's records) and only otherwise compares records, then the few edits that walk found
    /// (records replaced in place, runs of entries removed and inserted, each a move of the
    /// entries after it: no reference counting for entries that stay). Many scattered edits, or
    /// a result that does not ascend, go through `syncByMerge` (the general merge, exact for any
    /// input). The list and the copy are exactly `syncByMerge`'s (tests compare them).
    mutating func sync(to now: [QueryResult.Entry], changed: inout [EntityID]) {
        guard ascending, let layout = Self.layout else {
            syncByMerge(to: now, changed: &changed)
            return
        }
        let start = changed.count
        var edits = scratch   // replacements as (old, now) pairs, then removals, then insertions
        scratch = []
        defer { if !edits.isEmpty { edits.removeAll(keepingCapacity: true) }; scratch = edits }
        var removals: [Int32] = []
        swap(&removals, &scratchRemovals)
        defer { if !removals.isEmpty { removals.removeAll(keepingCapacity: true) }; swap(&removals, &scratchRemovals) }
        var inserts: [Int32] = []
        swap(&inserts, &scratchInserts)
        defer { if !inserts.isEmpty { inserts.removeAll(keepingCapacity: true) }; swap(&inserts, &scratchInserts) }
        // Whole blocks found the same storage entry by entry (not bit for bit), as (old, now)
        // places: their bits are taken from the client's after the walk, so the next yield
        // passes them with `memcmp` while the client leaves them where they are.
        var refresh: [Int32] = []
        swap(&refresh, &scratchRefresh)
        defer { if !refresh.isEmpty { refresh.removeAll(keepingCapacity: true) }; swap(&refresh, &scratchRefresh) }
        // Runs of removals and of insertions (each costs a move of the entries after it).
        var runs = 0
        var blocks = true
        var passed = 0
        defer { blockPasses &+= passed }
        let up: Bool = now.withUnsafeBufferPointer { n in
            entries.withUnsafeBufferPointer { w in
                var i = 0, j = 0
                let nc = n.count, wc = w.count
                while i < nc {
                    // A run of entries unchanged since the last yield, in step with the copy,
                    // told by their words alone. Only its first entry is checked to follow the
                    // entry before it: the rest ascend because the copy's ids, equal to theirs,
                    // ascend strictly. (The check per entry was a fifth of the walk.)
                    if j < wc && layout.sameStorage(w.baseAddress.unsafelyUnwrapped + j, n.baseAddress.unsafelyUnwrapped + i) {
                        if i > 0 && n[i - 1].id >= n[i].id { return false }
                        let wb = w.baseAddress.unsafelyUnwrapped, nb = n.baseAddress.unsafelyUnwrapped
                        i += 1; j += 1
                        // Whole blocks the same bit for bit are passed with one `memcmp` (a
                        // few instructions per entry, where the words took a dozen): the
                        // copy holds the client's bytes (`copyBits`), and an entry the client
                        // left alone keeps them. Else entry by entry through the block.
                        while i < nc && j < wc {
                            var tried = false
                            if blocks && i + Self.block <= nc && j + Self.block <= wc {
                                if memcmp(wb + j, nb + i, Self.blockBytes) == 0 { i += Self.block; j += Self.block; passed += 1; continue }
                                tried = true
                            }
                            let end = Swift.min(nc - i, wc - j, Self.block)
                            var k = 0
                            while k < end && layout.sameStorage(wb + j + k, nb + i + k) { k += 1 }
                            if k == Self.block && (tried || !blocks) {
                                refresh.append(Int32(truncatingIfNeeded: j))
                                refresh.append(Int32(truncatingIfNeeded: i))
                            }
                            i += k; j += k
                            if k < end { break }
                            // Same storage but other bytes (entries the client copied, padding
                            // and all): blocks would keep failing, so none more this time.
                            if tried { blocks = false }
                        }
                        if i == nc { break }
                    }
                    let id = n[i].id
                    if i > 0 && n[i - 1].id >= id { return false }
                    if j < wc && w[j].id < id {
                        runs += 1
                        repeat { removals.append(Int32(truncatingIfNeeded: j)); j += 1 } while j < wc && w[j].id < id
                    }
                    if j < wc && w[j].id == id {
                        if w[j].record != n[i].record {
                            changed.append(id)
                            edits.append(Int32(truncatingIfNeeded: j))
                            edits.append(Int32(truncatingIfNeeded: i))
                        } else if !layout.sameStorage(w.baseAddress.unsafelyUnwrapped + j, n.baseAddress.unsafelyUnwrapped + i) {
                            // Equal, in other storage: the copy takes the client's (not a
                            // change), so the next yield tells it by its words, not its values.
                            edits.append(Int32(truncatingIfNeeded: j))
                            edits.append(Int32(truncatingIfNeeded: i))
                        }
                        j += 1
                    } else {
                        changed.append(id)
                        if inserts.last.map({ $0 != Int32(truncatingIfNeeded: i - 1) }) ?? true { runs += 1 }
                        inserts.append(Int32(truncatingIfNeeded: i))
                    }
                    i += 1
                }
                if j < wc {
                    runs += 1
                    while j < wc { removals.append(Int32(truncatingIfNeeded: j)); j += 1 }
                }
                return true
            }
        }
        guard up, runs <= Self.directRuns else {
            changed.removeSubrange(start...)
            syncByMerge(to: now, changed: &changed)
            return
        }
        if !refresh.isEmpty {
            // (Before any removal or insertion: the places are those of the walk.)
            entries.withUnsafeMutableBufferPointer { w in
                now.withUnsafeBufferPointer { n in
                    var k = 0
                    while k < refresh.count {
                        Self.copyBits(to: w.baseAddress! + Int(refresh[k]), from: n.baseAddress! + Int(refresh[k + 1]), count: Self.block)
                        k += 2
                    }
                }
            }
        }
        if !edits.isEmpty {
            entries.withUnsafeMutableBufferPointer { w in
                now.withUnsafeBufferPointer { n in
                    var k = 0
                    while k < edits.count {
                        w[Int(edits[k])].record = n[Int(edits[k + 1])].record
                        Self.copyBits(to: w.baseAddress! + Int(edits[k]), from: n.baseAddress! + Int(edits[k + 1]), count: 1)
                        k += 2
                    }
                }
            }
        }
        // Removals, last run first (earlier places stay valid).
        var r = removals.count
        while r > 0 {
            let hi = Int(removals[r - 1])
            var lo = hi
            r -= 1
            while r > 0 && Int(removals[r - 1]) == lo - 1 { lo -= 1; r -= 1 }
            entries.removeSubrange(lo...hi)
        }
        // Insertions, first run first: `now`'s entries before a run are in place by then.
        var s = 0
        while s < inserts.count {
            let lo = Int(inserts[s])
            var hi = lo
            s += 1
            while s < inserts.count && Int(inserts[s]) == hi + 1 { hi += 1; s += 1 }
            entries.insert(contentsOf: now[lo...hi], at: lo)
            entries.withUnsafeMutableBufferPointer { w in
                now.withUnsafeBufferPointer { n in Self.copyBits(to: w.baseAddress! + lo, from: n.baseAddress! + lo, count: hi - lo + 1) }
            }
        }
        assert(entries.count == now.count && zip(entries, now).allSatisfy { $0.id == $1.id && $0.record == $1.record },
               "ShownEntries out of step with the result")
    }

    /// Entries `sync` compares a block at a time, bit for bit (`memcmp`), within a run of
    /// entries unchanged since the last yield.
    static let block = 16
    static let blockBytes = block * MemoryLayout<QueryResult.Entry>.stride

    /// Makes `count` entries of the copy bit for bit the client's they were copied from (their
    /// padding too, which a typed copy leaves as it was), so `sync` can compare them a block at
    /// a time. Only for entries that already hold the very same id, namespace and storage
    /// references as their source: the bytes written over them change no reference count.
    @inline(__always)
    static func copyBits(to w: UnsafeMutablePointer<QueryResult.Entry>, from n: UnsafePointer<QueryResult.Entry>, count: Int) {
        UnsafeMutableRawPointer(w).copyMemory(from: UnsafeRawPointer(n), byteCount: count * MemoryLayout<QueryResult.Entry>.stride)
    }

    /// The most runs of removed or inserted entries `sync` applies one by one (each moves the
    /// entries after it); more go through `syncByMerge`, which moves each entry once.
    static let directRuns = 8

    /// How `sync` tells two entries are the same id in the same storage in a few word
    /// comparisons (`QueryResult.Entry.StorageWords`), found once (nil: `sync` always merges).
    static let layout: QueryResult.Entry.StorageWords? = QueryResult.Entry.storageWords

    /// `sync` by a merge walk for any input (`sync`'s general path, and its reference in tests):
    /// lists the same ids and leaves the same copy.
    mutating func syncByMerge(to now: [QueryResult.Entry], changed: inout [EntityID]) {
        var aligned = entries.count == now.count
        // Aligned so far (same id at the same place): the places whose record differs.
        var replace = scratch
        scratch = []
        defer { if !replace.isEmpty { replace.removeAll(keepingCapacity: true) }; scratch = replace }
        let nowAscending: Bool = now.withUnsafeBufferPointer { n in
            entries.withUnsafeBufferPointer { w in
                var j = 0
                var up = true
                for i in 0..<n.count {
                    let id = n[i].id
                    if i > 0 && n[i - 1].id >= id { up = false }
                    while j < w.count && w[j].id < id { j += 1 }
                    if j < w.count && w[j].id == id {
                        if i != j { aligned = false }
                        if w[j].record != n[i].record {  // same storage told first (`EntityRecord ==`)
                            changed.append(id)
                            if aligned { replace.append(Int32(truncatingIfNeeded: i)) }
                        }
                    } else {
                        aligned = false
                        changed.append(id)
                    }
                }
                return up
            }
        }
        defer { ascending = nowAscending }
        if aligned {
            // Same ids at the same places: only the records listed to replace (none, usually).
            if replace.isEmpty { return }
            entries.withUnsafeMutableBufferPointer { w in
                now.withUnsafeBufferPointer { n in
                    for i in replace { w[Int(i)].record = n[Int(i)].record }
                }
            }
            return
        }
        guard ascending && nowAscending else {
            entries = Self.copy(now)
            return
        }
        // Both ascend: (1) the entries that stay move forward over those that leave (swaps: no
        // reference counting), their records replaced where they differ; (2) the new entries
        // are merged in from the back, each moved once. Work: a few words per entry, and
        // reference counting only for what changed (a rebuild retained every record).
        var kept = 0
        entries.withUnsafeMutableBufferPointer { w in
            now.withUnsafeBufferPointer { n in
                var i = 0
                for j in 0..<w.count {
                    let id = w[j].id
                    while i < n.count && n[i].id < id { i += 1 }
                    guard i < n.count && n[i].id == id else { continue }
                    if kept != j { w.swapAt(kept, j) }
                    if w[kept].record != n[i].record { w[kept].record = n[i].record }
                    kept += 1
                }
            }
        }
        if kept < entries.count { entries.removeSubrange(kept...) }
        var fresh = scratchEntries
        scratchEntries = []
        defer { fresh.removeAll(keepingCapacity: true); scratchEntries = fresh }
        now.withUnsafeBufferPointer { n in
            entries.withUnsafeBufferPointer { w in
                var p = 0
                for i in 0..<n.count {
                    if p < w.count && w[p].id == n[i].id { p += 1 } else { fresh.append(n[i]) }
                }
            }
        }
        guard !fresh.isEmpty else { return }
        let total = kept + fresh.count
        entries.append(contentsOf: fresh)   // room at the end (overwritten below)
        entries.withUnsafeMutableBufferPointer { w in
            var a = kept - 1, b = fresh.count - 1, p = total - 1
            while b >= 0 {
                if a >= 0 && w[a].id > fresh[b].id {
                    w.swapAt(p, a)
                    a -= 1
                } else {
                    w[p] = fresh[b]
                    b -= 1
                }
                p -= 1
            }
        }
        assert(entries.count == now.count && zip(entries, now).allSatisfy { $0.id == $1.id && $0.record == $1.record },
               "ShownEntries out of step with the result")
    }

    /// A copy in a buffer of its own (`Array(now)` would share `now`'s).
    private static func copy(_ now: [QueryResult.Entry]) -> [QueryResult.Entry] {
        var out: [QueryResult.Entry] = []
        out.reserveCapacity(now.count)
        now.withUnsafeBufferPointer { out.append(contentsOf: $0) }
        return out
    }

    private static func isAscending(_ a: [QueryResult.Entry]) -> Bool {
        a.withUnsafeBufferPointer { b in
            for i in b.indices.dropFirst() where b[i - 1].id >= b[i].id { return false }
            return true
        }
    }
}
