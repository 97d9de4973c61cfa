/// One entity's data: a fixed-size slot per global field and per link (nil = absent).
public struct EntityRecord: Hashable, Sendable, StableHashable {
    public var namespace: NamespaceID
    public var values: [FieldValue?]
    public var links: [EntityID?]

    public init(namespace: NamespaceID) {
        self.namespace = namespace
        // Fresh slots per record: sharing one global blank array between records saves an
        // allocation but makes its reference count a point of contention between threads
        // running simulations in parallel.
        values = [nil, nil, nil, nil, nil, nil, nil]
        links = [nil]
    }

    @inline(__always) public subscript(field: FieldID) -> FieldValue? {
        get { values[Int(field.raw)] }
        set { values[Int(field.raw)] = newValue }
    }

    @inline(__always) public subscript(link: LinkID) -> EntityID? {
        get { links[Int(link.raw)] }
        set { links[Int(link.raw)] = newValue }
    }

    public func stableHash(into h: inout StableHasher) {
        h.byte(namespace.raw)
        values.withUnsafeBufferPointer { vs in
            for i in vs.indices {
                switch vs[i] {
                case .none: h.byte(0)
                case .some(.int(let x)): h.byte(1); h.byte(2); h.combine(x)
                case .some(.bool(let x)): h.byte(1); h.byte(3); h.combine(x)
                case .some(.string): h.byte(1); vs[i]!.stableHash(into: &h)
                }
            }
        }
        links.withUnsafeBufferPointer { ls in
            for l in ls {
                if let l { h.byte(1); h.combine(l.raw) } else { h.byte(0) }
            }
        }
    }

    /// `{title = "Te", done = true, author → profile#2}`
    public var summary: String {
        var parts: [String] = []
        for f in namespace.fields { if let v = self[f] { parts.append("\(f.name) = \(v)") } }
        for l in namespace.links { if let t = self[l] { parts.append("\(l.name) → \(EntityRef(t, l.to))") } }
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

    public var description: String {
        switch self {
        case .missingEntity(let e): return "entity \(e.raw) does not exist"
        case .alreadyExists(let e): return "entity \(e.raw) already exists"
        case .wrongNamespace(let e): return "entity \(e.raw) is in another namespace"
        case .fieldNotInNamespace(let f, let ns): return "field \(f.name) is not a field of \(ns.name)"
        case .wrongFieldType(let f): return "wrong value type for \(f.name)"
        case .missingLinkTarget(let e): return "link target \(e.raw) does not exist"
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
    init(entriesOf r: QueryResult) {
        var n = 0
        for e in r.entries { n = max(n, Int(e.id.raw) + 1) }
        guard n > 0 else { return }
        records = Array(repeating: nil, count: n)
        for e in r.entries {
            let i = Int(e.id.raw)
            if records[i] == nil { count += 1 }
            records[i] = e.record
        }
    }

    @inline(__always) public subscript(id: EntityID) -> EntityRecord? {
        get { Int(id.raw) < records.count ? records[Int(id.raw)] : nil }
        set {
            let i = Int(id.raw)
            if i >= records.count {
                if newValue == nil { return }
                records.append(contentsOf: repeatElement(nil, count: i - records.count + 1))
            }
            let had = records[i] != nil
            records[i] = newValue
            count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
        }
    }

    @inline(__always) public func contains(_ id: EntityID) -> Bool { self[id] != nil }

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

    /// Validates and applies one step.
    ///  - `create` of an existing entity fails (`alreadyExists`), as InstantDB's create mode does.
    ///  - `update` of a missing entity fails in `.update` mode and creates a partial entity in `.upsert`.
    ///  - `delete` removes the entity and every link pointing at it; deleting a missing entity is a no-op.
    public mutating func apply(_ op: Op, mode: UpdateMode = .upsert) -> ApplyError? {
        switch op {
        case .create(let e, let ns, let a):
            if contains(e) { return .alreadyExists(e) }
            if let err = Self.validate(a, ns) { return err }
            var r = EntityRecord(namespace: ns)
            for x in a { r[x.field] = x.value }
            self[e] = r
        case .update(let e, let ns, let a):
            if let err = Self.validate(a, ns) { return err }
            let i = Int(e.raw)
            if i < records.count, let have = records[i]?.namespace {
                if have != ns { return .wrongNamespace(e) }
                // In place: the record's slots are copied at most once (if shared).
                for x in a { records[i]![x.field] = x.value }
            } else {
                if mode == .update { return .missingEntity(e) }
                var r = EntityRecord(namespace: ns)
                for x in a { r[x.field] = x.value }
                self[e] = r
            }
        case .delete(let e, _):
            guard contains(e) else { return nil }
            self[e] = nil
            removeReferences(to: e)
        case .link(let e, let l, let t):
            guard let ns = self[e]?.namespace else { return .missingEntity(e) }
            if ns != l.from { return .wrongNamespace(e) }
            guard let tns = self[t]?.namespace, tns == l.to else { return .missingLinkTarget(t) }
            records[Int(e.raw)]![l] = t
        case .unlink(let e, let l, let t):
            guard contains(e) else { return .missingEntity(e) }
            if records[Int(e.raw)]![l] == t { records[Int(e.raw)]![l] = nil }
        }
        return nil
    }

    static func validate(_ a: [FieldAssignment], _ ns: NamespaceID) -> ApplyError? {
        for x in a {
            if x.field.namespace != ns { return .fieldNotInNamespace(x.field, ns) }
            if x.value.kind != x.field.kind { return .wrongFieldType(x.field) }
        }
        return nil
    }

    public mutating func removeReferences(to target: EntityID) {
        for i in records.indices {
            guard let r = records[i], r.links.contains(target) else { continue }
            for l in r.links.indices where records[i]!.links[l] == target { records[i]!.links[l] = nil }
        }
    }

    /// Entities whose `link` points at `target` (the reverse view, e.g. `profile.posts`), in id order.
    public func referrers(to target: EntityID, via link: LinkID) -> [EntityID] {
        var out: [EntityID] = []
        for (i, r) in records.enumerated() where r?[link] == target { out.append(EntityID(UInt32(i))) }
        return out
    }

    public func stableHash(into h: inout StableHasher) {
        h.combine(count)
        for (i, r) in records.enumerated() {
            if let r { h.combine(UInt32(i)); r.stableHash(into: &h) }
        }
    }

    public static func == (a: EntityStore, b: EntityStore) -> Bool {
        if a.count != b.count { return false }
        let n = max(a.records.count, b.records.count)
        for i in 0..<n {
            let x = i < a.records.count ? a.records[i] : nil
            let y = i < b.records.count ? b.records[i] : nil
            if x != y { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(StableHasher.hash(self)) }
}
