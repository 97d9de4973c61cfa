/// One entity's data: a slot per field id and per link id of its schema (nil = absent), and, for
/// schemas with has-many links, each such link's set of targets (ascending).
///
/// A value with copy on write, like the arrays it holds, but its three arrays live in one box
/// (`Slots`), so a copy of a record is one reference count, not three.
///
/// Why: results, messages, overlays and snapshots copy records far more often than anything
/// writes one (the Instant server copies each changed answer it keeps, about 1,800 records each,
/// some 12,800 times in instant's 3,000-action seed-1 run; the client and the monitor keep their
/// own copies), and each copy and each destroy of a record was a retain or release of each
/// array: callgrind put reference counting and array destruction at about 40% of that run. Two
/// records in one box are equal without reading it (`==`), which also makes a record's storage
/// one word to compare (`QueryResult.Entry.StorageWords`). A write to a shared record copies the
/// box first (`unique()`): one more allocation per write, paid far less often than copies.
public struct EntityRecord: Hashable, Sendable, StableHashable {
    /// The box of a record's arrays. Written only through `EntityRecord`'s accessors, each of
    /// which copies the box first unless this record holds the only reference, so a box is
    /// never written while shared: that is what makes it safe to send between threads.
    ///
    /// `@exclusivity(unchecked)`: a class's stored properties are checked for overlapping
    /// accesses at run time (`swift_beginAccess`, a lookup in a per-thread access set), and
    /// every read of a record's slot went through one: callgrind put it at about 2,700
    /// instructions per event on instant's 3,000-action run. `EntityRecord`'s accessors are the
    /// only way in, and none of them overlaps two accesses to one box.
    @usableFromInline final class Slots: @unchecked Sendable {
        @exclusivity(unchecked) @usableFromInline var values: [FieldValue?]
        @exclusivity(unchecked) @usableFromInline var links: [EntityID?]
        @exclusivity(unchecked) @usableFromInline var manyLinks: [[EntityID]]

        @inlinable init(values: [FieldValue?], links: [EntityID?], manyLinks: [[EntityID]]) {
            self.values = values
            self.links = links
            self.manyLinks = manyLinks
        }
    }

    /// The box (`QueryResult.Entry.StorageWords` finds it by its offset).
    @usableFromInline var slots: Slots
    public var namespace: NamespaceID

    public var values: [FieldValue?] {
        @inline(__always) _read { yield slots.values }
        @inline(__always) _modify { unique(); yield &slots.values }
    }
    /// Cardinality-one links' targets, by link id (a has-many link's slot stays nil).
    public var links: [EntityID?] {
        @inline(__always) _read { yield slots.links }
        @inline(__always) _modify { unique(); yield &slots.links }
    }
    /// Has-many links' targets, by link id, ascending; empty (no storage) when the schema has
    /// no has-many link, so records of such schemas cost what they did before has-many existed.
    public var manyLinks: [[EntityID]] {
        @inline(__always) _read { yield slots.manyLinks }
        @inline(__always) _modify { unique(); yield &slots.manyLinks }
    }

    /// Gives this record a box of its own before a write, unless it already holds the only
    /// reference. The arrays are shared with the old box until written (their own copy on
    /// write), so a write to one slot copies the box and that slot's array only.
    @inline(__always) mutating func unique() {
        if !isKnownUniquelyReferenced(&slots) {
            slots = Slots(values: slots.values, links: slots.links, manyLinks: slots.manyLinks)
        }
    }

    /// A record with the given slots (as `values`, `links` and `manyLinks` describe them).
    public init(namespace: NamespaceID, values: [FieldValue?], links: [EntityID?], manyLinks: [[EntityID]]) {
        self.namespace = namespace
        self.slots = Slots(values: values, links: links, manyLinks: manyLinks)
    }

    /// A blank record of `namespace` with one slot per field and link of `schema`.
    public init(namespace: NamespaceID, schema: Schema) {
        self.init(namespace: namespace, fieldCount: schema.fieldCount, linkCount: schema.linkCount, hasManyLinks: schema.hasManyLinks)
    }

    /// A blank record with the given numbers of slots (what `init(namespace:schema:)` reads
    /// from its schema).
    @inline(__always)
    init(namespace: NamespaceID, fieldCount: Int, linkCount: Int, hasManyLinks: Bool) {
        self.namespace = namespace
        // Fresh slots per record: sharing one global blank array between records saves an
        // allocation but makes its reference count a point of contention between threads
        // running simulations in parallel. Reserved and appended: `Array(repeating:count:)` and
        // `Array(unsafeUninitializedCapacity:)` allocate through the standard library's
        // unspecialised buffer allocation (~700 instructions per array: it looks the storage
        // class up at run time); reserving goes through the specialised one.
        var v: [FieldValue?] = []
        v.reserveCapacity(fieldCount)
        for _ in 0..<fieldCount { v.append(nil) }
        var l: [EntityID?] = []
        l.reserveCapacity(linkCount)
        for _ in 0..<linkCount { l.append(nil) }
        var m: [[EntityID]] = []
        if hasManyLinks {
            m.reserveCapacity(linkCount)
            for _ in 0..<linkCount { m.append([]) }
        }
        slots = Slots(values: v, links: l, manyLinks: m)
    }

    /// Equal slots. Records are compared far more often than they change (a view's entries
    /// against the store's, an answer's against the previous one's), and equal records usually
    /// share their box (an answer patched from the previous one keeps the untouched records'),
    /// so the box is first compared by identity; then each array by identity, inline, before its
    /// elements (the standard library's `==` does the same, but behind a call per array).
    @inline(__always)
    public static func == (a: EntityRecord, b: EntityRecord) -> Bool {
        if a.namespace != b.namespace { return false }
        if a.slots === b.slots { return true }
        return Self.same(a.slots.values, b.slots.values) && Self.same(a.slots.links, b.slots.links)
            && Self.same(a.slots.manyLinks, b.slots.manyLinks)
    }

    /// The synthesised hash of the fields it had before the box, in their order (consistent
    /// with `==`: equal records have equal arrays).
    public func hash(into h: inout Hasher) {
        h.combine(namespace)
        h.combine(slots.values)
        h.combine(slots.links)
        h.combine(slots.manyLinks)
    }

    /// `x == y`, told at once when both are the same storage.
    @inline(__always)
    static func same<T: Equatable>(_ x: [T], _ y: [T]) -> Bool {
        if x.count != y.count { return false }
        let shared = x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { q in p.baseAddress == q.baseAddress } }
        return shared || x == y
    }

    @inline(__always) public subscript(field: FieldID) -> FieldValue? {
        get { Int(field.raw) < values.count ? values[Int(field.raw)] : nil }
        set { values[Int(field.raw)] = newValue }
    }

    /// `self[field] = value`, without a write (so without copying shared slots) when the field
    /// already holds `value`. Mutating, so the comparison reads the slot in place instead of a
    /// copy of the record.
    @inline(__always) public mutating func assign(_ field: FieldID, _ value: FieldValue) {
        let f = Int(field.raw)
        if values[f] != value { values[f] = value }
    }

    /// A cardinality-one link's target.
    @inline(__always) public subscript(link: LinkID) -> EntityID? {
        get { Int(link.raw) < links.count ? links[Int(link.raw)] : nil }
        set { links[Int(link.raw)] = newValue }
    }

    /// Every target of a link, whatever its cardinality, ascending.
    public func targets(_ link: LinkID) -> [EntityID] {
        if let t = self[link] { return [t] }
        return Int(link.raw) < manyLinks.count ? manyLinks[Int(link.raw)] : []
    }

    /// Calls `body` with every target of `link`, ascending, without building an array.
    @inline(__always) public func forEachTarget(of link: LinkID, _ body: (EntityID) -> Void) {
        let i = Int(link.raw)
        if i < links.count, let t = links[i] { body(t); return }
        if i < manyLinks.count { for t in manyLinks[i] { body(t) } }
    }

    /// Whether `link` points at `target`.
    @inline(__always) public func points(_ link: LinkID, at target: EntityID) -> Bool {
        let i = Int(link.raw)
        if i < links.count, links[i] == target { return true }
        return i < manyLinks.count && manyLinks[i].contains(target)
    }

    /// Whether any link of this record points at `target`. Indexed reads of the record's own
    /// arrays (no iterator over `manyLinks`, which retained it and each target list in turn):
    /// a delete asks this of every record of the store. Not `@inline(__always)`: inlined into a
    /// read through a buffer (`rb[i]!.refers(to: e)`, `b[i]?.refers(to: e)`), it made the
    /// compiler copy the optional record out first (callgrind, reference's server deletes: 1.2
    /// million outlined copies, +2.6k instructions per event at 3,000 actions); called, it reads
    /// the record where it lies.
    public func refers(to target: EntityID) -> Bool {
        for i in 0..<links.count where links[i] == target { return true }
        for j in 0..<manyLinks.count where manyLinks[j].contains(target) { return true }
        return false
    }

    /// Points `link` at `target`: replaces a cardinality-one target, adds to a has-many set (kept
    /// ascending). Returns whether the record changed.
    @discardableResult
    public mutating func setLink(_ link: LinkID, to target: EntityID, many: Bool) -> Bool {
        let i = Int(link.raw)
        if many {
            guard i < manyLinks.count, !manyLinks[i].contains(target) else { return false }
            let at = manyLinks[i].firstIndex { $0 > target } ?? manyLinks[i].count
            manyLinks[i].insert(target, at: at)
            return true
        }
        guard i < links.count, links[i] != target else { return false }
        links[i] = target
        return true
    }

    /// Removes `target` from `link`. Returns whether the record changed.
    @discardableResult
    public mutating func clearLink(_ link: LinkID, from target: EntityID) -> Bool {
        let i = Int(link.raw)
        if i < links.count, links[i] == target { links[i] = nil; return true }
        if i < manyLinks.count, let k = manyLinks[i].firstIndex(of: target) { manyLinks[i].remove(at: k); return true }
        return false
    }

    /// Keeps only the targets of `link` that `keep` accepts.
    public mutating func filterLink(_ link: LinkID, _ keep: (EntityID) -> Bool) {
        let i = Int(link.raw)
        if i < links.count, let t = links[i], !keep(t) { links[i] = nil }
        if i < manyLinks.count, manyLinks[i].contains(where: { !keep($0) }) { manyLinks[i].removeAll { !keep($0) } }
    }

    /// Sets `link` to exactly what it is in `other` (either cardinality).
    public mutating func copyLink(_ link: LinkID, from other: EntityRecord) {
        let i = Int(link.raw)
        if i < links.count { links[i] = i < other.links.count ? other.links[i] : nil }
        if i < manyLinks.count { manyLinks[i] = i < other.manyLinks.count ? other.manyLinks[i] : [] }
    }

    /// Removes every link to `target`.
    public mutating func removeLinks(to target: EntityID) {
        for l in links.indices where links[l] == target { links[l] = nil }
        // Asked first: `removeAll(where:)` makes a shared target list unique even when it
        // removes nothing, copying every has-many list of the record.
        for l in manyLinks.indices where manyLinks[l].contains(target) { manyLinks[l].removeAll { $0 == target } }
    }

    @inline(__always) public func stableHash(into h: inout StableHasher) {
        // Indexed reads of the record's own arrays (no closure, no iterator): nothing is
        // retained per record. A slot's presence and its value's kind are one word (0: absent),
        // then the value; a link slot is one word (0: absent, else target << 1 | 1).
        h.byte(namespace.raw)
        for i in 0..<values.count {
            switch values[i] {
            case .none: h.byte(0)
            case .some(.int(let x)): h.byte(0x12); h.combine(x)
            case .some(.bool(let x)): h.combine(UInt64(x ? 0x113 : 0x013))
            case .some(.string(let s)): h.byte(0x11); h.combine(s)
            }
        }
        for i in 0..<links.count {
            if let l = links[i] { h.combine(UInt64(l.raw) << 1 | 1) } else { h.byte(0) }
        }
        // Only schemas with has-many links have target sets.
        for j in 0..<manyLinks.count {
            h.combine(manyLinks[j].count)
            for k in 0..<manyLinks[j].count { h.combine(manyLinks[j][k].raw) }
        }
    }

    /// `{title = "Te", done = true, author → profile#2}`, named by `Schema.describing`.
    public var summary: String {
        let schema = Schema.describing
        guard schema.contains(namespace) else { return "{?}" }
        var parts: [String] = []
        for f in schema.fields(of: namespace) { if let v = self[f] { parts.append("\(f.name) = \(v)") } }
        for l in schema.links(of: namespace) {
            for t in targets(l) { parts.append("\(l.name) → \(EntityRef(t, schema.target(of: l)))") }
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }
}

/// Why an `Op` could not be applied. A value, never a crash: a strategy decides what it means.
public enum ApplyError: Error, Hashable, Sendable, CustomStringConvertible {
    case missingEntity(EntityID)
    case alreadyExists(EntityID)
    case wrongNamespace(EntityID)
    case fieldNotInNamespace(FieldID, NamespaceID)
    case wrongFieldType(FieldID)
    case missingLinkTarget(EntityID)
    /// A namespace, field or link id the schema does not have.
    case unknownID(String)

    public var description: String {
        switch self {
        case .missingEntity(let e): return "entity \(e.raw) does not exist"
        case .alreadyExists(let e): return "entity \(e.raw) already exists"
        case .wrongNamespace(let e): return "entity \(e.raw) is in another namespace"
        case .fieldNotInNamespace(let f, let ns): return "field \(f.name) is not a field of \(ns.name)"
        case .wrongFieldType(let f): return "wrong value type for \(f.name)"
        case .missingLinkTarget(let e): return "link target \(e.raw) does not exist"
        case .unknownID(let what): return "\(what) is not in the schema"
        }
    }
}

/// A table of entities indexed by `EntityID` (dense, small: entity ids come from the schedule).
///
/// Iteration is always in id order, so nothing that reads a store depends on hashing.
public struct EntityStore: Hashable, Sendable, StableHashable {
    public private(set) var records: [EntityRecord?] = []
    public private(set) var count = 0

    public init() {}

    /// The store holding exactly a query result's entries (as if each were assigned in turn).
    public init(entriesOf r: QueryResult) {
        var n = 0
        for e in r.entries { n = max(n, Int(e.id.raw) + 1) }
        guard n > 0 else { return }
        records = Array(repeating: nil, count: n)
        for e in r.entries {
            let i = Int(e.id.raw)
            if records[i]?.namespace == nil { count += 1 }
            records[i] = e.record
        }
    }

    /// A store over `slots` (slot `i` holds entity `i`): built in one pass by callers that
    /// already have their records by id, instead of one assignment (and growth) per entity.
    public init(slots: [EntityRecord?]) {
        var n = 0
        for i in slots.indices where slots[i]?.namespace != nil { n += 1 }
        records = slots
        count = n
    }

    @inline(__always) public subscript(id: EntityID) -> EntityRecord? {
        get { Int(id.raw) < records.count ? records[Int(id.raw)] : nil }
        set {
            let i = Int(id.raw)
            if i >= records.count {
                if newValue?.namespace == nil { return }
                records.append(contentsOf: repeatElement(nil, count: i - records.count + 1))
            }
            let had = records[i]?.namespace != nil
            records[i] = newValue
            count += (newValue?.namespace != nil ? 1 : 0) - (had ? 1 : 0)
        }
    }

    /// Read in place: going through the subscript's getter would copy the record (a retain and
    /// a release per array it owns) only to compare it with nil. (Presence is tested through the
    /// namespace throughout: `record != nil` picks `Optional<EntityRecord>`'s `==`, which copies
    /// the record into a tuple to compare it.)
    @inline(__always) public func contains(_ id: EntityID) -> Bool {
        let i = Int(id.raw)
        return i < records.count && records[i]?.namespace != nil
    }

    /// The namespace of an entity, if it exists (read in place, like `contains`).
    @inline(__always) public func namespace(of id: EntityID) -> NamespaceID? {
        let i = Int(id.raw)
        return i < records.count ? records[i]?.namespace : nil
    }

    /// Every entity, in id order.
    public var entities: [(EntityID, EntityRecord)] {
        var out: [(EntityID, EntityRecord)] = []
        out.reserveCapacity(count)
        for (i, r) in records.enumerated() { if let r { out.append((EntityID(UInt32(i)), r)) } }
        return out
    }

    public var ids: [EntityID] { entities.map(\.0) }

    /// How a write mode treats an update of a missing entity.
    public enum UpdateMode: Sendable { case update, upsert }

    /// Validates and applies one step of `schema`'s data.
    ///  - `create` of an existing entity fails (`alreadyExists`), as InstantDB's create mode does.
    ///  - `update` of a missing entity fails in `.update` mode and creates a partial entity in `.upsert`.
    ///  - `delete` removes the entity and every link pointing at it; deleting a missing entity is a no-op.
    ///  - `link` replaces a cardinality-one link's target and adds to a has-many link's targets;
    ///    `unlink` clears the one target if it is the given one, or removes it from the set.
    /// Ids outside the schema are an `ApplyError`, never a crash.
    public mutating func apply(_ op: Op, schema: Schema, mode: UpdateMode = .upsert) -> ApplyError? {
        switch op {
        case .create(let e, let ns, let a):
            if contains(e) { return .alreadyExists(e) }
            if let err = Self.validate(a, ns, schema: schema) { return err }
            var r = EntityRecord(namespace: ns, fieldCount: schema.fieldCount, linkCount: schema.linkCount, hasManyLinks: schema.hasManyLinks)
            for x in a { r[x.field] = x.value }
            self[e] = r
        case .update(let e, let ns, let a):
            if let err = Self.validate(a, ns, schema: schema) { return err }
            let i = Int(e.raw)
            if i < records.count, let have = records[i]?.namespace {
                if have != ns { return .wrongNamespace(e) }
                // In place: the record's slots are copied at most once (if shared), and not at
                // all when every value is already the one assigned (overlays re-apply whole
                // entities that mostly equal what the store holds).
                for k in 0..<a.count { records[i]!.assign(a[k].field, a[k].value) }
            } else {
                if mode == .update { return .missingEntity(e) }
                var r = EntityRecord(namespace: ns, fieldCount: schema.fieldCount, linkCount: schema.linkCount, hasManyLinks: schema.hasManyLinks)
                for x in a { r[x.field] = x.value }
                self[e] = r
            }
        case .delete(let e, _):
            guard contains(e) else { return nil }
            remove(e, referrers: slots(referringTo: e))
        case .link(let e, let l, let t):
            guard schema.contains(l) else { return .unknownID("link \(l.raw)") }
            guard let ns = namespace(of: e) else { return .missingEntity(e) }
            if ns != schema.source(of: l) { return .wrongNamespace(e) }
            guard let tns = namespace(of: t), tns == schema.target(of: l) else { return .missingLinkTarget(t) }
            records[Int(e.raw)]!.setLink(l, to: t, many: schema.isMany(l))
        case .unlink(let e, let l, let t):
            guard schema.contains(l) else { return .unknownID("link \(l.raw)") }
            guard contains(e) else { return .missingEntity(e) }
            if records[Int(e.raw)]!.points(l, at: t) { records[Int(e.raw)]!.clearLink(l, from: t) }
        }
        return nil
    }

    /// What a run of `apply(_:schema:mode:undo:)` calls changed, so `rollBack(_:)` can undo them:
    /// an all-or-nothing transaction without copying the store. (A copy of the store costs a
    /// reference-count operation per record, so a server that committed to a copy paid for the
    /// whole store on every transaction; the log costs what the transaction touches.)
    public struct UndoLog: Sendable {
        /// A slot as it was before the first change.
        struct Saved {
            var index: Int
            var record: EntityRecord?
        }
        /// Slots as they were before the first change, in the order they were first saved. (A
        /// struct, not a tuple: an array of tuples is destroyed element by element through the
        /// runtime's generic tuple witness, several times the cost of a struct's.)
        var saved: [Saved] = []
        /// Which slots `saved` holds, one bit per slot below `slots`, once it holds more than
        /// `scanLimit`: a transaction that writes a whole collection (sharedDiff's saves) logs
        /// thousands of slots, and asking the list whether each was already saved made it
        /// quadratic. Short logs, the common case, are scanned and allocate nothing more.
        var savedMarks: [UInt64] = []
        /// `records.count` and `count` before the first change.
        var slots = -1
        var count = 0
        public init() {}
        public var isEmpty: Bool { saved.isEmpty && slots < 0 }

        static var scanLimit: Int { 32 }

        /// Whether slot `i` (below `slots`) is already saved.
        @inline(__always)
        func isSaved(_ i: Int) -> Bool {
            if savedMarks.isEmpty { return saved.contains { $0.index == i } }
            return savedMarks[i >> 6] & (1 << UInt64(i & 63)) != 0
        }

        /// Saves a slot not saved yet (below `slots`).
        @inline(__always)
        mutating func note(_ s: Saved) {
            saved.append(s)
            if !savedMarks.isEmpty {
                savedMarks[s.index >> 6] |= 1 << UInt64(s.index & 63)
            } else if saved.count > Self.scanLimit {
                savedMarks = Array(repeating: 0, count: (slots + 63) >> 6)
                for k in 0..<saved.count { savedMarks[saved[k].index >> 6] |= 1 << UInt64(saved[k].index & 63) }
            }
        }

        /// Adds what `later` logged, changes made after the ones this log holds, so that
        /// `rollBack(self)` undoes both (a slot `later` saved that this log did not was unchanged
        /// since this log began; slots beyond this log's start are cut off by the rollback).
        public mutating func absorb(_ later: UndoLog) {
            guard later.slots >= 0 else { return }
            if slots < 0 { self = later; return }
            for k in 0..<later.saved.count {
                let i = later.saved[k].index
                if i < slots && !isSaved(i) { note(later.saved[k]) }
            }
        }
    }

    /// `apply(_:schema:mode:)`, noting in `undo` what it is about to change. A failed step changes
    /// nothing (each step validates before it writes), so a transaction applies its steps in
    /// turn and, on the first error, rolls back the ones before it.
    public mutating func apply(_ op: Op, schema: Schema, mode: UpdateMode = .upsert, undo: inout UndoLog) -> ApplyError? {
        if undo.slots < 0 { undo.slots = records.count; undo.count = count }
        func save(_ e: EntityID) {
            let i = Int(e.raw)
            guard i < undo.slots, !undo.isSaved(i) else { return }
            undo.note(UndoLog.Saved(index: i, record: records[i]))
        }
        save(op.entity)
        if case .delete(let e, _) = op, contains(e) {
            // One pass finds the referrers both for the log and for the delete itself (they were
            // two passes over the whole store, each copying every record out).
            let referring = slots(referringTo: e)
            for i in referring { save(EntityID(UInt32(i))) }
            remove(e, referrers: referring)
            return nil
        }
        return apply(op, schema: schema, mode: mode)
    }

    /// `self[id] = r`, noting in `undo` what it replaces.
    public mutating func set(_ id: EntityID, _ r: EntityRecord?, undo: inout UndoLog) {
        if undo.slots < 0 { undo.slots = records.count; undo.count = count }
        let i = Int(id.raw)
        if i < undo.slots, !undo.isSaved(i) { undo.note(UndoLog.Saved(index: i, record: records[i])) }
        self[id] = r
    }

    /// Restores the store to what it was before the changes `undo` logged.
    public mutating func rollBack(_ undo: UndoLog) {
        guard undo.slots >= 0 else { return }
        var k = undo.saved.count
        while k > 0 {
            k -= 1
            records[undo.saved[k].index] = undo.saved[k].record
        }
        if records.count > undo.slots { records.removeSubrange(undo.slots...) }
        count = undo.count
    }

    /// Checks a patch against `schema`: the namespace exists, every field is one of its fields,
    /// every value has the field's kind.
    public static func validate(_ a: [FieldAssignment], _ ns: NamespaceID, schema: Schema) -> ApplyError? {
        guard schema.contains(ns) else { return .unknownID("namespace \(ns.raw)") }
        // Indexed: iterating would copy each assignment (its value) out of the array.
        for k in 0..<a.count {
            let f = a[k].field
            guard schema.contains(f) else { return .unknownID("field \(f.raw)") }
            if schema.namespace(of: f) != ns { return .fieldNotInNamespace(f, ns) }
            if a[k].value.kind != schema.kind(of: f) { return .wrongFieldType(f) }
        }
        return nil
    }

    /// Removes every link to `target` from every record.
    public mutating func removeReferences(to target: EntityID) {
        for i in slots(referringTo: target) { records[i]!.removeLinks(to: target) }
    }

    /// The delete of a present entity: its slot emptied, then the links to it removed from
    /// `referrers` (`slots(referringTo: e)`, taken before or after the slot was emptied: `e`'s own
    /// slot is passed over either way), in that order, as `self[e] = nil` followed by
    /// `removeReferences(to: e)` does.
    mutating func remove(_ e: EntityID, referrers: [Int]) {
        self[e] = nil
        let own = Int(e.raw)
        for i in referrers where i != own { records[i]!.removeLinks(to: e) }
    }

    /// The slots whose record has a link (either cardinality) to `target`, ascending.
    ///
    /// Why through the buffer: `records[i]?.refers(to:)` goes through `Array`'s subscript getter,
    /// which copies the optional record out before asking it (an outlined copy: a retain and a
    /// release per array the record owns), for every record of the store on every delete, twice
    /// under an undo log; that made a delete cost the store's size in reference counting (6% of
    /// a 3,000-action instant run, growing with the store). `UnsafeBufferPointer`'s subscript is
    /// an addressor, but `b[i]?.refers(to:)` still copied the record out first (the store
    /// helper's callgrind of reference's deletes: 1.2 million outlined copies), so each record is
    /// read through a pointer to it (`OptionalPayload.read`). Still a pass over the store, but a
    /// few loads per record: a record may hold a link to any entity (a store is also filled by
    /// assignment, with whatever records a strategy built), so no cheaper question is exact.
    /// Public for strategies that keep a store beside tables of their own (`ReferenceTable`).
    public func slots(referringTo target: EntityID) -> [Int] {
        records.withUnsafeBufferPointer { b in
            var out: [Int] = []
            for i in 0..<b.count where b[i]?.namespace != nil {
                if OptionalPayload.read(b, i, { $0.pointee.refers(to: target) }) { out.append(i) }
            }
            return out
        }
    }

    /// Entities whose `link` points at `target` (the reverse view, e.g. `profile.posts`), in id
    /// order. Read in place (see `slots(referringTo:)`).
    public func referrers(to target: EntityID, via link: LinkID) -> [EntityID] {
        records.withUnsafeBufferPointer { b in
            var out: [EntityID] = []
            for i in 0..<b.count where b[i]?.namespace != nil {
                if OptionalPayload.read(b, i, { $0.pointee.points(link, at: target) }) { out.append(EntityID(UInt32(i))) }
            }
            return out
        }
    }

    /// Read in place: `for (i, r) in records.enumerated()` copied every record out to hash it.
    public func stableHash(into h: inout StableHasher) {
        h.combine(count)
        records.withUnsafeBufferPointer { b in
            for i in 0..<b.count where b[i]?.namespace != nil {
                h.combine(UInt32(i))
                OptionalPayload.read(b, i) { $0.pointee.stableHash(into: &h) }
            }
        }
    }

    /// Equal present records at every slot (a slot beyond a store's end is absent). Read in
    /// place: binding each slot (`let x = a.records[i]`) copied both records, and `x != y` on
    /// optionals copied them again into a tuple.
    public static func == (a: EntityStore, b: EntityStore) -> Bool {
        if a.count != b.count { return false }
        return a.records.withUnsafeBufferPointer { p in
            b.records.withUnsafeBufferPointer { q in
                for i in 0..<max(p.count, q.count) {
                    let x = i < p.count ? p[i]?.namespace : nil
                    let y = i < q.count ? q[i]?.namespace : nil
                    if x != y { return false }
                    if x != nil, !OptionalPayload.read(p, i, { r in OptionalPayload.read(q, i) { $0.pointee == r.pointee } }) { return false }
                }
                return true
            }
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(StableHasher.hash(self)) }
}
