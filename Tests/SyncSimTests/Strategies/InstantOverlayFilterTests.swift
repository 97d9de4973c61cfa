import Testing
@testable import SyncSim

/// `OverlayStepFilter`: which pending steps a query's overlay store leaves out, and that it stops
/// filtering when a step it takes names an entity a left-out step wrote.
@Suite("Instant overlay step filter")
struct InstantOverlayFilterTests {
    typealias F = Fixture

    static func mutation(_ serial: UInt64, _ ops: [Op]) -> InstantClient.PendingMutation {
        var m = InstantClient.PendingMutation(eventID: serial, order: Int(serial), write: WriteID(UInt32(serial)),
                                              steps: ops.map { InstantStep($0, upsert: false) }, txID: nil)
        m.serial = serial
        return m
    }

    @Test func aQueryTakesWhatItReadsAndWhereItsLinksPoint() {
        // todos read only todos; posts read posts and, through `author`, take profiles' steps.
        #expect(OverlayStepFilter.namespaces(of: Query(.todos), schema: .default).contains(.todos))
        #expect(!OverlayStepFilter.namespaces(of: Query(.todos), schema: .default).contains(.profiles))
        let posts = OverlayStepFilter.namespaces(of: Query(.posts), schema: .default)
        #expect(posts.contains(.posts) && posts.contains(.profiles) && !posts.contains(.todos))
    }

    @Test func stepsOfOtherNamespacesAreLeftOut() {
        let pending = [Self.mutation(1, [.create(EntityID(10), .profiles, []), .update(EntityID(1), .todos, F.set(.priority, .int(2)))])]
        var f = OverlayStepFilter()
        f.restart(query: Query(.todos), schema: .default)
        let leavesTheProfile = f.take(pending[0].steps[0].op, schema: .default)
        let takesTheTodo = f.take(pending[0].steps[1].op, schema: .default)
        #expect(leavesTheProfile == false && takesTheTodo == true && !f.keepsAll)
    }

    /// todo#10 is created, then a profile with the same id: the second create fails in the full
    /// store but would succeed in the profiles store that left the first one out.
    @Test func anEntityNamedAgainStopsTheFiltering() {
        let first = Op.create(EntityID(10), .todos, [])
        let second = Op.create(EntityID(10), .profiles, [])
        var f = OverlayStepFilter()
        f.restart(query: Query(.profiles), schema: .default)
        let leavesTheTodo = f.take(first, schema: .default)
        let conflicts = f.take(second, schema: .default)
        #expect(leavesTheTodo == false && conflicts == nil && f.keepsAll)
        // From then on every step is taken, also after a restart.
        f.restart(query: Query(.profiles), schema: .default)
        let takesItNow = f.take(first, schema: .default)
        #expect(takesItNow == true)
        // A link to a left-out entity, an update or a delete of one conflict the same way.
        for later: Op in [.link(F.post, .author, EntityID(10)), .update(EntityID(10), .profiles, []), .delete(EntityID(10), .todos)] {
            var g = OverlayStepFilter()
            g.restart(query: Query(.posts), schema: .default)
            let left = g.take(first, schema: .default)
            let met = g.take(later, schema: .default)
            #expect(left == false && met == nil, "\(later)")
        }
    }

    /// The same conflict inside the client (schedules refuse an id created twice, so only a
    /// machine fed directly meets it): the views of profiles and todos, kept incrementally
    /// through each new mutation, equal the ones drawn from the answer and every visible step.
    @Test func aReusedIdInTheClientMatchesTheViewFromEveryStep() {
        var c = InstantClient(context: .testing(), fullEntity: false, restoring: nil)
        var server = EntityStore()
        _ = server.apply(.create(F.profile, .profiles, F.set(.name, .string("Ada"))), schema: .default)
        _ = server.apply(.create(F.todo, .todos, F.set(.title, .string("a"))), schema: .default)
        for (k, q) in [Query(.profiles), Query(.todos)].enumerated() {
            var st = InstantClient.QueryState(key: .subscription(SubscriptionID(UInt32(k + 1))), query: q)
            st.setServer(q.evaluate(server), processedTxID: 1)
            c.queries.append(st)
        }
        let writes: [[Op]] = [
            [.update(F.profile, .profiles, F.set(.bio, .string("hi")))],
            [.create(EntityID(10), .todos, F.set(.title, .string("t")))],
            [.create(EntityID(10), .profiles, F.set(.name, .string("p")))],  // refused: todo#10 exists
            [.update(EntityID(10), .profiles, F.set(.bio, .string("b")))],   // refused: wrong namespace
            [.delete(EntityID(10), .todos)],
            [.create(EntityID(10), .profiles, F.set(.name, .string("q")))],  // now it may
        ]
        var out = ClientOutbox<InstantUp>()
        for (k, ops) in writes.enumerated() {
            c.pending.append(Self.mutation(UInt64(k + 1), ops))
            c.refreshYields(out: &out)
            for q in c.queries {
                let fromEveryStep = c.overlay(q.server!, processedTxID: q.processedTxID, query: q.query)
                #expect(q.shown == fromEveryStep, "after write \(k + 1), \(q.query): \(q.shown?.summary ?? "nil") vs \(fromEveryStep.summary)")
            }
        }
        #expect(c.queries[0].overlayFilter.keepsAll, "the profiles store met the reused id")
        // The same writes all pending before the first build: the conflict is met while the
        // store is built from the answer (`applyVisible` starts again with every step).
        var d = InstantClient(context: .testing(), fullEntity: false, restoring: nil)
        d.queries = c.queries.map {
            var st = InstantClient.QueryState(key: $0.key, query: $0.query)
            st.setServer($0.server, processedTxID: $0.processedTxID)
            return st
        }
        d.pending = c.pending
        d.refreshYields(out: &out)
        for q in d.queries {
            #expect(q.shown == d.overlay(q.server!, processedTxID: q.processedTxID, query: q.query), "\(q.query)")
            #expect(q.overlayFilter.keepsAll)
        }
        // The todos store left the profile steps out, and meets todo#10's delete after a
        // left-out step named #10: it stops filtering too (conservatively).
        #expect(c.queries[1].overlayFilter.keepsAll)
    }

    /// Generated runs over the blog schema with rich queries (include trees, conditions,
    /// limits, has-many links): every view equals the rebuild from every step.
    @Test func richRunsMatchTheRebuild() throws {
        let log = DivergenceLog()
        for seed in UInt64(0)..<4 {
            var config = WorkloadGenerator.Config(actions: 150, schema: .blog)
            config.richQueries = true
            let schedule = WorkloadGenerator(config).generate(seed: seed)
            _ = try Simulator.run(InstantIncrementalTests.CheckedStrategy(log: log, fullEntity: false), schedule, seed: seed)
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(log.checks > 500)
    }
}
