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
        f.restart(pending: pending, visibleAbove: 0, query: Query(.todos), schema: .default)
        #expect(!f.keepsAll)
        let leavesTheProfile = f.takes(pending[0].steps[0].op, schema: .default)
        let takesTheTodo = f.takes(pending[0].steps[1].op, schema: .default)
        #expect(!leavesTheProfile && takesTheTodo)
    }

    /// todo#10 is created, then a profile with the same id: the second create fails in the full
    /// store but would succeed in the profiles store that left the first one out.
    @Test func anEntityNamedAgainStopsTheFiltering() {
        let first = Self.mutation(1, [.create(EntityID(10), .todos, [])])
        let second = Self.mutation(2, [.create(EntityID(10), .profiles, [])])
        var f = OverlayStepFilter()
        f.restart(pending: [first], visibleAbove: 0, query: Query(.profiles), schema: .default)
        let leavesTheTodo = f.takes(first.steps[0].op, schema: .default)
        #expect(!leavesTheTodo)
        let admits = f.admits(newStepsOf: [first, second], after: 1, visibleAbove: 0, query: Query(.profiles), schema: .default)
        #expect(!admits)
        #expect(f.keepsAll)
        // A rebuild now takes every step.
        f.restart(pending: [first, second], visibleAbove: 0, query: Query(.profiles), schema: .default)
        let takesItNow = f.takes(first.steps[0].op, schema: .default)
        #expect(takesItNow)
        // The same conflict found when the store is rebuilt.
        var g = OverlayStepFilter()
        g.restart(pending: [first, second], visibleAbove: 0, query: Query(.profiles), schema: .default)
        #expect(g.keepsAll)
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
