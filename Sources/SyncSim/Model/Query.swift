import Foundation   // memcmp

/// A subscription's query: one namespace, a `where` (today's equality `filter` and/or a richer
/// `condition`), an optional `limit`, and a tree of includes (`posts` with their `author`, the
/// author's `posts`, their `comments`, …) over links of either cardinality (`notes` with their
/// `tags`).
///
/// Filtered, limited queries and link-reached entities are the *partial views* of seed 001: a
/// view that shows only some of a namespace's entities.
///
/// `limit` keeps the first `limit` matching roots **in id order**. Seed 002 says InstantDB orders
/// by each triple's `createdAt` unless told otherwise ("Timestamp tracking"); the simulator's
/// entity ids are its stand-in for creation order (generated ids are dense in creation order), so
/// id order is the deterministic order that says the same. Children are those of the kept roots.
public struct Query: Hashable, Sendable, CustomStringConvertible, StableHashable {
    public enum Include: Hashable, Sendable {
        /// Follow the link forward: `posts` → their `author` profile.
        case forward(LinkID)
        /// Follow the link backward: `profiles` → the `posts` whose author they are (nested children).
        case reverse(LinkID)
    }

    public var namespace: NamespaceID
    /// Today's one-equality `where` (`todos where done == false`).
    public var filter: FieldAssignment?
    /// The richer part of the `where`, ANDed with `filter`: comparisons, `$in`, `and`/`or`.
    public var condition: QueryCondition?
    /// At most this many roots, the first in id order (see the type's comment); nil: all.
    public var limit: Int?
    /// The include tree, siblings in canonical order (`IncludeNode.canonicalOrder`).
    public var includes: [IncludeNode]

    /// The first include of the first level (what one-level queries have); setting it replaces
    /// the whole tree by that one level, and nil removes every include.
    public var include: Include? {
        get { includes.first?.link }
        set { includes = newValue.map { [IncludeNode($0)] } ?? [] }
    }

    public init(_ namespace: NamespaceID, where filter: FieldAssignment? = nil, include: Include? = nil) {
        self.namespace = namespace
        self.filter = filter
        self.condition = nil
        self.limit = nil
        self.includes = include.map { [IncludeNode($0)] } ?? []
    }

    /// A query with the richer parts: a condition, a limit and an include tree.
    public init(_ namespace: NamespaceID, where filter: FieldAssignment? = nil, condition: QueryCondition?,
                limit: Int? = nil, includes: [IncludeNode] = []) {
        self.namespace = namespace
        self.filter = filter
        self.condition = condition
        self.limit = limit
        self.includes = includes.sorted(by: IncludeNode.canonicalOrder)
    }

    /// The namespace of the linked entities this query reaches in `schema`, if any.
    /// (The first level's first include: use `reachedNamespaces(in:)` for the whole tree.)
    public func includedNamespace(in schema: Schema) -> NamespaceID? {
        switch include {
        case .forward(let l)? where schema.contains(l): return schema.target(of: l)
        case .reverse(let l)? where schema.contains(l): return schema.source(of: l)
        default: return nil
        }
    }

    /// True if every entity of `ns` on the server would appear in this query's result (no filter,
    /// not reached through a link). Views for which this is false are partial.
    public func seesAll(of ns: NamespaceID) -> Bool { ns == namespace && filter == nil && condition == nil && limit == nil }

    /// Whether a record of this query's namespace passes its `where` (not the limit).
    @inline(__always)
    public func passes(_ r: EntityRecord) -> Bool {
        if let f = filter, r[f.field] != f.value { return false }
        if let c = condition, !c.matches(r) { return false }
        return true
    }

    public var description: String {
        var s = namespace.name
        if let f = filter { s += " where \(f.field.name) == \(f.value)" }
        if let c = condition { s += (filter == nil ? " where " : " and ") + c.description }
        if let n = limit { s += " limit \(n)" }
        if !includes.isEmpty {
            s += " with "
            for (i, n) in includes.enumerated() {
                if i > 0 { s += ", " }
                n.describe(into: &s)
            }
        }
        return s
    }

    /// Whether `r` is of the namespace and passes the `where` (a limit may still leave it out).
    public func matches(_ r: EntityRecord) -> Bool {
        guard r.namespace == namespace else { return false }
        return passes(r)
    }

    /// Runs the query against a store. Pure and deterministic: results are in id order.
    ///
    /// Roots are the matching records in id order; children are the forward link targets that
    /// exist, or the records whose link points at a root; the entries are roots and children
    /// once each, in id order. Computed with one flag per id slot instead of sorting.
    public func evaluate(_ store: EntityStore) -> QueryResult {
        evaluate(store, unlessEqualTo: nil)!
    }

    /// `evaluate(store)`, or nil when that equals `previous` (checked before building it): a
    /// view can tell "unchanged" without allocating a result.
    public func evaluate(_ store: EntityStore, unlessEqualTo previous: QueryResult?) -> QueryResult? {
        withFlags(store) { recs, flags, rootCount, entryCount in
            if let r = previous, Self.same(recs, flags, rootCount, entryCount, r) { return nil }
            var roots: [EntityID] = []
            roots.reserveCapacity(rootCount)
            var entries: [QueryResult.Entry] = []
            entries.reserveCapacity(entryCount)
            for i in 0..<recs.count where flags[i] != 0 {
                let id = EntityID(UInt32(i))
                if flags[i] & 1 != 0 { roots.append(id) }
                entries.append(QueryResult.Entry(id: id, record: recs[i]!))
            }
            return QueryResult(roots: roots, entries: entries)
        }
    }

    /// `evaluate(store) == r`, without building the result.
    public func evaluates(_ store: EntityStore, to r: QueryResult) -> Bool {
        withFlags(store) { recs, flags, rootCount, entryCount in
            Self.same(recs, flags, rootCount, entryCount, r)
        }
    }

    /// Whether the result the flags describe equals `r`.
    @inline(__always)
    static func same(_ recs: UnsafeBufferPointer<EntityRecord?>, _ flags: UnsafeMutableBufferPointer<UInt8>,
                     _ rootCount: Int, _ entryCount: Int, _ r: QueryResult) -> Bool {
        do {
            guard rootCount == r.roots.count, entryCount == r.entries.count else { return false }
            return r.roots.withUnsafeBufferPointer { roots in
                r.entries.withUnsafeBufferPointer { entries in
                    var k = 0, rk = 0
                    for i in 0..<recs.count where flags[i] != 0 {
                        if flags[i] & 1 != 0 {
                            if roots[rk].raw != UInt32(i) { return false }
                            rk += 1
                        }
                        if entries[k].id.raw != UInt32(i) || entries[k].record != recs[i]! { return false }
                        k += 1
                    }
                    return true
                }
            }
        }
    }

    /// Marks, per id slot of `store`, bit 0 = root, bit 1 = in the result tree (root or child):
    /// roots are the matching records; children are the existing forward link targets of roots,
    /// or the records whose link points at a root. Calls `body` with the records, the flags, the
    /// number of roots and the number of entries.
    @inline(__always)
    func withFlags<R>(_ store: EntityStore,
                      _ body: (UnsafeBufferPointer<EntityRecord?>, UnsafeMutableBufferPointer<UInt8>, Int, Int) -> R) -> R {
        store.records.withUnsafeBufferPointer { rb in
            let n = rb.count
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(n, 1)) { flags -> R in
                flags.initialize(repeating: 0)
                var rootCount = 0
                var entryCount = 0
                // Records are read in place (`rb[i]?.…`, `rb[i]![…]` project through the buffer's
                // addressor); binding one (`let r = rb[i]`) would copy it: a retain and a release
                // per array it owns, for every record of the store, on every evaluation.
                for i in 0..<n {
                    guard rb[i]?.namespace == namespace else { continue }
                    if let f = filter, rb[i]?[f.field] != f.value { continue }
                    if let c = condition, !c.matches(rb[i]!) { continue }
                    if let m = limit, rootCount >= m { break }
                    flags[i] |= 1
                    rootCount += 1
                }
                for node in includes {
                    Self.mark(node, rb, parent: UnsafeBufferPointer(flags), parentMask: 1, flags: flags)
                }
                for i in 0..<n where flags[i] != 0 { entryCount += 1 }
                return body(rb, flags, rootCount, entryCount)
            }
        }
    }

    /// Marks (bit 1 of `flags`) the entities `node`'s link reaches from the entities whose
    /// `parent` slot has `parentMask`, and below them its children's, level by level. A leaf
    /// marks straight into `flags`; a node with children first collects its level apart, since
    /// its children start from exactly that level.
    @inline(__always)
    static func mark(_ node: IncludeNode, _ rb: UnsafeBufferPointer<EntityRecord?>, parent: UnsafeBufferPointer<UInt8>,
                     parentMask: UInt8, flags: UnsafeMutableBufferPointer<UInt8>) {
        if node.children.isEmpty {
            reach(node.link, rb, parent: parent, parentMask: parentMask, into: flags, mask: 2)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(rb.count, 1)) { level in
            level.initialize(repeating: 0)
            reach(node.link, rb, parent: parent, parentMask: parentMask, into: level, mask: 1)
            for j in 0..<rb.count where level[j] != 0 { flags[j] |= 2 }
            for c in node.children {
                mark(c, rb, parent: UnsafeBufferPointer(level), parentMask: 1, flags: flags)
            }
        }
    }

    /// Sets `mask` in `out` for every existing entity one `link` away from a parent: the forward
    /// link targets of parents, or the records whose link points at a parent.
    @inline(__always)
    static func reach(_ link: Include, _ rb: UnsafeBufferPointer<EntityRecord?>, parent: UnsafeBufferPointer<UInt8>,
                      parentMask: UInt8, into out: UnsafeMutableBufferPointer<UInt8>, mask: UInt8) {
        let n = rb.count
        switch link {
        // Optional chaining (`rb[i]?[l]`) reads the record in place; a force unwrap
        // (`rb[i]![l]`) copied it (a retain and a release per array it owns) for every parent.
        case .forward(let l):
            let li = Int(l.raw)
            for i in 0..<n where parent[i] & parentMask != 0 {
                if let t = rb[i]?[l] {
                    let j = Int(t.raw)
                    if j < n && rb[j]?.namespace != nil { out[j] |= mask }
                } else if li < (rb[i]?.manyLinks.count ?? 0) {
                    for k in 0..<(rb[i]?.manyLinks[li].count ?? 0) {
                        let j = Int(rb[i]?.manyLinks[li][k].raw ?? UInt32.max)
                        if j < n && rb[j]?.namespace != nil { out[j] |= mask }
                    }
                }
            }
        case .reverse(let l):
            let li = Int(l.raw)
            for j in 0..<n where rb[j]?.namespace != nil {
                if let t = rb[j]?[l] {
                    let i = Int(t.raw)
                    if i < n && parent[i] & parentMask != 0 { out[j] |= mask }
                } else if li < (rb[j]?.manyLinks.count ?? 0) {
                    for k in 0..<(rb[j]?.manyLinks[li].count ?? 0) {
                        let i = Int(rb[j]?.manyLinks[li][k].raw ?? UInt32.max)
                        if i < n && parent[i] & parentMask != 0 { out[j] |= mask; break }
                    }
                }
            }
        }
    }

    /// Old queries hash exactly as before (trace hashes of existing runs are unchanged); the
    /// richer parts add a marker byte and their content only when present.
    public func stableHash(into h: inout StableHasher) {
        h.byte(namespace.raw)
        if let f = filter { h.byte(1); h.byte(f.field.raw); f.value.stableHash(into: &h) } else { h.byte(0) }
        switch include {
        case .forward(let l)?: h.byte(1); h.byte(l.raw)
        case .reverse(let l)?: h.byte(2); h.byte(l.raw)
        case nil: h.byte(0)
        }
        if isBasic { return }
        h.byte(0xA5)
        if let c = condition { h.byte(1); c.stableHash(into: &h) } else { h.byte(0) }
        h.combine(limit ?? 0)
        h.combine(includes.count)
        for n in includes { n.stableHash(into: &h) }
    }
}

/// The result tree of a query: root entities and the linked children they reach, with their data.
public struct QueryResult: Hashable, Sendable, StableHashable {
    public struct Entry: Hashable, Sendable {
        public var id: EntityID
        public var record: EntityRecord

        /// Where an entry keeps its record's box (`EntityRecord.Slots`), found once
        /// (`storageWords`), to tell in a few word comparisons that two entries are the same id
        /// with a record in the same box, so equal, without reading the box: a walk over two
        /// answers of which the second was patched from the first (the server patches a copy of
        /// its last answer: every untouched entry keeps its record's box) passes over the
        /// unchanged entries at a few instructions each, where `Entry ==` calls through the
        /// record's `==` per entry.
        public struct StorageWords: Sendable {
            let slots: Int

            init?() {
                typealias E = QueryResult.Entry
                typealias R = EntityRecord
                guard let rec = MemoryLayout<E>.offset(of: \E.record),
                      let b = MemoryLayout<R>.offset(of: \R.slots),
                      MemoryLayout<EntityRecord.Slots>.size == MemoryLayout<UInt>.size else { return nil }
                slots = rec + b
            }

            /// Whether `count` entries from `a` and from `b` are the same bits, padding included:
            /// then each pair is the same id, namespace and box, so equal. One `memcmp` for a
            /// block of entries, where `sameStorage` takes a dozen instructions per entry. The
            /// bits match for entries copied from one another bit for bit (a patched answer's
            /// untouched entries: `unshareEntries` copies them so); a typed copy may leave other
            /// padding, and then this says false (compare them another way).
            @inline(__always)
            public func sameBits(_ a: UnsafePointer<Entry>, _ b: UnsafePointer<Entry>, count: Int) -> Bool {
                memcmp(a, b, count * MemoryLayout<Entry>.stride) == 0
            }

            /// Same id, same namespace, and the record's box the same (two records in one box
            /// are equal): then the entries are equal. False says nothing (compare them).
            @inline(__always)
            public func sameStorage(_ a: UnsafePointer<Entry>, _ b: UnsafePointer<Entry>) -> Bool {
                guard a.pointee.id == b.pointee.id, a.pointee.record.namespace == b.pointee.record.namespace else { return false }
                return UnsafeRawPointer(a).load(fromByteOffset: slots, as: UInt.self)
                    == UnsafeRawPointer(b).load(fromByteOffset: slots, as: UInt.self)
            }
        }

        /// The layout `StorageWords` reads; nil when a record's box is not one word (then
        /// compare entries with `==`).
        public static let storageWords: StorageWords? = StorageWords()
    }

    /// Storage of `roots` and `entries`: the code of this module that keeps `_digest` up to date
    /// (`Query.patch`) writes them directly; every other write goes through the public
    /// properties, which forget the digest.
    @usableFromInline var _roots: [EntityID]
    @usableFromInline var _entries: [Entry]
    /// The result's digest (`QueryResultDigest.swift`) once computed, nil before (or after a
    /// write through `roots`/`entries`). A cache, never part of the value: `==` and `hash(into:)`
    /// ignore it.
    @usableFromInline var _digest: UInt64?

    /// Root entity ids, ascending.
    public var roots: [EntityID] {
        get { _roots }
        set { _roots = newValue; _digest = nil }
        _modify { _digest = nil; yield &_roots }
    }
    /// Every entity in the tree (roots and children), ascending, each once, with its data.
    public var entries: [Entry] {
        get { _entries }
        set { _entries = newValue; _digest = nil }
        _modify { _digest = nil; yield &_entries }
    }

    public init(roots: [EntityID], entries: [Entry]) {
        _roots = roots
        _entries = entries
        _digest = nil
    }

    /// Equal roots and entries. Two results whose digests are both known and differ cannot be
    /// equal (the digest is a function of the roots and entries), so that case is told without
    /// walking the entries.
    public static func == (a: QueryResult, b: QueryResult) -> Bool {
        if let x = a._digest, let y = b._digest, x != y { return false }
        return a._roots == b._roots && a._entries == b._entries
    }

    public func hash(into h: inout Hasher) {
        h.combine(_roots)
        h.combine(_entries)
    }

    public static let empty = QueryResult(roots: [], entries: [])

    /// Gives this value its own copy of the entries, made bit for bit from `bitwiseCopyMinimum`
    /// entries on (`copyBits`), else in a loop the compiler specialises: copy on write of a
    /// shared array of entries goes through the runtime's generic array copy, a value-witness
    /// call per entry (several times the cost of the one retain an entry's copy needs). For callers that know the entries are shared and are about to
    /// change them (`Query.patch(_:touched:in:shared:)`); the value is unchanged, the digest kept.
    /// `extra`: room kept for that many inserts, so the first insert after the copy does not
    /// move every entry again into a larger buffer.
    @usableFromInline mutating func unshareEntries(extra: Int = 0) {
        if let words = Entry.storageWords, _entries.count >= Self.bitwiseCopyMinimum {
            _entries = Self.copyBits(of: _entries, extra: max(extra, 0), words: words)
            return
        }
        var copy: [Entry] = []
        copy.reserveCapacity(_entries.count + max(extra, 0))
        _entries.withUnsafeBufferPointer { b in
            for k in 0..<b.count { copy.append(b[k]) }
        }
        _entries = copy
    }

    /// The fewest entries `unshareEntries` copies bit for bit (fewer go through the typed loop:
    /// the uninitialised array it needs costs a few hundred instructions to allocate).
    static let bitwiseCopyMinimum = 32

    /// A copy of `entries` made bit for bit (padding too), then each record's box retained: what
    /// a typed copy of an entry does (an entry's only reference is its record's box, which
    /// `StorageWords` locates), without its per-field loads and stores, and keeping the padding
    /// bytes. Why the padding matters: the walks over a patched answer and the one it was
    /// patched from (the Instant client's `patchBase`, the monitor's `ShownEntries.sync`) pass
    /// a block of entries with one `memcmp` when their bits are the same, and a typed copy left
    /// other padding in every entry, so every block failed and they went entry by entry.
    static func copyBits(of entries: [Entry], extra: Int, words: Entry.StorageWords) -> [Entry] {
        let n = entries.count
        return entries.withUnsafeBufferPointer { src in
            [Entry](unsafeUninitializedCapacity: n + extra) { dst, count in
                UnsafeMutableRawPointer(dst.baseAddress!).copyMemory(from: UnsafeRawPointer(src.baseAddress!),
                                                                     byteCount: n * MemoryLayout<Entry>.stride)
                let base = UnsafeRawPointer(dst.baseAddress!)
                for k in 0..<n {
                    let box = base.load(fromByteOffset: k * MemoryLayout<Entry>.stride + words.slots, as: UnsafeRawPointer.self)
                    _ = Unmanaged<EntityRecord.Slots>.fromOpaque(box).retain()
                }
                count = n
            }
        }
    }

    /// What a patch does before its first change to the entries: when the caller knows they are
    /// shared (`shared`), copies them in `unshareEntries`' loop with room for `extra` inserts (so
    /// the first insert does not move every entry again into a larger buffer). Otherwise the
    /// array's own copy on write decides. (A uniqueness check to take the specialised copy for
    /// unshared callers too was tried and dropped: rebinding the array to `AnyObject` never
    /// answered "unique", so every patch copied.)
    @usableFromInline @inline(__always) mutating func ownEntries(shared: Bool, extra: Int) {
        if shared { unshareEntries(extra: extra) }
    }

    init(roots: [EntityID], children: [EntityID], store: EntityStore) {
        _roots = roots
        _digest = nil
        var ids = roots + children
        ids.sort()
        var entries: [Entry] = []
        entries.reserveCapacity(ids.count)
        var last: EntityID?
        for id in ids where id != last {
            last = id
            if let r = store[id] { entries.append(Entry(id: id, record: r)) }
        }
        _entries = entries
    }

    public func record(_ id: EntityID) -> EntityRecord? {
        guard let k = index(of: id) else { return nil }
        return entries[k].record
    }

    /// Whether the tree has `id` (found without copying its record).
    public func contains(_ id: EntityID) -> Bool { index(of: id) != nil }

    /// The position of `id` in `entries` (binary search).
    func index(of id: EntityID) -> Int? {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].id == id { return mid }
            if entries[mid].id < id { lo = mid + 1 } else { hi = mid }
        }
        return nil
    }

    /// The ids of one namespace in this result (what a view "sees" of that namespace).
    public func ids(in ns: NamespaceID) -> [EntityID] {
        entries.filter { $0.record.namespace == ns }.map(\.id)
    }

    /// The counts and the digest (`QueryResultDigest.swift`): a result hashed into the trace on
    /// every message that carries it costs three words once its digest is known, instead of a
    /// pass over every entry's data.
    public func stableHash(into h: inout StableHasher) {
        h.combine(_roots.count)
        h.combine(_entries.count)
        h.combine(digest)
    }

    public var summary: String {
        entries.map { "\(EntityRef($0.id, $0.record.namespace))\($0.record.summary)" }.joined(separator: " ")
    }
}
