/// The monitor's own copy of the entries a subscription showed at its last yield (`YieldMemo`),
/// brought up to date at each yield by a merge walk that also lists what changed.
///
/// Why a copy the monitor owns, and not the client's result itself (as before): a memo that
/// holds the client's entries buffer is a second reference to it, so the client's next in-place
/// patch of that view (`Query.patch`, `ViewPatch`: "uniquely referenced, patched in place")
/// copied the whole result, every record retained, and the memo's release of the old one freed
/// it again: two walks of every entry per yield, growing with the store. This copy shares the
/// records' storage with the client (no record is copied), lives in its own buffer, and is
/// edited where the result changed: a record replaced in place, an entry inserted or removed by
/// moving the others (no reference counting), or, when many entries come or go at once, built
/// again. Its content is always equal, entry by entry, to the result it was synchronised with,
/// so the entries listed as changed are exactly those the old walk (against the result itself)
/// listed.
struct ShownEntries: Sendable {
    private(set) var entries: [QueryResult.Entry] = []
    /// `entries` ascends strictly by id (every result a query builds does; the merge edits rely
    /// on it, and anything else is copied whole).
    private var ascending = true
    /// `sync`'s list of places to replace, kept between calls for its capacity.
    private var scratch: [Int32] = []

    /// More inserts and removals than this in one yield: the copy is built again (each edit moves
    /// the entries after it, about a word of work per entry moved; a rebuild retains and later
    /// releases every record's arrays, some tens of times that).
    private static var maxEdits: Int { 32 }

    /// A copy of `now` (the first yield of a subscription).
    init(copying now: [QueryResult.Entry]) {
        self.entries = Self.copy(now)
        self.ascending = Self.isAscending(now)
    }

    init() {}

    /// Appends to `changed` the id of each entry of `now` that is new or differs from the entry
    /// with its id here, in `now`'s order (the old walk's list), and makes this copy equal `now`.
    mutating func sync(to now: [QueryResult.Entry], changed: inout [EntityID]) {
        var edits = 0, aligned = entries.count == now.count
        // Aligned so far (same id at the same place): the places whose record differs.
        var replace = scratch
        scratch = []
        defer { replace.removeAll(keepingCapacity: true); scratch = replace }
        let nowAscending: Bool = now.withUnsafeBufferPointer { n in
            entries.withUnsafeBufferPointer { w in
                var j = 0
                var up = true
                for i in 0..<n.count {
                    let id = n[i].id
                    if i > 0 && n[i - 1].id >= id { up = false }
                    let j0 = j
                    while j < w.count && w[j].id < id { j += 1 }
                    edits += j - j0   // entries gone
                    if j < w.count && w[j].id == id {
                        if i != j { aligned = false }
                        if !Self.same(w[j].record, n[i].record) {
                            changed.append(id)
                            if aligned { replace.append(Int32(truncatingIfNeeded: i)) }
                        }
                    } else {
                        aligned = false
                        edits += 1    // a new entry
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
        guard ascending && nowAscending && edits <= Self.maxEdits else {
            entries = Self.copy(now)
            return
        }
        // Both ascend: one merge, editing in place.
        var j = 0
        now.withUnsafeBufferPointer { n in
            for i in 0..<n.count {
                let id = n[i].id
                var k = j
                while k < entries.count && entries[k].id < id { k += 1 }
                if k > j { entries.removeSubrange(j..<k) }
                if j < entries.count && entries[j].id == id {
                    if !Self.same(entries[j].record, n[i].record) { entries[j].record = n[i].record }
                } else {
                    entries.insert(n[i], at: j)
                }
                j += 1
            }
        }
        if j < entries.count { entries.removeSubrange(j..<entries.count) }
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

    /// Equal records: the same storage (both alive, so the same contents) is told without
    /// comparing values; anything else is compared by value.
    @inline(__always)
    static func same(_ a: EntityRecord, _ b: EntityRecord) -> Bool {
        if a.namespace == b.namespace && Self.identity(a.values) == Self.identity(b.values)
            && Self.identity(a.links) == Self.identity(b.links) && Self.identity(a.manyLinks) == Self.identity(b.manyLinks) {
            return true
        }
        return a == b
    }

    /// An array's buffer reference as a number: two arrays alive with the same one are one
    /// buffer, so equal (the count is the buffer's). (An array is that one reference.)
    @inline(__always)
    private static func identity<T>(_ a: [T]) -> UInt {
        unsafeBitCast(a, to: UInt.self)
    }
}
