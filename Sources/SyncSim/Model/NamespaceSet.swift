/// A set of namespaces as a bit set (a schema has at most `Schema.Limits.namespaces`, 32).
///
/// Why: a server that re-evaluates every subscription after every transaction pays for the whole
/// store per subscription per transaction. A query's result depends only on the records of the
/// namespaces it reads (`Query.readNamespaces(in:)`), and a step changes only the records of the
/// namespaces it writes (`Op.changedNamespaces(in:before:)`); when the two are disjoint the result
/// is unchanged, with no evaluation at all (InstantDB's server invalidates queries by topic the
/// same way).
public struct NamespaceSet: Hashable, Sendable {
    public private(set) var bits: UInt64 = 0

    public init() {}

    /// Every namespace (what a step with an id outside the schema is taken to touch).
    public static let all = NamespaceSet(bits: .max)

    init(bits: UInt64) { self.bits = bits }

    @inlinable public var isEmpty: Bool { bits == 0 }

    public func contains(_ ns: NamespaceID) -> Bool {
        ns.raw < 64 ? bits & (1 << UInt64(ns.raw)) != 0 : bits == .max
    }

    public mutating func insert(_ ns: NamespaceID) {
        if ns.raw < 64 { bits |= 1 << UInt64(ns.raw) } else { bits = .max }
    }

    public mutating func formUnion(_ other: NamespaceSet) { bits |= other.bits }

    public func isDisjoint(with other: NamespaceSet) -> Bool { bits & other.bits == 0 }
}

extension Op {
    /// The namespaces whose records this step changes when applied to `store` (read before the
    /// step): its entity's namespace, a link's source namespace, and for a delete also the
    /// namespaces of the records whose links to the deleted entity are cleared. An id outside
    /// the schema counts as touching everything (the step then fails; nothing is skipped wrongly).
    public func changedNamespaces(in schema: Schema, before store: EntityStore) -> NamespaceSet {
        var s = NamespaceSet()
        switch self {
        case .create(_, let ns, _), .update(_, let ns, _):
            s.insert(ns)
        case .delete(let e, let ns):
            // The record's own namespace decides (a delete names one, but the store is the truth).
            let actual = store.namespace(of: e) ?? ns
            guard schema.contains(actual) else { return .all }
            s.insert(actual)
            for l in schema.incomingLinks(of: actual) { s.insert(schema.source(of: l)) }
        case .link(_, let l, _), .unlink(_, let l, _):
            guard schema.contains(l) else { return .all }
            s.insert(schema.source(of: l))
        }
        return s
    }
}

extension Query {
    /// The namespaces whose records this query's result is computed from: its own and, with an
    /// include tree, every namespace it reaches (`.all` if a link does not fit the schema).
    public func readNamespaces(in schema: Schema) -> NamespaceSet {
        var s = NamespaceSet()
        s.insert(namespace)
        for n in includes where !Self.valid(n, from: namespace, in: schema) { return .all }
        for inc in reachedNamespaces(in: schema) { s.insert(inc) }
        return s
    }
}
