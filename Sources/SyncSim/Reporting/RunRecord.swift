/// One run, summarised for reports: what was violated, the metrics, and what the schedule
/// exercised. Reports are aggregates of these records, so sharded runs merge exactly.
public struct RunRecord: Codable, Hashable, Sendable {
    public var strategy: String
    public var seed: UInt64
    /// Violated invariants, in catalog order.
    public var violated: [String]
    /// The first explanation per violated invariant (same order as `violated`).
    public var explanations: [String]
    public var events: Int
    public var settled: Bool
    /// Virtual time from heal to settling.
    public var convergeMs: Int64?
    public var userWrites: Int
    public var messages: Int
    public var maxPending: Int
    /// Accepted client writes that were never applied and never reported rejected.
    public var writesLost: Int
    /// Fields whose final value came from a write made earlier than another applied write to
    /// the same field (an earlier-made write winning over a later one).
    public var staleOverwrites: Int
    /// Action kinds in the schedule, with counts (keystrokes count as one `type`).
    public var actionKinds: [String: Int]
    /// Fault kinds active in the run.
    public var faults: [String]
    /// Interesting situations the run reached (see `Situation`).
    public var situations: [String]
    public var traceHash: String
    /// The contract conditions (`ContractCondition` raw values) this run's options satisfied,
    /// so a report can judge conditional claims; nil when none did.
    public var conditions: [String]? = nil
    /// Differential mode: the invariants this run violated that the baseline also violated on
    /// the same schedule (set aside, not in `violated`); nil outside differential mode or when
    /// none were.
    public var baselineShared: [String]? = nil
}

/// Situations worth reaching, in the spirit of Hypothesis's statistics: a report shows how many
/// runs reached each, so a user sees what fuzzing exercised and what it never reached.
public enum Situation: String, CaseIterable, Sendable {
    case concurrentSameFieldOffline = "concurrent same-field edits while offline"
    case concurrentDisjointFields = "concurrent edits of different fields of one entity"
    case restartWithPendingWrites = "a restart with pending writes"
    case restartLostQueue = "a restart that lost queued writes"
    case deleteRacingEdit = "a delete racing an edit"
    case partialViewWrite = "a write while a partial view is subscribed"
    case duplicateMutationDelivery = "a duplicate delivery of a mutation"
    case typingBurstOffline = "a typing burst while offline"
    case queryOnceOffline = "queryOnce while offline"
    case conflictPrompted = "a conflict put to the user"
    case writeRejected = "a write rejected and the user told"
    case queueFull = "a write refused because the queue was full"
    case longOffline = "a client offline for over 30 s of virtual time"
    case writeWhileOffline = "a write made while disconnected"
    case subscribeWhileOffline = "a subscription made while offline"
    case deleteOfLinkTarget = "a delete of an entity a link pointed to"
    case linkRace = "a link or unlink raced by a concurrent delete or re-link"
    case messageLost = "a message lost in flight"
    case connectWhileOffline = "a connection attempt while offline"
    case unsettled = "a run that did not settle"
}

extension Situation {
    /// Symptoms of a bug rather than situations a workload should reach: not coverage targets.
    public var isSymptom: Bool { self == .unsettled || self == .connectWhileOffline }
}

public enum FaultKind: String, CaseIterable, Sendable {
    case drop, duplicate, delay, clockSkew, offline, unreachable, restart
    /// A `crash` action: a fault aimed at a protocol point.
    case crash
}

extension RunRecord {
    public init(_ r: RunResult, schedule: Schedule) {
        let h = r.history
        strategy = r.strategy
        seed = r.seed
        var firstByInvariant: [InvariantID: String] = [:]
        for v in r.violations where firstByInvariant[v.invariant] == nil { firstByInvariant[v.invariant] = v.explanation }
        let inv = r.violatedInvariants
        violated = inv.map(\.rawValue)
        explanations = inv.map { firstByInvariant[$0] ?? "" }
        events = r.events
        settled = r.settled
        convergeMs = r.convergenceMs
        let clientIntents = h.intents.filter { if case .client = $0.origin { return true } else { return false } }
        userWrites = clientIntents.count
        messages = h.messagesSent
        maxPending = h.maxPendingWrites
        traceHash = r.traceHashHex

        var applied = Set<WriteID>()
        for a in h.applied { applied.formUnion(a.tx.writes) }
        let rejected = h.rejectedWrites
        var pendingNow = Set<WriteID>()
        for c in r.clients { pendingNow.formUnion(c.pendingWrites) }
        writesLost = clientIntents.filter { !applied.contains($0.write.id) && !rejected.contains($0.write.id) && !pendingNow.contains($0.write.id) }.count
        staleOverwrites = Self.staleOverwrites(r, schema: schedule.schema)

        var kinds: [String: Int] = [:]
        for a in schedule.actions { kinds[a.action.kind.rawValue, default: 0] += 1 }
        actionKinds = kinds
        let o = schedule.options
        var f: [FaultKind] = []
        if o.dropPpm > 0 { f.append(.drop) }
        if o.duplicatePpm > 0 { f.append(.duplicate) }
        if o.delayPpm > 0 { f.append(.delay) }
        if o.clockSkewMs.contains(where: { $0 != 0 }) { f.append(.clockSkew) }
        if kinds[ActionKind.offline.rawValue] != nil { f.append(.offline) }
        if kinds[ActionKind.unreachable.rawValue] != nil { f.append(.unreachable) }
        if kinds[ActionKind.restart.rawValue] != nil { f.append(.restart) }
        if kinds[ActionKind.crash.rawValue] != nil { f.append(.crash) }
        faults = f.map(\.rawValue)
        situations = Self.situations(r, schedule: schedule).map(\.rawValue)
        let met = ContractCondition.allCases.filter { $0.holds(in: o) }.map(\.rawValue)
        conditions = met.isEmpty ? nil : met
    }

    static func staleOverwrites(_ r: RunResult, schema: Schema) -> Int {
        let h = r.history
        // For each (entity, field): the applied intents that assigned it, with their values.
        var byKey: [UInt64: [(time: Int64, value: FieldValue, order: Int)]] = [:]
        var order = 0
        for a in h.applied {
            for w in a.tx.writes {
                guard let it = h.intent(w) else { continue }
                for op in it.write.ops {
                    for x in op.assignments {
                        byKey[UInt64(op.entity.raw) << 8 | UInt64(x.field.raw), default: []].append((it.time, x.value, order))
                        order += 1
                    }
                }
            }
        }
        var n = 0
        for (id, rec) in r.server.entities {
            for f in schema.fields(of: rec.namespace) {
                guard let final = rec[f], let writes = byKey[UInt64(id.raw) << 8 | UInt64(f.raw)], writes.count > 1 else { continue }
                let latest = writes.map(\.time).max()!
                // The write that put the final value there: the last applied one with that value.
                guard let winner = writes.last(where: { $0.value == final }) else { continue }
                if winner.time < latest && !writes.contains(where: { $0.time == latest && $0.value == final }) { n += 1 }
            }
        }
        return n
    }

    /// The longest time any client spent offline by the schedule's own actions (virtual ms).
    static func longestOfflineMs(_ schedule: Schedule) -> Int64 {
        var since: [Int: Int64] = [:]
        var longest: Int64 = 0
        for a in schedule.actions {
            switch a.action {
            case .goOffline(let c): if since[c.index] == nil { since[c.index] = a.at }
            case .goOnline(let c): if let t = since.removeValue(forKey: c.index) { longest = max(longest, a.at - t) }
            default: break
            }
        }
        return longest
    }

    /// A client subscribed while its device was offline (by the schedule's own actions).
    static func subscribesWhileOffline(_ schedule: Schedule) -> Bool {
        var offline = Set<Int>()
        for a in schedule.actions {
            switch a.action {
            case .goOffline(let c): offline.insert(c.index)
            case .goOnline(let c): offline.remove(c.index)
            case .subscribe(let c, _, _): if offline.contains(c.index) { return true }
            default: break
            }
        }
        return false
    }

    /// Some entity was deleted (by a client or the back office) after a link pointed to it.
    static func deletesALinkTarget(_ schedule: Schedule) -> Bool {
        var targets = Set<EntityID>()
        for e in schedule.initial { for l in e.links { targets.insert(l.target) } }
        for a in schedule.actions {
            switch a.action {
            case .link(_, _, _, let t): targets.insert(t)
            case .delete(_, let e), .serverDelete(let e): if targets.contains(e) { return true }
            default: break
            }
        }
        return false
    }

    /// A link or unlink and, from another writer within 5 s, a delete of its source or target
    /// or another link/unlink of the same (entity, link): the races per-link last-writer-wins and
    /// `linkIntegrity` are about. Admin writes count (a back-office delete races a link too).
    static func linkRaced(_ h: History) -> Bool {
        func links(_ it: History.Intent) -> [(EntityID, LinkID, EntityID)] {
            it.write.ops.compactMap { op in
                switch op {
                case .link(let e, let l, let t), .unlink(let e, let l, let t): return (e, l, t)
                default: return nil
                }
            }
        }
        func deletes(_ it: History.Intent) -> [EntityID] { it.write.ops.filter(\.isDelete).map(\.entity) }
        func races(_ a: History.Intent, _ b: History.Intent) -> Bool {
            let la = links(a)
            guard !la.isEmpty else { return false }
            let db = deletes(b), lb = links(b)
            return la.contains { x in db.contains(x.0) || db.contains(x.2) || lb.contains { $0.0 == x.0 && $0.1 == x.1 } }
        }
        let all = h.intents
        for (i, a) in all.enumerated() {
            for b in all[(i + 1)...] {
                // Intents are in virtual-time order: past the window, all later ones are too.
                guard b.time - a.time < 5_000 else { break }
                guard a.origin != b.origin else { continue }
                if races(a, b) || races(b, a) { return true }
            }
        }
        return false
    }

    static func situations(_ r: RunResult, schedule: Schedule) -> [Situation] {
        let h = r.history
        var s: [Situation] = []
        let intents = h.intents.filter { if case .client = $0.origin { return true } else { return false } }
        func fields(_ it: History.Intent) -> [(EntityID, FieldID)] {
            it.write.ops.flatMap { op in op.assignments.map { (op.entity, $0.field) } }
        }
        var sameOffline = false, disjoint = false, deleteRace = false
        for (i, a) in intents.enumerated() {
            for b in intents[(i + 1)...] {
                // Intents are recorded in virtual-time order: past the window, all later ones are
                // too (linear in a long run instead of quadratic; same situations).
                guard b.time - a.time < 5_000 else { break }
                guard a.origin != b.origin else { continue }
                let fa = fields(a), fb = fields(b)
                let ea = Set(a.write.ops.map(\.entity)), eb = Set(b.write.ops.map(\.entity))
                if (a.whileDisconnected || b.whileDisconnected) && fa.contains(where: { x in fb.contains { $0 == x } }) { sameOffline = true }
                if fa.contains(where: { x in fb.contains { $0.0 == x.0 && $0.1 != x.1 } }) { disjoint = true }
                if !ea.isDisjoint(with: eb), a.write.ops.contains(where: \.isDelete) != b.write.ops.contains(where: \.isDelete) { deleteRace = true }
            }
        }
        if sameOffline { s.append(.concurrentSameFieldOffline) }
        if disjoint { s.append(.concurrentDisjointFields) }
        if h.restarts.contains(where: { !$0.pendingAtCrash.isEmpty }) { s.append(.restartWithPendingWrites) }
        if h.restarts.contains(where: { !Set($0.pendingAtCrash).isSubset(of: Set($0.pendingAfter)) }) { s.append(.restartLostQueue) }
        if deleteRace { s.append(.deleteRacingEdit) }
        // A write on a client while one of its subscriptions is a partial view of the namespace.
        var partialSubs: [Int: [Query]] = [:]
        var partialWrite = false, queryOnceOffline = false
        for a in schedule.actions {
            switch a.action {
            case .subscribe(let c, _, let q) where q.filter != nil || q.condition != nil || q.limit != nil || !q.includes.isEmpty:
                partialSubs[c.index, default: []].append(q)
            case .create(let c, _, let ns, _):
                if partialSubs[c.index]?.contains(where: { $0.namespace == ns || $0.reachedNamespaces(in: schedule.schema).contains(ns) }) == true { partialWrite = true }
            case .update(let c, _, _), .delete(let c, _):
                if partialSubs[c.index]?.isEmpty == false { partialWrite = true }
            default: break
            }
        }
        if partialWrite { s.append(.partialViewWrite) }
        if h.duplicateWriteDeliveries > 0 { s.append(.duplicateMutationDelivery) }
        if intents.contains(where: { $0.write.burst != nil && $0.whileDisconnected }) { s.append(.typingBurstOffline) }
        for t in h.told {
            if t.event.queryOnceFailure?.offline == true { queryOnceOffline = true }
        }
        if queryOnceOffline { s.append(.queryOnceOffline) }
        if h.told.contains(where: { if case .conflictRaised = $0.event { return true } else { return false } }) { s.append(.conflictPrompted) }
        if !h.rejectedWrites.isEmpty { s.append(.writeRejected) }
        if h.told.contains(where: { if case .writeRejected(_, .queueFull) = $0.event { return true } else { return false } }) { s.append(.queueFull) }
        if Self.longestOfflineMs(schedule) > 30_000 { s.append(.longOffline) }
        if intents.contains(where: \.whileDisconnected) { s.append(.writeWhileOffline) }
        if Self.subscribesWhileOffline(schedule) { s.append(.subscribeWhileOffline) }
        if Self.deletesALinkTarget(schedule) { s.append(.deleteOfLinkTarget) }
        if Self.linkRaced(h) { s.append(.linkRace) }
        if h.messagesLost > 0 { s.append(.messageLost) }
        if !h.connectsWhileOffline.isEmpty { s.append(.connectWhileOffline) }
        if !r.settled { s.append(.unsettled) }
        return s
    }
}
