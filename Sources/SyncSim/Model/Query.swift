/// A subscription's query: one namespace, an optional equality filter, and optionally one level of
/// linked entities (`posts` with their `author`, or `profiles` with their `posts`).
///
/// Filtered queries and link-reached entities are the *partial views* of seed 001: a view that
/// shows only some of a namespace's entities.
public struct Query: Hashable, Sendable, CustomStringConvertible, StableHashable {
    public enum Include: Hashable, Sendable {
        /// Follow the link forward: `posts` → their `author` profile.
        case forward(LinkID)
        /// Follow the link backward: `profiles` → the `posts` whose author they are (nested children).
        case reverse(LinkID)
    }

    public var namespace: NamespaceID
    public var filter: FieldAssignment?
    public var include: Include?

    public init(_ namespace: NamespaceID, where filter: FieldAssignment? = nil, include: Include? = nil) {
        self.namespace = namespace
        self.filter = filter
        self.include = include
    }

    /// The namespace of the linked entities this query reaches, if any.
    public var includedNamespace: NamespaceID? {
        switch include {
        case .forward(let l)?: return l.to
        case .reverse(let l)?: return l.from
        case nil: return nil
        }
    }

    /// True if every entity of `ns` on the server would appear in this query's result (no filter,
    /// not reached through a link). Views for which this is false are partial.
    public func seesAll(of ns: NamespaceID) -> Bool { ns == namespace && filter == nil }

    public var description: String {
        var s = namespace.name
        if let f = filter { s += " where \(f.field.name) == \(f.value)" }
        switch include {
        case .forward(let l)?: s += " with \(l.name)"
        case .reverse(let l)?: s += " with \(l.reverseName)"
        case nil: break
        }
        return s
    }

    public func matches(_ r: EntityRecord) -> Bool {
        guard r.namespace == namespace else { return false }
        if let f = filter { return r[f.field] == f.value }
        return true
    }

    /// Runs the query against a store. Pure and deterministic: results are in id order.
    public func evaluate(_ store: EntityStore) -> QueryResult {
        var roots: [EntityID] = []
        var children: [EntityID] = []
        for (id, r) in store.entities where matches(r) {
            roots.append(id)
            switch include {
            case .forward(let l)?:
                if let t = r[l], store.contains(t) { children.append(t) }
            case .reverse(let l)?:
                children.append(contentsOf: store.referrers(to: id, via: l))
            case nil: break
            }
        }
        return QueryResult(roots: roots, children: children, store: store)
    }

    public func stableHash(into h: inout StableHasher) {
        h.byte(namespace.raw)
        if let f = filter { h.byte(1); h.byte(f.field.raw); f.value.stableHash(into: &h) } else { h.byte(0) }
        switch include {
        case .forward(let l)?: h.byte(1); h.byte(l.raw)
        case .reverse(let l)?: h.byte(2); h.byte(l.raw)
        case nil: h.byte(0)
        }
    }
}

/// The result tree of a query: root entities and the linked children they reach, with their data.
public struct QueryResult: Hashable, Sendable, StableHashable {
    public struct Entry: Hashable, Sendable {
        public var id: EntityID
        public var record: EntityRecord
    }

    /// Root entity ids, ascending.
    public var roots: [EntityID]
    /// Every entity in the tree (roots and children), ascending, each once, with its data.
    public var entries: [Entry]

    public init(roots: [EntityID], entries: [Entry]) {
        self.roots = roots
        self.entries = entries
    }

    public static let empty = QueryResult(roots: [], entries: [])

    init(roots: [EntityID], children: [EntityID], store: EntityStore) {
        self.roots = roots
        var ids = roots + children
        ids.sort()
        var entries: [Entry] = []
        entries.reserveCapacity(ids.count)
        var last: EntityID?
        for id in ids where id != last {
            last = id
            if let r = store[id] { entries.append(Entry(id: id, record: r)) }
        }
        self.entries = entries
    }

    public func record(_ id: EntityID) -> EntityRecord? {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].id == id { return entries[mid].record }
            if entries[mid].id < id { lo = mid + 1 } else { hi = mid }
        }
        return nil
    }

    public func contains(_ id: EntityID) -> Bool { record(id) != nil }

    /// The ids of one namespace in this result (what a view "sees" of that namespace).
    public func ids(in ns: NamespaceID) -> [EntityID] {
        entries.filter { $0.record.namespace == ns }.map(\.id)
    }

    public func stableHash(into h: inout StableHasher) {
        h.combine(roots.count)
        for r in roots { h.combine(r.raw) }
        h.combine(entries.count)
        for e in entries { h.combine(e.id.raw); e.record.stableHash(into: &h) }
    }

    public var summary: String {
        entries.map { "\(EntityRef($0.id, $0.record.namespace))\($0.record.summary)" }.joined(separator: " ")
    }
}
