import Testing
@testable import SyncSim

/// The end-of-run check made cheaper (`finishClientWriteOrder`'s refusals weighed over a
/// compact list of each client's intents) against the code it replaced, kept here verbatim as the
/// reference: on real runs of every built-in, both must report the same violations in the
/// same order with the same texts, and count the same suppressed ones. Each comparison starts
/// from the monitor as the run left it (so past the per-invariant limit both only count).
@Suite struct FinishShortcutTests {
    struct Counts {
        var refusedWrites = 0
        /// Clients with enough refused writes for the check to index their intents
        /// (`RefusalOrderIndex`, `Monitor.indexMinimumRefusals`).
        var indexedClients = 0
    }

    static func compare<S: SyncStrategy>(_ strategy: S, _ name: String, seeds: ClosedRange<Int>, counts: inout Counts) throws {
        for seed in seeds {
            for swarm in [true, false] {
                let schedule = WorkloadGenerator(.init(actions: 300, swarm: swarm)).generate(seed: UInt64(seed))
                var sim = try Simulator(strategy: strategy, schedule: schedule, seed: 1)
                _ = sim.run()
                let m = sim._monitor!
                let h = sim.history
                var fast = m, reference = m
                fast.finishClientWriteOrder(h, at: 1)
                reference.referenceFinishClientWriteOrder(h, at: 1)
                #expect(fast.violations.map(\.description) == reference.violations.map(\.description), "\(name) seed \(seed)")
                #expect(fast.suppressed == reference.suppressed)
                counts.refusedWrites += m.refusals.reduce(0) { $0 + $1.writes.count }
                var perClient: [Int: Int] = [:]
                for r in m.refusals { if case .client(let c) = r.origin { perClient[c.index, default: 0] += r.writes.count } }
                counts.indexedClients += perClient.values.filter { $0 >= Monitor.indexMinimumRefusals }.count
            }
        }
    }

    @Test func realRunsGiveTheReferenceVerdicts() throws {
        var counts = Counts()
        try Self.compare(InstantStrategy(), "instant", seeds: 1...2, counts: &counts)
        try Self.compare(FullEntityStrategy(), "fullEntity", seeds: 1...2, counts: &counts)
        try Self.compare(SharedDiffStrategy(), "sharedDiff", seeds: 1...2, counts: &counts)
        try Self.compare(ConflictPromptStrategy(), "conflictPrompt", seeds: 1...3, counts: &counts)
        try Self.compare(PushPullStrategy(), "pushPull", seeds: 1...2, counts: &counts)
        try Self.compare(ReferenceStrategy(), "reference", seeds: 1...2, counts: &counts)
        // The path that changed was taken: refusals were weighed.
        #expect(counts.refusedWrites > 0, "\(counts)")
        // Both ways were compared: clients walked for each refusal and clients indexed.
        #expect(counts.indexedClients > 0, "\(counts)")
    }
}

/// The replaced code, verbatim (but for its names).
extension Monitor {
    mutating func referenceFinishClientWriteOrder(_ h: History, at t: Int64) {
        // A session is a client in one tenant (`Monitor+Tenants.swift`): writes parked in one
        // tenant's database while the user works in another are not ordered against its writes.
        let perClient = tenants.active ? ScheduleLimits.maxTenant + 1 : 1
        var latest: [(write: WriteID, at: Int32)?] = Array(repeating: nil, count: clientCount * perClient)
        var reported = Array(repeating: false, count: clientCount)
        for (i, it) in h.intents.enumerated() {
            guard case .client(let c) = it.origin, !reported[c.index], let f = Self.get(firstApplied, it.write.id) else { continue }
            let session = c.index * perClient + (perClient == 1 ? 0 : tenant(ofIntent: Int32(i)).index)
            if let prev = latest[session], f < prev.at {
                reported[c.index] = true
                report(Violation(.clientWriteOrder, at: h.applied[Int(f)].time, client: c, entity: it.write.ops.first?.entity,
                                 "the server applied \(c)'s \(it.write.id) (tx \(h.applied[Int(f)].tx.txID)) before \(prev.write) (tx \(h.applied[Int(prev.at)].tx.txID)), which \(c)'s user made first"))
            } else {
                latest[session] = (it.write.id, f)
            }
        }
        // Each client's intents (positions in `h.intents`, in order): a refusal is weighed against
        // its own client's writes only, so it reads that list instead of every intent.
        var byClient: [[Int]] = Array(repeating: [], count: clientCount)
        if !refusals.isEmpty {
            for (i, it) in h.intents.enumerated() {
                if case .client(let c) = it.origin { byClient[c.index].append(i) }
            }
        }
        for r in refusals {
            guard case .client(let c) = r.origin, !reported[c.index] else { continue }
            for w in r.writes {
                guard let it = h.intent(w), it.origin == r.origin, Self.get(firstApplied, w).map({ $0 >= r.at }) ?? true else { continue }
                let touched = Set(it.write.ops.flatMap { op -> [EntityID] in
                    if case .link(let a, _, let b) = op { return [a, b] }
                    if case .unlink(let a, _, let b) = op { return [a, b] }
                    return [op.entity]
                })
                var why: String?
                let session = tenants.active ? Self.get(intentOfWrite, w).map { tenant(ofIntent: $0) } : nil
                for oi in byClient[c.index] {
                    let other = h.intents[oi]
                    guard other.origin == r.origin && other.write.id != w else { continue }
                    if let session, Self.get(intentOfWrite, other.write.id).map({ tenant(ofIntent: $0) }) != session { continue }
                    guard let f = Self.get(firstApplied, other.write.id) else { continue }
                    if other.time > it.time || (other.time == it.time && other.write.id.raw > w.raw) {
                        if f < r.at { why = "after applying \(other.write), which \(c)'s user made later"; break }
                    } else if f >= r.at, other.write.ops.contains(where: { if case .create(let e, _, _) = $0 { return touched.contains(e) } else { return false } }) {
                        why = "before applying \(other.write), which \(c)'s user made first and creates an entity it touches"; break
                    }
                }
                if let why {
                    reported[c.index] = true
                    report(Violation(.clientWriteOrder, at: t, client: c, entity: it.write.ops.first?.entity,
                                     "the server refused \(c)'s \(w) (\(it.write)) \(why)"))
                    break
                }
            }
        }
    }

}
