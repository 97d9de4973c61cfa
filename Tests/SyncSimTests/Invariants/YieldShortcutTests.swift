import Testing
@testable import SyncSim

/// `checkMonotonic`'s shortcut: an entry whose values its client's last check of that entity
/// found settled is passed without a look at their versions (`Monitor.settledShows`). Real runs
/// of every built-in must give the same violations, in the same order, and the same trace with
/// the shortcut on as with it off, and the shortcut must be taken (one that silently stopped
/// applying would pass the comparison).
@Suite struct YieldShortcutTests {
    struct Outcome {
        var violations: [String]
        var trace: UInt64
        var hits: UInt64
    }

    static func run<S: SyncStrategy>(_ strategy: S, _ schedule: Schedule, shortcut: Bool) throws -> Outcome {
        var sim = try Simulator(strategy: strategy, schedule: schedule, seed: 1)
        sim._monitor!.usesSettledShows = shortcut
        let r = sim.run()
        return Outcome(violations: r.violations.map(\.description), trace: r.traceHash, hits: sim._monitor!.settledShowHits)
    }

    /// The shortcut's hits and the violations found over three seeds of `strategy`.
    static func compare<S: SyncStrategy>(_ strategy: S, _ name: String) throws -> (hits: UInt64, violations: Int) {
        var hits: UInt64 = 0, violations = 0
        for seed in 1...3 {
            let schedule = WorkloadGenerator(.init(actions: 300)).generate(seed: UInt64(seed))
            let fast = try run(strategy, schedule, shortcut: true)
            let full = try run(strategy, schedule, shortcut: false)
            #expect(fast.violations == full.violations, "\(name) seed \(seed)")
            #expect(fast.trace == full.trace, "\(name) seed \(seed)")
            #expect(full.hits == 0)
            hits &+= fast.hits
            violations += full.violations.count
        }
        return (hits, violations)
    }

    /// What the oracles read, set by the test between events: two clients with two
    /// subscriptions each, over a server whose titles take random (and recurring) values.
    struct System: ObservedSystem {
        var virtualTime: Int64 = 0
        var history = History()
        var clientCount: Int { 2 }
        var queueCap: Int { 1000 }
        var persistence: Bool { true }
        var arbitration: Arbitration { .serverArrival }
        func skew(of c: ClientID) -> Int64 { 0 }
        var subs: [[(SubscriptionID, Query)]] = [[(SubscriptionID(0), Query(.todos)), (SubscriptionID(1), Query(.todos))],
                                                 [(SubscriptionID(2), Query(.todos)), (SubscriptionID(3), Query(.todos))]]
        func subscriptions(of c: ClientID) -> [(SubscriptionID, Query)] { subs[c.index] }
        var results: [[QueryResult]] = [[.empty, .empty], [.empty, .empty]]
        func shown(_ c: ClientID, _ s: SubscriptionID) -> QueryResult? { results[c.index][Int(s.raw) % 2] }
        func pendingWrites(of c: ClientID) -> [WriteID] { [] }
        func steps(of c: ClientID) -> UInt64? { nil }
        func pendingWriteCount(of c: ClientID) -> Int { 0 }
        func isOffline(_ c: ClientID) -> Bool { false }
        func isUnreachable(_ c: ClientID) -> Bool { false }
        var serverData: EntityStore { EntityStore() }
    }

    /// Random server writes and random yields of old, current and never-held values, records
    /// shared between yields or rebuilt equal: a monitor with the shortcut and one without must
    /// report the same violations after every event (monotonicReads among them).
    @Test func randomYieldsGiveTheFullChecksVerdicts() {
        var sim = System()
        var fast = Monitor(clients: 2, schema: .default)
        var full = Monitor(clients: 2, schema: .default)
        full.usesSettledShows = false
        var rng = SimRandom(seed: 5)
        var data = EntityStore()
        var tx: UInt64 = 0
        func title(_ v: Int) -> FieldValue { .string("t\(v)") }
        func apply(_ op: Op) {
            _ = data.apply(op, schema: .default)
            tx += 1
            let t = AppliedTransaction(txID: tx, origin: .admin, writes: [], ops: [op])
            fast.applied(t, data: data, at: sim.virtualTime)
            full.applied(t, data: data, at: sim.virtualTime)
        }
        for e in 0..<6 { apply(.create(EntityID(UInt32(e)), NamespaceID(0), [FieldAssignment(FieldID(0), title(0))])) }
        // Records kept between yields, so some entries show the very same storage again.
        var pool: [EntityRecord] = (0..<5).map { EntityRecord(namespace: NamespaceID(0), values: [title($0), nil], links: [nil], manyLinks: []) }
        for round in 0..<4000 {
            sim.virtualTime = Int64(round)
            if rng.int(in: 0...2) == 0 {
                apply(.update(EntityID(UInt32(rng.int(in: 0...5))), NamespaceID(0), [FieldAssignment(FieldID(0), title(rng.int(in: 0...3)))]))
                continue
            }
            let c = ClientID(rng.int(in: 0...1))
            let k = rng.int(in: 0...1)
            var entries: [QueryResult.Entry] = []
            for e in 0..<6 where rng.int(in: 0...3) != 0 {
                let v = rng.int(in: 0...4)   // 4: never written
                let r = rng.int(in: 0...1) == 0 ? pool[v] : EntityRecord(namespace: NamespaceID(0), values: [title(v), nil], links: [nil], manyLinks: [])
                entries.append(.init(id: EntityID(UInt32(e)), record: r))
            }
            sim.results[c.index][k] = QueryResult(roots: entries.map(\.id), entries: entries)
            let ev = UserEvent.subscriptionYielded(sim.subs[c.index][k].0, fromCache: false)
            fast.told(c, ev, connected: true, query: sim.subs[c.index][k].1)
            full.told(c, ev, connected: true, query: sim.subs[c.index][k].1)
            fast.observe(c, ev, sim)
            full.observe(c, ev, sim)
            #expect(fast.violations.map(\.description) == full.violations.map(\.description), "round \(round)")
            // (Past the report limit violations are only counted; the floors must agree too.)
            #expect(fast.suppressed == full.suppressed && fast.floorRaises == full.floorRaises, "round \(round)")
        }
        #expect(full.violations.contains { $0.invariant == .monotonicReads }, "the run should break monotonicReads, or it tests little")
        #expect(fast.settledShowHits > 500 && full.settledShowHits == 0, "hits: \(fast.settledShowHits)")
    }

    @Test func realRunsGiveTheFullChecksVerdicts() throws {
        var hits: [String: UInt64] = [:]
        var violations = 0
        for (name, x) in [("instant", try Self.compare(InstantStrategy(), "instant")),
                          ("fullEntity", try Self.compare(FullEntityStrategy(), "fullEntity")),
                          ("sharedDiff", try Self.compare(SharedDiffStrategy(), "sharedDiff")),
                          ("conflictPrompt", try Self.compare(ConflictPromptStrategy(), "conflictPrompt")),
                          ("pushPull", try Self.compare(PushPullStrategy(), "pushPull")),
                          ("reference", try Self.compare(ReferenceStrategy(), "reference"))] {
            hits[name] = x.hits
            violations += x.violations
        }
        #expect(hits.values.allSatisfy { $0 > 0 }, "settled entries must be passed in every strategy: \(hits)")
        #expect(violations > 0, "the runs should break some invariant, or the comparison tests little")
    }
}
