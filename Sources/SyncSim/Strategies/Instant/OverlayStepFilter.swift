/// Which pending steps one query's overlay store takes (`InstantClient.refreshYields`).
///
/// Why: the client keeps one overlay store per query (the server's answer with every visible
/// pending step applied, as Reactor.js applies the pending mutations over each query's result),
/// so every write was applied once per query, although most queries cannot read what it wrote:
/// a todo's edit changes nothing a query of profiles shows. In the instant bench profile the
/// overlay upkeep (`refreshYields`: applying steps, rolling back, patching views) was a quarter
/// of all instructions.
///
/// The store takes a step when it writes a namespace of `namespaces`: those the query reads
/// (`Query.readNamespaces`) and the targets of their links (a link is set only to an entity the
/// store holds, and the link shows in the linking record). A step left out changes only records
/// the query never reads, so the view over the store is what it would be with every step, with
/// one exception: the entity it writes then exists in the full store and not in this one, and a
/// later step naming that entity again could succeed or fail differently (a create of an id
/// another namespace already uses, an update that would be refused as the wrong namespace, a link
/// to it). So the filter remembers the entities of the steps it left out, and when a step it
/// would take names one of them it stops filtering for good (`keepsAll`): the caller rebuilds the
/// store from its base with every step. Generated workloads never name an entity in two
/// namespaces; hostile schedules may, and then cost what they did before.
///
/// Derived state like the rest of the overlay cache: never observable, never persisted.
/// `InstantIncrementalTests` compares every view with one rebuilt from every step.
struct OverlayStepFilter: Sendable {
    /// The namespaces whose steps the store takes; nil until the store is first built (the
    /// query is fixed for the life of its state, the schema for the life of the client), and
    /// until then every step is taken.
    private var namespaces: NamespaceSet?
    /// Entities written by steps the store left out since its last restart, ascending.
    private var skipped: [EntityID] = []
    /// Set when a step the store takes named a skipped entity: from then on it takes every step.
    private(set) var keepsAll = false

    /// `keepsAll`: a store that takes every step (what the tests rebuild views with).
    init(keepsAll: Bool = false) { self.keepsAll = keepsAll }

    /// What one step means for a store that takes the steps of `ns`, given the entities
    /// already left out.
    private enum Use { case take, leave(EntityID?), conflict }

    private static func use(_ op: Op, _ ns: NamespaceSet, _ schema: Schema, _ skipped: [EntityID]) -> Use {
        switch op {
        case .create(let e, let n, _), .update(let e, let n, _):
            if ns.contains(n) { return contains(skipped, e) ? .conflict : .take }
            return .leave(e)
        case .delete(let e, _):
            return contains(skipped, e) ? .conflict : .take
        case .link(let e, let l, let t), .unlink(let e, let l, let t):
            // An unknown link fails wherever it is applied: taking it changes nothing.
            guard schema.contains(l) else { return .take }
            if ns.contains(schema.source(of: l)) {
                return contains(skipped, e) || contains(skipped, t) ? .conflict : .take
            }
            // A link whose source namespace the store does not take changes no record it holds:
            // its entity, if the store had it, would be of another namespace and the link refused.
            return .leave(nil)
        }
    }

    /// The first position in `ids` (ascending) not below `e`.
    private static func position(_ e: EntityID, in ids: [EntityID]) -> Int {
        var lo = 0, hi = ids.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ids[mid] < e { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private static func contains(_ ids: [EntityID], _ e: EntityID) -> Bool {
        let k = position(e, in: ids)
        return k < ids.count && ids[k] == e
    }

    private static func insert(_ ids: inout [EntityID], _ e: EntityID) {
        let k = position(e, in: ids)
        if k == ids.count || ids[k] != e { ids.insert(e, at: k) }
    }

    /// The namespaces a query's store takes the steps of: what it reads and where those
    /// namespaces' links point.
    static func namespaces(of query: Query, schema: Schema) -> NamespaceSet {
        var s = query.readNamespaces(in: schema)
        if s == .all { return s }
        let read = s
        for k in 0..<schema.linkCount {
            let l = LinkID(UInt8(k))
            if read.contains(schema.source(of: l)) { s.insert(schema.target(of: l)) }
        }
        return s
    }

    /// Whether the store takes `op` (true), leaves it out (false, noting its entity), or meets a
    /// conflict (nil): `op` names an entity a left-out step wrote. Then filtering stops for good
    /// and the caller must build the store again from its base with every step.
    mutating func take(_ op: Op, schema: Schema) -> Bool? {
        if keepsAll { return true }
        guard let ns = namespaces else { return true }
        switch Self.use(op, ns, schema, skipped) {
        case .take: return true
        case .leave(let e):
            if let e { Self.insert(&skipped, e) }
            return false
        case .conflict:
            keepsAll = true
            return nil
        }
    }

    /// Before the store is built again from its base: forgets what it left out.
    mutating func restart(query: Query, schema: Schema) {
        skipped.removeAll(keepingCapacity: true)
        if !keepsAll && namespaces == nil { namespaces = Self.namespaces(of: query, schema: schema) }
    }
}
