extension Query {
    /// The richer queries the generator draws when `WorkloadGenerator.Config.richQueries` asks
    /// (or the schema has more than one link), built from the schema alone so a seed names the
    /// same schedule on every run:
    /// - per namespace with an int field `f`: `f > 0 limit 2` (a limited, filtered partial view),
    ///   `f in [0, 1] or f >= 50`;
    /// - per namespace with a string field: `s != ""` with `limit 1`;
    /// - per namespace with links: include chains four levels deep through the links both ways
    ///   (every chain in depth-first order, up to three spread over them), so cycles such as
    ///   post → author → posts → comments → commenter are reached.
    public static func richMenu(_ schema: Schema) -> [Query] {
        var out: [Query] = []
        for ns in schema.namespaceIDs {
            let fields = Array(schema.fields(of: ns))
            if let f = fields.first(where: { schema.kind(of: $0) == .int }) {
                out.append(Query(ns, condition: .compare(f, .gt, .int(0)), limit: 2))
                out.append(Query(ns, condition: .or([.isIn(f, [.int(0), .int(1)]), .compare(f, .gte, .int(50))])))
            }
            if let f = fields.first(where: { schema.kind(of: $0) == .string }) {
                out.append(Query(ns, condition: .compare(f, .ne, .string("")), limit: 1))
            }
            let chains = Self.chains(schema, from: ns, depth: QueryLimits.includeDepth)
            guard !chains.isEmpty else { continue }
            // The first chain that reaches the most namespaces through the most distinct links
            // (on the blog: post → author → posts → comments → commenter, seed 001's cycle),
            // then two spread over the rest.
            func rank(_ n: IncludeNode) -> (Int, Int) {
                var nss: [NamespaceID] = [ns], links: [LinkID] = []
                var node: IncludeNode? = n, at = ns
                while let x = node, let to = x.reached(from: at, in: schema) {
                    if !nss.contains(to) { nss.append(to) }
                    if !links.contains(x.linkID) { links.append(x.linkID) }
                    at = to
                    node = x.children.first
                }
                return (nss.count, links.count)
            }
            var best = 0
            for k in chains.indices where rank(chains[k]) > rank(chains[best]) { best = k }
            out.append(Query(ns, condition: nil, includes: [chains[best]]))
            for k in 1..<3 where chains.count > 1 {
                let i = k * chains.count / 3
                if i != best { out.append(Query(ns, condition: nil, includes: [chains[i]])) }
            }
        }
        return out
    }

    /// Every include chain of exactly `depth` levels from `ns` (forward links before reverse,
    /// by link id), depth first.
    static func chains(_ schema: Schema, from ns: NamespaceID, depth: Int) -> [IncludeNode] {
        func steps(_ n: NamespaceID) -> [(Include, NamespaceID)] {
            schema.links(of: n).map { (Include.forward($0), schema.target(of: $0)) }
                + schema.incomingLinks(of: n).map { (Include.reverse($0), schema.source(of: $0)) }
        }
        guard depth > 0 else { return [] }
        var out: [IncludeNode] = []
        for (link, to) in steps(ns) {
            if depth == 1 { out.append(IncludeNode(link)); continue }
            for c in chains(schema, from: to, depth: depth - 1) { out.append(IncludeNode(link, children: [c])) }
            if out.count > 256 { break }
        }
        return out
    }
}
