extension Query {
    /// One node of a query's include tree: a link to follow from the entities of the level above,
    /// and the includes of the entities it reaches (InstaQL's nested `{posts: {author: {posts:
    /// {comments: {}}}}}`).
    ///
    /// Why a tree of levels and not a walk of the link graph: with cyclic links (post → author
    /// → posts → comments → author) a walk may never end; a tree is finite by construction, and
    /// each level's entities are exactly those one link away from the level above (an entity
    /// may appear at several levels; the result lists it once).
    public struct IncludeNode: Hashable, Sendable, StableHashable {
        public var link: Include
        public var children: [IncludeNode]
        public init(_ link: Include, children: [IncludeNode] = []) {
            self.link = link
            self.children = children
        }

        /// Levels in this subtree (a leaf is 1).
        public var depth: Int { 1 + (children.map(\.depth).max() ?? 0) }
        /// Nodes in this subtree.
        public var count: Int { 1 + children.reduce(0) { $0 + $1.count } }

        /// The namespace the link reaches from `from`, if the schema has it and it starts at `from`.
        public func reached(from ns: NamespaceID, in schema: Schema) -> NamespaceID? {
            switch link {
            case .forward(let l) where schema.contains(l) && schema.source(of: l) == ns: return schema.target(of: l)
            case .reverse(let l) where schema.contains(l) && schema.target(of: l) == ns: return schema.source(of: l)
            default: return nil
            }
        }

        public var linkID: LinkID {
            switch link { case .forward(let l), .reverse(let l): return l }
        }

        func describe(into s: inout String) {
            switch link {
            case .forward(let l): s += l.name
            case .reverse(let l): s += l.reverseName
            }
            if !children.isEmpty {
                s += " { "
                for (i, c) in children.enumerated() {
                    if i > 0 { s += ", " }
                    c.describe(into: &s)
                }
                s += " }"
            }
        }

        public func stableHash(into h: inout StableHasher) {
            switch link {
            case .forward(let l): h.byte(1); h.byte(l.raw)
            case .reverse(let l): h.byte(2); h.byte(l.raw)
            }
            h.combine(children.count)
            for c in children { c.stableHash(into: &h) }
        }

        /// Canonical order of siblings (forward before reverse, then by link id), so a tree read
        /// from JSON in any key order is one value.
        static func canonicalOrder(_ a: IncludeNode, _ b: IncludeNode) -> Bool {
            func key(_ n: IncludeNode) -> (Int, UInt8) {
                switch n.link { case .forward(let l): return (0, l.raw); case .reverse(let l): return (1, l.raw) }
            }
            return key(a) < key(b)
        }
    }

    /// Every namespace the include tree reaches in `schema` (not the root namespace unless a
    /// level reaches it), in first-reached order.
    public func reachedNamespaces(in schema: Schema) -> [NamespaceID] {
        var out: [NamespaceID] = []
        func walk(_ n: IncludeNode, from ns: NamespaceID) {
            guard let to = n.reached(from: ns, in: schema) else { return }
            if !out.contains(to) { out.append(to) }
            for c in n.children { walk(c, from: to) }
        }
        for n in includes { walk(n, from: namespace) }
        return out
    }

    /// Levels of the include tree (0 without includes).
    public var includeDepth: Int { includes.map(\.depth).max() ?? 0 }

    /// Whether the query has the shapes the incremental paths were first written for: at most
    /// one include of one level, no `condition`, no `limit`. Fast paths written for those shapes
    /// (outside `Query`) must fall back to evaluation for the others.
    public var isBasic: Bool {
        condition == nil && limit == nil && includes.count <= 1 && (includes.first?.children.isEmpty ?? true)
    }
}
