/// Sparse entity ids made dense, so memory follows what a run uses rather than how large an id is.
///
/// Why: stores index entities by id, so one entity numbered 900,000 costs a slot for every
/// smaller id in every store that holds it (measured before this: one such entity, 26 clients,
/// 2.4 GB). A schedule whose ids are dense already (every generated schedule, every file in
/// `Scenarios/`) is returned unchanged, so its trace hash is too; a sparse one has its ids
/// renumbered 1, 2, 3, … in increasing order, which keeps every relation between them (order,
/// equality) and so the run's meaning. Stories then print the new ids; `entityRenumbering`
/// lists the pairs.
extension Schedule {
    /// Ids are dense enough when the largest is below this floor or below `densityFactor` times
    /// the number of distinct ids.
    public static let denseIDFloor: UInt32 = 4_096
    public static let densityFactor = 4

    /// Every entity id the schedule names (initial data, link targets, actions), ascending.
    public var entityIDs: [EntityID] {
        var all: [EntityID] = []
        for e in initial {
            all.append(e.entity)
            for l in e.links { all.append(l.target) }
        }
        for a in actions { all.append(contentsOf: a.action.entities) }
        all.sort()
        var out: [EntityID] = []
        for e in all where out.last != e { out.append(e) }
        return out
    }

    /// The (old, new) pairs `withDenseEntityIDs()` applies; empty when the ids are dense.
    public var entityRenumbering: [(from: EntityID, to: EntityID)] {
        let ids = entityIDs
        guard let top = ids.last, top.raw >= Self.denseIDFloor, Int(top.raw) >= Self.densityFactor * ids.count else { return [] }
        return ids.enumerated().map { ($0.element, EntityID(UInt32($0.offset + 1))) }
    }

    /// This schedule with sparse entity ids renumbered in order (see the type's note), or
    /// unchanged when they are dense.
    public func withDenseEntityIDs() -> Schedule {
        let pairs = entityRenumbering
        guard !pairs.isEmpty else { return self }
        // Binary search over the ascending old ids: no hashing, no dictionary order.
        let old = pairs.map(\.from)
        func map(_ e: EntityID) -> EntityID {
            var lo = 0, hi = old.count - 1
            while lo <= hi {
                let mid = (lo + hi) / 2
                if old[mid] == e { return pairs[mid].to }
                if old[mid] < e { lo = mid + 1 } else { hi = mid - 1 }
            }
            return e
        }
        var s = self
        s.initial = initial.map { e in
            var e = e
            e.entity = map(e.entity)
            e.links = e.links.map { LinkAssignment($0.link, map($0.target)) }
            return e
        }
        s.actions = actions.map { TimedAction(at: $0.at, $0.action.mappingEntities(map)) }
        return s
    }
}

extension Action {
    /// The entity ids this action names (the entity, then a link's target).
    public var entities: [EntityID] {
        switch self {
        case .create(_, let e, _, _), .update(_, let e, _), .delete(_, let e), .type(_, let e, _, _, _),
             .serverCreate(let e, _, _), .serverUpdate(let e, _), .serverDelete(let e):
            return [e]
        case .link(_, let e, _, let t), .unlink(_, let e, _, let t):
            return [e, t]
        case .bulkCreate(_, let first, let count, _, _):
            // Every id of the range (a count outside its range is `compile()`'s to report).
            let n = UInt32(min(max(count, 0), ScheduleLimits.bulkCounts.upperBound))
            return (0..<n).compactMap { k in first.raw.addingReportingOverflow(k).overflow ? nil : EntityID(first.raw + k) }
        case .subscribe, .unsubscribe, .queryOnce, .goOffline, .goOnline, .serverUnreachable, .serverReachable, .restart, .forceSync, .crash, .dropOldestWrite, .syncNow,
             .switchTenant, .logout:
            return []
        }
    }

    /// The same action with every entity id passed through `f`.
    func mappingEntities(_ f: (EntityID) -> EntityID) -> Action {
        switch self {
        case .create(let c, let e, let n, let v): return .create(c, f(e), n, v)
        case .update(let c, let e, let v): return .update(c, f(e), v)
        case .delete(let c, let e): return .delete(c, f(e))
        case .link(let c, let e, let l, let t): return .link(c, f(e), l, f(t))
        case .unlink(let c, let e, let l, let t): return .unlink(c, f(e), l, f(t))
        case .type(let c, let e, let fl, let text, let every): return .type(c, f(e), fl, text, everyMs: every)
        case .serverCreate(let e, let n, let v): return .serverCreate(f(e), n, v)
        case .serverUpdate(let e, let v): return .serverUpdate(f(e), v)
        case .serverDelete(let e): return .serverDelete(f(e))
        case .bulkCreate(let c, let first, let count, let n, let v):
            // The range stays consecutive: renumbering keeps order, and no other id lies inside it.
            return .bulkCreate(c, firstEntity: f(first), count: count, n, v)
        case .subscribe, .unsubscribe, .queryOnce, .goOffline, .goOnline, .serverUnreachable, .serverReachable, .restart, .forceSync, .crash, .dropOldestWrite, .syncNow,
             .switchTenant, .logout:
            return self
        }
    }
}
