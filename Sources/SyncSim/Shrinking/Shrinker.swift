/// Minimises a failing schedule while the *same* invariant still fails.
///
/// Passes, repeated until none makes progress (each candidate is kept only if it still compiles
/// and still violates the target invariant):
///  1. delta debugging (Zeller's ddmin) over the actions, then over the initial entities;
///  2. shorten typing bursts;
///  3. drop clients no action needs, renumbering the rest;
///  4. turn faults off: drop/duplicate/delay rates to zero, clock skews to zero, latency fixed;
///  5. pull times earlier: close gaps between actions;
///  6. simplify values: shorter strings, zeros, fewer fields, simpler queries, simpler crash
///     points (a plain restart, then afterSend, then duringApply, then commitUnknown).
///
/// A candidate counts only if it fails for the same reason: the same invariant and, where the
/// oracle names one, the same culprit (`Violation.culprit`: an admin upsert stays an admin
/// upsert, never becomes a client delete), and only if it adds no causally impossible action (a
/// client editing, deleting or linking an entity nothing created before it).
///
/// Deterministic: candidates are tried in a fixed order and the simulation is deterministic, so
/// the same input always gives the same minimal schedule.
public struct Shrinker {
    public struct Progress: Sendable {
        public var runs: Int
        public var actions: Int
        public var pass: String
    }

    public struct Outcome: Sendable {
        public var schedule: Schedule
        public var violation: Violation
        public var runs: Int
        public var originalActions: Int

        @usableFromInline init(schedule: Schedule, violation: Violation, runs: Int, originalActions: Int) {
            self.schedule = schedule
            self.violation = violation
            self.runs = runs
            self.originalActions = originalActions
        }
    }

    let run: (Schedule) -> [Violation]?
    public let invariant: InvariantID
    public private(set) var runs = 0
    public var maxRuns = 5_000
    /// Asked before every candidate run (a deadline, Ctrl-C): once true, no further candidate is
    /// run or even built, and `shrink` ends at once. Must stay true once true.
    public var shouldStop: () -> Bool = { false }
    /// The run budget is spent or a stop was asked: every pass ends at its next step (a pass
    /// must not keep building candidates it will never run: on a long schedule that alone is
    /// quadratic).
    private(set) var done = false
    var onProgress: ((Progress) -> Void)?

    /// - Parameter run: runs a candidate; nil when it does not compile.
    public init(invariant: InvariantID, run: @escaping (Schedule) -> [Violation]?, onProgress: ((Progress) -> Void)? = nil) {
        self.invariant = invariant
        self.run = run
        self.onProgress = onProgress
    }

    /// A shrinker for a strategy and seed (the seed stays fixed: it drives network and ids).
    @inlinable
    public init<S: SyncStrategy>(strategy: S, seed: UInt64, invariant: InvariantID, onProgress: ((Progress) -> Void)? = nil) {
        self.init(invariant: invariant, run: { s in
            (try? Simulator.run(strategy, s, seed: seed))?.violations
        }, onProgress: onProgress)
    }

    /// The culprit of the original failure (`Violation.culprit`): a candidate counts as failing
    /// only if it fails with the same culprit (the same reason, not only the same invariant).
    /// Set from the first run when `keepsCulprit`.
    public private(set) var culprit: String?
    /// Keep the culprit stable (default). Off: any violation of the invariant will do.
    public var keepsCulprit = true
    /// Actions of the original schedule that no user could have made (see `impossibleActions`):
    /// a candidate may keep those, never add others.
    var allowedImpossible = Set<String>()

    mutating func fails(_ s: Schedule) -> Bool {
        guard !done else { return false }
        // Causally impossible candidates are refused before they cost a run.
        if !Self.impossibleActions(s).isSubset(of: allowedImpossible) { return false }
        guard runs < maxRuns, !shouldStop() else {
            done = true
            return false
        }
        runs += 1
        guard let v = run(s) else { return false }
        return v.contains { matches($0) }
    }

    func matches(_ v: Violation) -> Bool { v.invariant == invariant && (culprit == nil || v.culprit == culprit) }

    /// Client actions on an entity the client cannot have seen: an edit, delete, link (either
    /// end) or typing of an entity that neither the initial data nor an earlier action (a
    /// create, an admin create or upsert) brought into existence. Named by kind and entity (not
    /// client, which dropping a client renumbers).
    static func impossibleActions(_ s: Schedule) -> Set<String> {
        var known = Set(s.initial.map(\.entity))
        var out = Set<String>()
        let order = s.actions.indices.sorted { (s.actions[$0].at, $0) < (s.actions[$1].at, $1) }
        for i in order {
            switch s.actions[i].action {
            case .create(_, let e, _, _), .serverCreate(let e, _, _), .serverUpdate(let e, _): known.insert(e)
            case .bulkCreate: known.formUnion(s.actions[i].action.entities)
            case .update(_, let e, _): if !known.contains(e) { out.insert("update \(e.raw)") }
            case .delete(_, let e): if !known.contains(e) { out.insert("delete \(e.raw)") }
            case .type(_, let e, _, _, _): if !known.contains(e) { out.insert("type \(e.raw)") }
            case .link(_, let e, _, let t), .unlink(_, let e, _, let t):
                if !known.contains(e) { out.insert("link \(e.raw)") }
                if !known.contains(t) { out.insert("link to \(t.raw)") }
            default: break
            }
        }
        return out
    }

    /// Shrinks `schedule`, which must fail with the target invariant (nil if it does not).
    public mutating func shrink(_ schedule: Schedule) -> Outcome? {
        allowedImpossible = Self.impossibleActions(schedule)
        culprit = nil
        guard fails(schedule) else { return nil }
        if keepsCulprit {
            // The first violation of the invariant names the reason the shrunk schedule keeps.
            culprit = run(schedule)?.first { $0.invariant == invariant }?.culprit
            runs += 1
        }
        var best = schedule
        var changed = true
        while changed && !done {
            changed = false
            for (name, pass) in passes where !done {
                let before = best
                best = pass(&self, best)
                if best != before {
                    changed = true
                    onProgress?(Progress(runs: runs, actions: best.actions.count, pass: name))
                }
            }
        }
        let v = run(best)?.first { matches($0) }
        return v.map { Outcome(schedule: best, violation: $0, runs: runs, originalActions: schedule.actions.count) }
    }

    typealias Pass = (inout Shrinker, Schedule) -> Schedule

    var passes: [(String, Pass)] {
        [
            ("remove actions", { $0.ddminActions($1) }),
            ("remove pairs of actions", { $0.removePairs($1) }),
            ("remove initial data", { $0.ddminInitial($1) }),
            ("shorten typing", { $0.shortenTyping($1) }),
            ("drop clients", { $0.dropClients($1) }),
            ("faults off", { $0.faultsOff($1) }),
            ("pull times earlier", { $0.compressTimes($1) }),
            ("simplify values", { $0.simplifyValues($1) }),
            ("simplify initial data", { $0.simplifyInitial($1) }),
        ]
    }

    // MARK: - ddmin

    /// Zeller's ddmin: try removing chunks of decreasing size; keep any removal that still fails.
    mutating func ddmin<T>(_ items: [T], rebuild: (inout Shrinker, [T]) -> Bool) -> [T] {
        var current = items
        var n = 2
        while current.count >= 1 && !done {
            let chunk = max(1, current.count / n)
            var removedSomething = false
            var start = 0
            while start < current.count && !done {
                let end = min(current.count, start + chunk)
                var candidate = current
                candidate.removeSubrange(start..<end)
                if rebuild(&self, candidate) {
                    current = candidate
                    removedSomething = true
                    n = max(n - 1, 2)
                } else {
                    start = end
                }
            }
            if !removedSomething {
                if chunk == 1 { break }
                n = min(current.count, n * 2)
            }
        }
        return current
    }

    mutating func ddminActions(_ s: Schedule) -> Schedule {
        let kept = ddmin(s.actions) { me, a in
            var c = s
            c.actions = a
            return me.fails(c)
        }
        var out = s
        out.actions = kept
        return out
    }

    /// ddmin is 1-minimal: no single action can go. Two that only make sense together (going
    /// offline and back online; a subscribe and its unsubscribe) can still go as a pair. Tried on
    /// small schedules only (quadratic).
    mutating func removePairs(_ s: Schedule) -> Schedule {
        guard s.actions.count <= 24 else { return s }
        var best = s
        var i = 0
        while i < best.actions.count {
            var removed = false
            var j = i + 1
            while j < best.actions.count {
                var c = best
                c.actions.remove(at: j)
                c.actions.remove(at: i)
                if fails(c) { best = c; removed = true; break }
                j += 1
            }
            if !removed { i += 1 }
        }
        return best
    }

    mutating func ddminInitial(_ s: Schedule) -> Schedule {
        guard !s.initial.isEmpty else { return s }
        // Links inside initial data must stay consistent: drop links to removed entities.
        let kept = ddmin(s.initial) { me, ents in
            me.fails(Self.withInitial(s, ents))
        }
        return Self.withInitial(s, kept)
    }

    static func withInitial(_ s: Schedule, _ ents: [InitialEntity]) -> Schedule {
        var c = s
        let ids = Set(ents.map(\.entity))
        c.initial = ents.map { e in
            var e = e
            e.links = e.links.filter { ids.contains($0.target) }
            return e
        }
        return c
    }

    // MARK: - Simplifications

    /// Tries each candidate in order; keeps the first that still fails.
    mutating func firstFailing(_ candidates: [Schedule]) -> Schedule? {
        for c in candidates where fails(c) { return c }
        return nil
    }

    mutating func shortenTyping(_ s: Schedule) -> Schedule {
        var best = s
        for i in best.actions.indices where !done {
            guard case .type(let c, let e, let f, let text, let every) = best.actions[i].action, text.count > 1 else { continue }
            var candidates: [Schedule] = []
            // Shortest first: one keystroke, two, …; then a smaller interval.
            for n in 1..<text.count {
                var x = best
                x.actions[i].action = .type(c, e, f, String(text.prefix(n)), everyMs: every)
                candidates.append(x)
            }
            if let f = firstFailing(candidates) { best = f }
        }
        return best
    }

    mutating func dropClients(_ s: Schedule) -> Schedule {
        var best = s
        var k = best.options.clients - 1
        while k >= 0 && best.options.clients > 1 {
            if let c = Self.removingClient(k, from: best), fails(c) { best = c }
            k -= 1
        }
        return best
    }

    /// The schedule without client `k` (its actions removed, later clients renumbered).
    static func removingClient(_ k: Int, from s: Schedule) -> Schedule? {
        var c = s
        c.options.clients -= 1
        if k < c.options.clockSkewMs.count { c.options.clockSkewMs.remove(at: k) }
        func map(_ id: ClientID) -> ClientID { id.index > k ? ClientID(id.index - 1) : id }
        c.actions = s.actions.compactMap { ta in
            if ta.action.client?.index == k { return nil }
            var t = ta
            t.action = ta.action.mapClient(map)
            return t
        }
        return c
    }

    mutating func faultsOff(_ s: Schedule) -> Schedule {
        var best = s
        let steps: [(inout SimulationOptions) -> Void] = [
            { $0.dropPpm = 0 }, { $0.duplicatePpm = 0 }, { $0.delayPpm = 0 },
            { $0.clockSkewMs = [] },
            { $0.latencyMaxMs = $0.latencyMinMs },
            { $0.persistence = true },
        ]
        for step in steps {
            var c = best
            step(&c.options)
            if c != best && fails(c) { best = c }
        }
        // Fewer fault actions of each kind happen in ddmin; here, drop whole offline windows'
        // worth of faults is left to ddmin too.
        return best
    }

    mutating func compressTimes(_ s: Schedule) -> Schedule {
        var best = s
        guard !best.actions.isEmpty else { return best }
        // Whole-schedule moves first (cheap), then per-gap.
        for target in [Int64(1), 10, 100] {
            var c = best
            var prev: Int64 = 0
            for i in c.actions.indices {
                let gap = best.actions[i].at - (i == 0 ? 0 : best.actions[i - 1].at)
                prev += min(gap, target)
                c.actions[i].at = prev
            }
            if c != best && fails(c) { best = c; break }
        }
        for i in best.actions.indices where !done {
            let floor = i == 0 ? 0 : best.actions[i - 1].at
            let gap = best.actions[i].at - floor
            guard gap > 1 else { continue }
            var candidates: [Schedule] = []
            for newGap in [0, gap / 2] where newGap < gap {
                var c = best
                let delta = gap - newGap
                for j in i..<c.actions.count { c.actions[j].at -= delta }
                candidates.append(c)
            }
            if let f = firstFailing(candidates) { best = f }
        }
        return best
    }

    mutating func simplifyValues(_ s: Schedule) -> Schedule {
        var best = s
        for i in best.actions.indices where !done {
            for variant in Self.simpler(best.actions[i].action) {
                var c = best
                c.actions[i].action = variant
                if fails(c) { best = c; break }
            }
        }
        return best
    }

    /// Drops links and fields of initial entities, and simplifies their values.
    mutating func simplifyInitial(_ s: Schedule) -> Schedule {
        var best = s
        for i in best.initial.indices where !done {
            for j in best.initial[i].links.indices.reversed() {
                var c = best
                c.initial[i].links.remove(at: j)
                if fails(c) { best = c }
            }
            for j in best.initial[i].values.indices.reversed() {
                var c = best
                c.initial[i].values.remove(at: j)
                if fails(c) { best = c; continue }
                c = best
                c.initial[i].values[j].value = Self.simplest(c.initial[i].values[j].value)
                if c != best && fails(c) { best = c }
            }
        }
        return best
    }

    /// Simpler versions of an action, simplest first.
    static func simpler(_ a: Action) -> [Action] {
        func fewer(_ v: [FieldAssignment]) -> [[FieldAssignment]] {
            var out: [[FieldAssignment]] = []
            if v.count > 1 { for x in v { out.append([x]) } }
            let plain = v.map { FieldAssignment($0.field, simplest($0.value)) }
            if plain != v { out.append(plain) }
            return out
        }
        switch a {
        case .create(let c, let e, let ns, let v):
            return (v.isEmpty ? [] : [[]] + fewer(v)).map { .create(c, e, ns, $0) }
        case .update(let c, let e, let v):
            return fewer(v).filter { !$0.isEmpty }.map { .update(c, e, $0) }
        case .serverCreate(let e, let ns, let v):
            return (v.isEmpty ? [] : [[]] + fewer(v)).map { .serverCreate(e, ns, $0) }
        case .serverUpdate(let e, let v):
            return fewer(v).filter { !$0.isEmpty }.map { .serverUpdate(e, $0) }
        case .bulkCreate(let c, let first, let count, let ns, let v):
            // Fewer entities first (one, half, one less: a bug that needs several batches keeps
            // enough of them), then simpler values.
            var counts: [Int] = []
            for n in [1, count / 2, count - 1] where n >= 1 && n < count && !counts.contains(n) { counts.append(n) }
            return counts.map { .bulkCreate(c, firstEntity: first, count: $0, ns, v) }
                + (v.isEmpty ? [] : [[]] + fewer(v)).map { .bulkCreate(c, firstEntity: first, count: count, ns, $0) }
        case .crash(let c, let p):
            // Simplest first: a plain crash and relaunch now, then the earlier protocol points.
            let order: [CrashPoint] = [.afterSend, .duringApply, .commitUnknown]
            return [.restart(c)] + order.prefix { $0 != p }.map { .crash(c, $0) }
        case .subscribe(let c, let s, let q):
            var out: [Action] = []
            if q.include != nil { var x = q; x.include = nil; out.append(.subscribe(c, s, x)) }
            if q.filter != nil { var x = q; x.filter = nil; out.append(.subscribe(c, s, x)) }
            if q.condition != nil { var x = q; x.condition = nil; out.append(.subscribe(c, s, x)) }
            if q.limit != nil { var x = q; x.limit = nil; out.append(.subscribe(c, s, x)) }
            if q.includeDepth > 1 || q.includes.count > 1 { var x = q; x.includes = [Query.IncludeNode(q.includes[0].link)]; out.append(.subscribe(c, s, x)) }
            return out
        default:
            return []
        }
    }

    static func simplest(_ v: FieldValue) -> FieldValue {
        switch v {
        case .string(let s): return .string(s.isEmpty ? s : String(s.prefix(1)))
        case .int: return .int(0)
        case .bool: return .bool(false)
        }
    }
}

extension Action {
    /// The same action on another client.
    func mapClient(_ f: (ClientID) -> ClientID) -> Action {
        switch self {
        case .create(let c, let e, let n, let v): return .create(f(c), e, n, v)
        case .update(let c, let e, let v): return .update(f(c), e, v)
        case .delete(let c, let e): return .delete(f(c), e)
        case .link(let c, let e, let l, let t): return .link(f(c), e, l, t)
        case .unlink(let c, let e, let l, let t): return .unlink(f(c), e, l, t)
        case .type(let c, let e, let fl, let t, let every): return .type(f(c), e, fl, t, everyMs: every)
        case .subscribe(let c, let s, let q): return .subscribe(f(c), s, q)
        case .unsubscribe(let c, let s): return .unsubscribe(f(c), s)
        case .queryOnce(let c, let q): return .queryOnce(f(c), q)
        case .goOffline(let c): return .goOffline(f(c))
        case .goOnline(let c): return .goOnline(f(c))
        case .serverUnreachable(let c): return .serverUnreachable(f(c))
        case .serverReachable(let c): return .serverReachable(f(c))
        case .restart(let c): return .restart(f(c))
        case .forceSync(let c, let ch): return .forceSync(f(c), ch)
        case .syncNow(let c): return .syncNow(f(c))
        case .dropOldestWrite(let c): return .dropOldestWrite(f(c))
        case .crash(let c, let p): return .crash(f(c), p)
        case .bulkCreate(let c, let e, let n, let ns, let v): return .bulkCreate(f(c), firstEntity: e, count: n, ns, v)
        case .switchTenant(let c, let t): return .switchTenant(f(c), t)
        case .logout(let c): return .logout(f(c))
        case .serverCreate, .serverUpdate, .serverDelete: return self
        }
    }
}
