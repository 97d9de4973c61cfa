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
            let picks = min(3, chains.count)
            for k in 0..<picks { out.append(Query(ns, condition: nil, includes: [chains[k * chains.count / picks]])) }
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
