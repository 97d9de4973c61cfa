import Testing
@testable import SyncSim

/// `checkOwnWrites` skips its pass over a client's open writes when nothing that could close
/// one changed since the last pass (no outcome told, no write joined, the same queue:
/// `Monitor.closedAgainst`). Two monitors fed the same random run, one skipping and one making
/// every pass in full (`skipsUnchangedQueue` off), must hold the same open writes and report the
/// same violations after every event, with the machine's step count known (the queue not read
/// while it stands) and unknown.
@Suite struct OpenWriteCloseTests {
    /// What the oracles read, set by the test between events.
    struct System: ObservedSystem {
        var virtualTime: Int64 = 0
        var history = History()
        var clientCount: Int { 2 }
        var queueCap: Int { 1000 }
        var persistence: Bool { true }
        var arbitration: Arbitration { .serverArrival }
        func skew(of c: ClientID) -> Int64 { 0 }
        var subs: [[(SubscriptionID, Query)]] = [[(SubscriptionID(0), Query(.todos))], [(SubscriptionID(1), Query(.todos))]]
        func subscriptions(of c: ClientID) -> [(SubscriptionID, Query)] { subs[c.index] }
        var results: [QueryResult] = [.empty, .empty]
        func shown(_ c: ClientID, _ s: SubscriptionID) -> QueryResult? { results[c.index] }
        var pending: [[WriteID]] = [[], []] { didSet { stepCount[0] &+= 1; stepCount[1] &+= 1 } }
        func pendingWrites(of c: ClientID) -> [WriteID] { pending[c.index] }
        /// Changes with every change of a queue (and now and then without one); nil while
        /// `knowsSteps` is off (as for a recorded history).
        var stepCount: [UInt64] = [0, 0]
        var knowsSteps = true
        func steps(of c: ClientID) -> UInt64? { knowsSteps ? stepCount[c.index] : nil }
        func pendingWriteCount(of c: ClientID) -> Int { pending[c.index].count }
        func isOffline(_ c: ClientID) -> Bool { false }
        func isUnreachable(_ c: ClientID) -> Bool { false }
        var serverData: EntityStore { EntityStore() }
    }

    static func record(_ v: Int) -> EntityRecord {
        EntityRecord(namespace: NamespaceID(0), values: [.string("t\(v)"), .bool(v % 2 == 0)], links: [nil], manyLinks: [])
    }

    @Test func skippingMatchesTheFullPass() {
        var sim = System()
        var fast = Monitor(clients: 2, schema: .default)
        var full = Monitor(clients: 2, schema: .default)
        full.skipsUnchangedQueue = false
        var rng = SimRandom(seed: 3)
        var next: UInt32 = 0
        var made: [[WriteID]] = [[], []]
        for round in 0..<5000 {
            sim.virtualTime = Int64(round)
            if round % 1000 == 0 { sim.knowsSteps.toggle() }
            if rng.int(in: 0...7) == 0 { sim.stepCount[rng.int(in: 0...1)] &+= 1 }
            let c = ClientID(rng.int(in: 0...1))
            switch rng.int(in: 0...9) {
            case 0, 1:   // a write, queued
                let e = EntityID(UInt32(rng.int(in: 0...7)))
                let w = UserWrite(id: WriteID(next), ops: [.update(e, NamespaceID(0), [FieldAssignment(FieldID(0), .string("t\(rng.int(in: 0...3))"))])])
                next += 1
                sim.history.recordIntent(w, origin: .client(c), time: sim.virtualTime, clientTime: sim.virtualTime, whileDisconnected: false)
                fast.intent(w, client: c)
                full.intent(w, client: c)
                made[c.index].append(w.id)
                sim.pending[c.index].append(w.id)
            case 2:      // the queue loses its head, or is rebuilt with the same writes
                if rng.int(in: 0...1) == 0, !sim.pending[c.index].isEmpty { sim.pending[c.index].removeFirst() }
                else { sim.pending[c.index] = sim.pending[c.index].map { WriteID($0.raw) } }
            case 3:      // an outcome told
                guard !made[c.index].isEmpty else { continue }
                let w = made[c.index][rng.int(in: 0...(made[c.index].count - 1))]
                let ev: UserEvent = rng.int(in: 0...1) == 0 ? .writeConfirmed(w) : .writeRejected(w, .invalid("test"))
                fast.observe(c, ev, sim)
                full.observe(c, ev, sim)
            default:     // a yield, of a result showing some of the values written (or not)
                if rng.int(in: 0...2) == 0 {
                    let ids = (0..<8).filter { _ in rng.int(in: 0...1) == 0 }.map { EntityID(UInt32($0)) }
                    sim.results[c.index] = QueryResult(roots: ids, entries: ids.map { .init(id: $0, record: Self.record(rng.int(in: 0...3))) })
                }
                let ev = UserEvent.subscriptionYielded(sim.subs[c.index][0].0, fromCache: false)
                fast.told(c, ev, connected: true, query: sim.subs[c.index][0].1)
                full.told(c, ev, connected: true, query: sim.subs[c.index][0].1)
                fast.observe(c, ev, sim)
                full.observe(c, ev, sim)
            }
            #expect(fast.openWrites.map { $0.map(\.write) } == full.openWrites.map { $0.map(\.write) }, "round \(round)")
            #expect(fast.violations.map(\.description) == full.violations.map(\.description), "round \(round)")
        }
        #expect(!full.violations.isEmpty, "the run should break neverRevertOwnWrite now and then, or it tests little")
        // The comparison above holds trivially if the shortcut is never taken: it must be, both
        // ways (the queue not read, and read but unchanged), and never with it turned off.
        #expect(fast.openWriteSkips.unchangedMachine > 100, "the queue should go unread while the machine stands (\(fast.openWriteSkips))")
        #expect(fast.openWriteSkips.unchangedQueue > 100, "an unchanged queue should skip the pass (\(fast.openWriteSkips))")
        #expect(full.openWriteSkips.unchangedMachine == 0 && full.openWriteSkips.unchangedQueue == 0)
    }

    /// In real runs the shortcut is taken: a client's input that makes several subscriptions
    /// yield (a reply, a write shown in every view) is judged with one read of its queue. Fails
    /// if the simulator stops counting machine steps or the monitor stops trusting them.
    @Test func realRunsSkipThePass() throws {
        var skips: [String: UInt64] = [:]
        for (name, run) in [("instant", { (s: Schedule) throws -> Monitor.OpenWriteSkips in
                                var sim = try Simulator(strategy: InstantStrategy(), schedule: s, seed: 1)
                                _ = sim.run()
                                return sim._monitor!.openWriteSkips }),
                            ("pushPull", { (s: Schedule) throws -> Monitor.OpenWriteSkips in
                                var sim = try Simulator(strategy: PushPullStrategy(), schedule: s, seed: 1)
                                _ = sim.run()
                                return sim._monitor!.openWriteSkips })] {
            var total: UInt64 = 0
            for seed in 1...3 {
                let x = try run(WorkloadGenerator(.init(actions: 200)).generate(seed: UInt64(seed)))
                total &+= x.unchangedMachine &+ x.unchangedQueue
            }
            skips[name] = total
        }
        #expect(skips.values.allSatisfy { $0 > 0 }, "\(skips)")
    }
}
