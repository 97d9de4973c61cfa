/// One step of a write: the common vocabulary of user intents and of most wire protocols.
///
/// `update` names its namespace so that an upsert (InstantDB's update of an entity not in any
/// cached store) can create the entity. `link` replaces a cardinality-one link's target and adds
/// to a has-many link's targets; `unlink` removes the given target.
public enum Op: Hashable, Sendable, CustomStringConvertible, StableHashable {
    case create(EntityID, NamespaceID, [FieldAssignment])
    case update(EntityID, NamespaceID, [FieldAssignment])
    case delete(EntityID, NamespaceID)
    case link(EntityID, LinkID, EntityID)
    case unlink(EntityID, LinkID, EntityID)

    /// The entity the step changes.
    public var entity: EntityID {
        switch self {
        case .create(let e, _, _), .update(let e, _, _), .delete(let e, _), .link(let e, _, _), .unlink(let e, _, _):
            return e
        }
    }

    /// The namespace of the entity the step changes (a link's source namespace in `schema`).
    public func namespace(in schema: Schema) -> NamespaceID {
        switch self {
        case .create(_, let ns, _), .update(_, let ns, _), .delete(_, let ns): return ns
        case .link(_, let l, _), .unlink(_, let l, _): return schema.contains(l) ? schema.source(of: l) : NamespaceID(UInt8.max)
        }
    }

    public var assignments: [FieldAssignment] {
        switch self {
        case .create(_, _, let a), .update(_, _, let a): return a
        default: return []
        }
    }

    public var isDelete: Bool { if case .delete = self { return true } else { return false } }

    public var description: String {
        switch self {
        case .create(let e, let ns, let a):
            return "create \(EntityRef(e, ns))" + (a.isEmpty ? "" : " {\(a.map(\.description).joined(separator: ", "))}")
        case .update(let e, let ns, let a):
            return "set \(EntityRef(e, ns)) {\(a.map(\.description).joined(separator: ", "))}"
        case .delete(let e, let ns):
            return "delete \(EntityRef(e, ns))"
        case .link(let e, let l, let t):
            let s = Schema.describing
            guard s.contains(l) else { return "link \(e.raw).link\(l.raw) → \(t.raw)" }
            return "link \(EntityRef(e, s.source(of: l))).\(l.name) → \(EntityRef(t, s.target(of: l)))"
        case .unlink(let e, let l, let t):
            let s = Schema.describing
            guard s.contains(l) else { return "unlink \(e.raw).link\(l.raw) ↛ \(t.raw)" }
            return "unlink \(EntityRef(e, s.source(of: l))).\(l.name) ↛ \(EntityRef(t, s.target(of: l)))"
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .create(let e, let ns, let a):
            h.byte(1); h.combine(e.raw); h.byte(ns.raw); h.combine(a.count)
            for x in a { h.byte(x.field.raw); x.value.stableHash(into: &h) }
        case .update(let e, let ns, let a):
            h.byte(2); h.combine(e.raw); h.byte(ns.raw); h.combine(a.count)
            for x in a { h.byte(x.field.raw); x.value.stableHash(into: &h) }
        case .delete(let e, let ns): h.byte(3); h.combine(e.raw); h.byte(ns.raw)
        case .link(let e, let l, let t): h.byte(4); h.combine(e.raw); h.byte(l.raw); h.combine(t.raw)
        case .unlink(let e, let l, let t): h.byte(5); h.combine(e.raw); h.byte(l.raw); h.combine(t.raw)
        }
    }
}

/// `todo#3`: how people read an entity.
public struct EntityRef: CustomStringConvertible, Sendable {
    public let id: EntityID
    public let namespace: NamespaceID
    public init(_ id: EntityID, _ namespace: NamespaceID) { self.id = id; self.namespace = namespace }
    public var description: String { "\(namespace.singular)#\(id.raw)" }
}
