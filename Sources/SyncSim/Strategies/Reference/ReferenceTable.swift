/// The `reference` strategy's replicated data: per-entity, per-field last-writer-wins registers
/// ordered by HLC timestamps, with tombstones. The server owns the authoritative table; each
/// client keeps a replica of it (and a view: the replica with its pending writes laid over).

/// One entity's registers. A deleted entity is a tombstone: it keeps its id and namespace forever
/// and refuses every later edit, so an id is never reused and nothing resurrects.
public struct EntityState: Hashable, Sendable, StableHashable {
    public var namespace: NamespaceID
    public var deleted = false
    public var values: [FieldValue?]
    public var valueStamps: [HLCTimestamp?]
    public var links: [EntityID?]
    public var linkStamps: [HLCTimestamp?]
    /// Has-many links (only in schemas that have them): one LWW register per (link, target),
    /// whose value is "present" — an observed-remove set with timestamps, so concurrent link
    /// and unlink of one target resolve by HLC like every other register.
    public var manyLinks: [[ManyLinkRegister]]
    /// The server version at which this entity last changed (0 on clients' local edits).
    public var version: UInt64 = 0

    public struct ManyLinkRegister: Hashable, Sendable {
        public var target: EntityID
        public var present: Bool
        public var stamp: HLCTimestamp
    }

    public init(namespace: NamespaceID, schema: Schema) {
        self.namespace = namespace
        values = Array(repeating: nil, count: schema.fieldCount)
        valueStamps = Array(repeating: nil, count: schema.fieldCount)
        links = Array(repeating: nil, count: schema.linkCount)
        linkStamps = Array(repeating: nil, count: schema.linkCount)
        manyLinks = schema.hasManyLinks ? Array(repeating: [], count: schema.linkCount) : []
    }

    /// What the oracles and queries see: nil for a tombstone.
    public func record(in schema: Schema) -> EntityRecord? {
        if deleted { return nil }
        // The record shares the register arrays' storage (no blank slots allocated to be
        // overwritten).
        var many: [[EntityID]] = []
        if schema.hasManyLinks {
            many = Array(repeating: [], count: schema.linkCount)
            for (i, regs) in manyLinks.enumerated() where i < many.count {
                many[i] = regs.filter(\.present).map(\.target).sorted()
            }
        }
        return EntityRecord(namespace: namespace, values: values, links: links, manyLinks: many)
    }

    /// Registers read where they lie, by index (`zip` and `for … in` copied each value, a
    /// string's storage retained and released, and each has-many list): the same words as
    /// walking `zip(values, valueStamps)`, `zip(links, linkStamps)` and `manyLinks`.
    public func stableHash(into h: inout StableHasher) {
        h.byte(namespace.raw); h.combine(deleted); h.combine(version)
        for i in 0..<Swift.min(values.count, valueStamps.count) {
            if values[i] != nil { h.byte(1); values[i]!.stableHash(into: &h) } else { h.byte(0) }
            if let s = valueStamps[i] { h.byte(1); s.stableHash(into: &h) } else { h.byte(0) }
        }
        for i in 0..<Swift.min(links.count, linkStamps.count) {
            if let l = links[i] { h.byte(1); h.combine(l.raw) } else { h.byte(0) }
            if let s = linkStamps[i] { h.byte(1); s.stableHash(into: &h) } else { h.byte(0) }
        }
        for j in 0..<manyLinks.count {
            h.combine(manyLinks[j].count)
            for k in 0..<manyLinks[j].count {
                let g = manyLinks[j][k]
                h.combine(g.target.raw); h.combine(g.present); g.stamp.stableHash(into: &h)
            }
        }
    }
}

/// Why a write cannot be applied (the whole write is refused: writes are atomic).
public enum ReferenceRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The write edits, or links to, a deleted entity: delete wins.
    case tombstoned(EntityID)
    /// A link's source or target does not exist (yet) where the write was checked.
    case missing(EntityID)
    /// The write does not fit the schema.
    case invalid(String)

    public var description: String {
        switch self {
        case .tombstoned(let e): return "entity \(e.raw) was deleted"
        case .missing(let e): return "entity \(e.raw) does not exist"
        case .invalid(let s): return s
        }
    }

    /// What the user is told.
    public var rejectReason: RejectReason {
        switch self {
        case .tombstoned: return .conflictDiscarded
        case .missing, .invalid: return .invalid(description)
        }
    }
}

/// An entity's registers as shipped to a client.
public struct EntityChange: Hashable, Sendable, StableHashable {
    public var id: EntityID
    public var state: EntityState
    public func stableHash(into h: inout StableHasher) { h.combine(id.raw); state.stableHash(into: &h) }
}

/// The table of registers, indexed densely by entity id, with the plain `EntityStore` it implies
/// kept in step (so reading `data` costs nothing).
public struct ReferenceTable: Hashable, Sendable {
    public private(set) var states: [EntityState?] = []
    public private(set) var store = EntityStore()

    public init() {}

    public subscript(id: EntityID) -> EntityState? {
        Int(id.raw) < states.count ? states[Int(id.raw)] : nil
    }

    /// Replaces one entity's registers (replication from the server).
    public mutating func put(_ id: EntityID, _ s: EntityState, schema: Schema) {
        let i = Int(id.raw)
        if i >= states.count { states.append(contentsOf: repeatElement(nil, count: i - states.count + 1)) }
        states[i] = s
        store[id] = s.record(in: schema)
    }

    /// `put` of every change in turn (a later change of an id wins), with the slots made once:
    /// growing the registers and the store by one slot per entity cost more than the put itself
    /// when a reply carries the whole table (a client's first reply after a restart without
    /// persistence). Into an empty table the store is built in one pass; the table is the one
    /// the puts one by one make, slot for slot (the store ends at its last live entity, as
    /// assignment leaves it).
    mutating func put(_ changes: [EntityChange], schema: Schema) {
        // The changes are read in place (`cb[k].…`): `changes[k].state` copied the whole change
        // out of the array (an outlined copy and destroy of every array it owns) first.
        changes.withUnsafeBufferPointer { cb in
            var top = -1
            for k in 0..<cb.count { top = max(top, Int(cb[k].id.raw)) }
            if top < 0 { return }
            if top >= states.count { states.append(contentsOf: repeatElement(nil, count: top - states.count + 1)) }
            guard store.records.isEmpty else {
                for k in 0..<cb.count {
                    states[Int(cb[k].id.raw)] = cb[k].state
                    store[cb[k].id] = cb[k].state.record(in: schema)
                }
                return
            }
            var slots = [EntityRecord?](repeating: nil, count: top + 1)
            for k in 0..<cb.count {
                let i = Int(cb[k].id.raw)
                states[i] = cb[k].state
                slots[i] = cb[k].state.record(in: schema)
            }
            var live = slots.count
            while live > 0 && slots[live - 1]?.namespace == nil { live -= 1 }
            slots.removeSubrange(live...)
            store = EntityStore(slots: slots)
        }
    }

    /// Every entity changed after `version` (tombstones included), in id order.
    public func changes(since version: UInt64) -> [EntityChange] {
        var out: [EntityChange] = []
        for (i, s) in states.enumerated() {
            if let s, s.version > version { out.append(EntityChange(id: EntityID(UInt32(i)), state: s)) }
        }
        return out
    }

    /// Applies one write atomically: every op, or (on the first refusal) none. Returns the ops as
    /// they took effect (assignments that lost to a newer register are left out).
    ///
    /// Rules: create and update are field-wise LWW upserts (a register takes the assignment if the
    /// write's stamp is not older than the register's); delete makes a tombstone and clears every
    /// link pointing at the entity; an edit of a tombstone, a link to or from one, is refused;
    /// link/unlink are LWW registers too (unlink only clears the link if it still points at the
    /// named target).
    ///
    /// In place, with a journal to roll a refused write back: working on a copy of the table cost
    /// a reference count per entity per write (the whole table, O(entities), each time).
    public mutating func apply(_ ops: [Op], stamp: HLCTimestamp, version: UInt64, schema: Schema) -> Result<[Op], ReferenceRefusal> {
        var touched: [Int] = []
        return apply(ops, stamp: stamp, version: version, schema: schema, touched: &touched)
    }

    /// `apply(_:stamp:version:schema:)`, appending to `touched` the slot of every entity the write
    /// put (once each, in the order first put; those of a refused write too, though it was rolled
    /// back). Incremental callers need it: a client's view re-lays only the slots its pending
    /// writes touched, and the server sends only the entities changed since a version.
    public mutating func apply(_ ops: [Op], stamp: HLCTimestamp, version: UInt64, schema: Schema,
                               touched: inout [Int]) -> Result<[Op], ReferenceRefusal> {
        // A write of one step needs no undo: a step is refused before it puts anything.
        var journal = Journal(slots: states.count, undoes: ops.count > 1)
        swap(&journal.touched, &touched)
        journal.touchedStart = journal.touched.count
        defer { swap(&journal.touched, &touched) }
        var effective: [Op] = []
        effective.reserveCapacity(ops.count)
        for op in ops {
            switch applyOne(op, stamp: stamp, version: version, schema: schema, journal: &journal) {
            case .success(let e): effective.append(e)
            case .failure(let r):
                rollBack(journal)
                return .failure(r)
            }
        }
        return .success(effective)
    }

    /// Makes slot `i` what it is in `other` (its registers and its record; absent if `other` has
    /// no such slot): how a client's view drops what a pending write laid over its replica.
    mutating func copySlot(_ i: Int, from other: ReferenceTable) {
        let id = EntityID(UInt32(i))
        if i < other.states.count, let s = other.states[i] {
            if i >= states.count { states.append(contentsOf: repeatElement(nil, count: i - states.count + 1)) }
            states[i] = s
            store[id] = other.store[id]
        } else if i < states.count {
            states[i] = nil
            store[id] = nil
        }
    }

    /// What a write changed so far: each slot as it was before its first change, `states.count`
    /// before the write, the store's own undo log, and every slot put (once each).
    ///
    /// Without `undoes` (a write of one step: every step is checked, and refused, before it puts
    /// anything, so such a write is never rolled back) only the slots put are noted: saving
    /// each slot's registers and record cost a copy of each and a list to hold them per write.
    ///
    /// `touched` is the caller's list, lent for the write (`apply(…touched:)`): this write's slots
    /// are those from `touchedStart` on. Noting them straight into it saved a list per write (and
    /// the copy into the caller's list after it).
    struct Journal {
        var saved: [(index: Int, state: EntityState?)] = []
        var slots: Int
        var store = EntityStore.UndoLog()
        var touched: [Int] = []
        var touchedStart = 0
        let undoes: Bool
        init(slots: Int, undoes: Bool = true) {
            self.slots = slots
            self.undoes = undoes
        }
    }

    /// `put`, noting in `journal` what it replaces. `s` is taken (`consuming`): the caller's
    /// working copy moves into the slot instead of being copied there and then destroyed.
    mutating func put(_ id: EntityID, _ s: consuming EntityState, schema: Schema, journal: inout Journal) {
        let i = Int(id.raw)
        if !journal.touched[journal.touchedStart...].contains(i) { journal.touched.append(i) }
        if journal.undoes, i < journal.slots, !journal.saved.contains(where: { $0.index == i }) { journal.saved.append((i, states[i])) }
        if i >= states.count { states.append(contentsOf: repeatElement(nil, count: i - states.count + 1)) }
        let record = s.record(in: schema)
        states[i] = s
        if journal.undoes {
            store.set(id, record, undo: &journal.store)
        } else {
            store[id] = record
        }
    }

    /// Restores the table to what it was before the changes `journal` logged.
    mutating func rollBack(_ journal: Journal) {
        for (i, s) in journal.saved.reversed() { states[i] = s }
        if states.count > journal.slots { states.removeSubrange(journal.slots...) }
        store.rollBack(journal.store)
    }

    mutating func applyOne(_ op: Op, stamp: HLCTimestamp, version: UInt64, schema: Schema, journal: inout Journal) -> Result<Op, ReferenceRefusal> {
        switch op {
        case .create(let e, let ns, let a), .update(let e, let ns, let a):
            if let err = EntityStore.validate(a, ns, schema: schema) { return .failure(.invalid(err.description)) }
            var s = self[e] ?? EntityState(namespace: ns, schema: schema)
            if s.deleted { return .failure(.tombstoned(e)) }
            if s.namespace != ns { return .failure(.invalid("entity \(e.raw) is in \(s.namespace.name), not \(ns.name)")) }
            // The assignments that won, listed only once one has lost: usually every one wins,
            // and the step took effect as it is (the same value, without building a list).
            var won: [FieldAssignment]?
            for k in a.indices {
                let f = Int(a[k].field.raw)
                if let old = s.valueStamps[f], old > stamp {
                    if won == nil { won = Array(a[0..<k]) }
                    continue
                }
                s.values[f] = a[k].value
                s.valueStamps[f] = stamp
                won?.append(a[k])
            }
            s.version = version
            put(e, s, schema: schema, journal: &journal)
            guard let won else { return .success(op) }
            if case .create = op { return .success(.create(e, ns, won)) }
            return .success(.update(e, ns, won))
        case .delete(let e, let ns):
            guard schema.contains(ns) else { return .failure(.invalid("namespace \(ns.raw) is not in the schema")) }
            var s = self[e] ?? EntityState(namespace: ns, schema: schema)
            if s.namespace != ns { return .failure(.invalid("entity \(e.raw) is in \(s.namespace.name), not \(ns.name)")) }
            if !s.deleted {
                s.deleted = true
                s.values = Array(repeating: nil, count: schema.fieldCount)
                s.links = Array(repeating: nil, count: schema.linkCount)
                if !s.manyLinks.isEmpty { s.manyLinks = Array(repeating: [], count: schema.linkCount) }
                s.version = version
                put(e, s, schema: schema, journal: &journal)
                // The live entities linking to `e`, found in the store kept in step with the
                // registers (a live entity's record has its links, and its has-many targets
                // present): the same entities as testing every slot's registers, in a pass that
                // reads each record in place (testing the registers cost a reference count per
                // register array, for every entity, on every delete). Listed first, then changed
                // in id order, as before: a put changes only its own slot.
                // (`EntityStore.slots(referringTo:)`, the store's own delete scan.)
                for i in store.slots(referringTo: e) {
                    var r = states[i]!
                    for l in r.links.indices where r.links[l] == e { r.links[l] = nil }
                    for l in r.manyLinks.indices { r.manyLinks[l].removeAll { $0.target == e } }
                    r.version = version
                    put(EntityID(UInt32(i)), r, schema: schema, journal: &journal)
                }
            }
            return .success(op)
        case .link(let e, let l, let target), .unlink(let e, let l, let target):
            guard var s = self[e] else { return .failure(.missing(e)) }
            if s.deleted { return .failure(.tombstoned(e)) }
            guard schema.contains(l) else { return .failure(.invalid("link \(l.raw) is not in the schema")) }
            if s.namespace != schema.source(of: l) { return .failure(.invalid("entity \(e.raw) is not in \(schema.source(of: l).name)")) }
            let li = Int(l.raw)
            if case .link = op {
                guard let ts = self[target] else { return .failure(.missing(target)) }
                if ts.deleted { return .failure(.tombstoned(target)) }
                if ts.namespace != schema.target(of: l) { return .failure(.invalid("link target \(target.raw) is not in \(schema.target(of: l).name)")) }
            }
            if schema.isMany(l) {
                // One register per target: link sets it present, unlink absent, newest stamp wins.
                let present: Bool
                if case .link = op { present = true } else { present = false }
                if let k = s.manyLinks[li].firstIndex(where: { $0.target == target }) {
                    if s.manyLinks[li][k].stamp > stamp { return .success(op) }
                    s.manyLinks[li][k].present = present
                    s.manyLinks[li][k].stamp = stamp
                } else {
                    s.manyLinks[li].append(EntityState.ManyLinkRegister(target: target, present: present, stamp: stamp))
                    s.manyLinks[li].sort { $0.target < $1.target }
                }
                s.version = version
                put(e, s, schema: schema, journal: &journal)
                return .success(op)
            }
            if case .link = op {
                if let old = s.linkStamps[li], old > stamp { return .success(op) }
                s.links[li] = target
            } else {
                if let old = s.linkStamps[li], old > stamp { return .success(op) }
                guard s.links[li] == target else { return .success(op) }
                s.links[li] = nil
            }
            s.linkStamps[li] = stamp
            s.version = version
            put(e, s, schema: schema, journal: &journal)
            return .success(op)
        }
    }
}
