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
    /// The server version at which this entity last changed (0 on clients' local edits).
    public var version: UInt64 = 0

    public init(namespace: NamespaceID) {
        self.namespace = namespace
        values = Array(repeating: nil, count: Schema.fieldCount)
        valueStamps = Array(repeating: nil, count: Schema.fieldCount)
        links = Array(repeating: nil, count: Schema.linkCount)
        linkStamps = Array(repeating: nil, count: Schema.linkCount)
    }

    /// What the oracles and queries see: nil for a tombstone.
    public var record: EntityRecord? {
        if deleted { return nil }
        var r = EntityRecord(namespace: namespace)
        r.values = values
        r.links = links
        return r
    }

    public func stableHash(into h: inout StableHasher) {
        h.byte(namespace.raw); h.combine(deleted); h.combine(version)
        for (v, s) in zip(values, valueStamps) {
            if let v { h.byte(1); v.stableHash(into: &h) } else { h.byte(0) }
            if let s { h.byte(1); s.stableHash(into: &h) } else { h.byte(0) }
        }
        for (l, s) in zip(links, linkStamps) {
            if let l { h.byte(1); h.combine(l.raw) } else { h.byte(0) }
            if let s { h.byte(1); s.stableHash(into: &h) } else { h.byte(0) }
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
    public mutating func put(_ id: EntityID, _ s: EntityState) {
        let i = Int(id.raw)
        if i >= states.count { states.append(contentsOf: repeatElement(nil, count: i - states.count + 1)) }
        states[i] = s
        store[id] = s.record
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
    public mutating func apply(_ ops: [Op], stamp: HLCTimestamp, version: UInt64) -> Result<[Op], ReferenceRefusal> {
        var t = self
        var effective: [Op] = []
        effective.reserveCapacity(ops.count)
        for op in ops {
            switch t.applyOne(op, stamp: stamp, version: version) {
            case .success(let e): effective.append(e)
            case .failure(let r): return .failure(r)
            }
        }
        self = t
        return .success(effective)
    }

    mutating func applyOne(_ op: Op, stamp: HLCTimestamp, version: UInt64) -> Result<Op, ReferenceRefusal> {
        switch op {
        case .create(let e, let ns, let a), .update(let e, let ns, let a):
            for x in a {
                if x.field.namespace != ns { return .failure(.invalid("field \(x.field.name) is not a field of \(ns.name)")) }
                if x.value.kind != x.field.kind { return .failure(.invalid("wrong value type for \(x.field.name)")) }
            }
            var s = self[e] ?? EntityState(namespace: ns)
            if s.deleted { return .failure(.tombstoned(e)) }
            if s.namespace != ns { return .failure(.invalid("entity \(e.raw) is in \(s.namespace.name), not \(ns.name)")) }
            var won: [FieldAssignment] = []
            for x in a {
                let f = Int(x.field.raw)
                if let old = s.valueStamps[f], old > stamp { continue }
                s.values[f] = x.value
                s.valueStamps[f] = stamp
                won.append(x)
            }
            s.version = version
            put(e, s)
            if case .create = op { return .success(.create(e, ns, won)) }
            return .success(.update(e, ns, won))
        case .delete(let e, let ns):
            var s = self[e] ?? EntityState(namespace: ns)
            if s.namespace != ns { return .failure(.invalid("entity \(e.raw) is in \(s.namespace.name), not \(ns.name)")) }
            if !s.deleted {
                s.deleted = true
                s.values = Array(repeating: nil, count: Schema.fieldCount)
                s.links = Array(repeating: nil, count: Schema.linkCount)
                s.version = version
                put(e, s)
                for i in states.indices {
                    guard var r = states[i], !r.deleted, r.links.contains(e) else { continue }
                    for l in r.links.indices where r.links[l] == e { r.links[l] = nil }
                    r.version = version
                    put(EntityID(UInt32(i)), r)
                }
            }
            return .success(op)
        case .link(let e, let l, let target), .unlink(let e, let l, let target):
            guard var s = self[e] else { return .failure(.missing(e)) }
            if s.deleted { return .failure(.tombstoned(e)) }
            if s.namespace != l.from { return .failure(.invalid("entity \(e.raw) is not in \(l.from.name)")) }
            let li = Int(l.raw)
            if case .link = op {
                guard let ts = self[target] else { return .failure(.missing(target)) }
                if ts.deleted { return .failure(.tombstoned(target)) }
                if ts.namespace != l.to { return .failure(.invalid("link target \(target.raw) is not in \(l.to.name)")) }
                if let old = s.linkStamps[li], old > stamp { return .success(op) }
                s.links[li] = target
            } else {
                if let old = s.linkStamps[li], old > stamp { return .success(op) }
                guard s.links[li] == target else { return .success(op) }
                s.links[li] = nil
            }
            s.linkStamps[li] = stamp
            s.version = version
            put(e, s)
            return .success(op)
        }
    }
}
