import Testing
@testable import SyncSim

/// `instant` whose client forgets part of seed 000's user change: it keeps its pending queue
/// (what Reactor.js `updateUser` actually does) or its query results across a switch of tenant.
/// The isolation oracle must catch each; the real `instant` must pass.
struct LeakyUserChangeInstant: SyncStrategy {
    var keepsQueue = false
    var keepsResults = false

    var info: StrategyInfo {
        StrategyInfo(name: "leakyUserChange", summary: "instant keeping queue or results across a user change",
                     contract: Set(InvariantID.allCases), arbitration: .serverArrival)
    }
    var transport: Transport { .stream }
    var tenancy: Tenancy { .oneDatabase }

    func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> InstantClient {
        var c = InstantClient(context: context, fullEntity: false, restoring: durable)
        c.keepsQueueOnUserChange = keepsQueue
        c.keepsResultsOnUserChange = keepsResults
        return c
    }

    func makeServer(_ context: ServerContext) -> InstantServer { InstantServer(clients: context.clientCount) }
}

@Suite struct TenantIsolationTests {
    typealias F = Fixture
    static let mine = EntityID(10)
    static let one = TenantID(1)

    /// A writes todo#10 offline in tenant 0, switches to tenant 1, comes back online.
    static let queuedThenSwitch: [TimedAction] = F.subscribeTodos + [
        TimedAction(at: 500, .goOffline(F.A)),
        TimedAction(at: 600, .create(F.A, mine, .todos, F.set(.title, .string("mine")))),
        TimedAction(at: 700, .switchTenant(F.A, one)),
        TimedAction(at: 800, .goOnline(F.A)),
    ]

    @Test func aQueueKeptAcrossAUserChangeIsAppliedByTheOtherTenantsServer() throws {
        let r = try F.run(LeakyUserChangeInstant(keepsQueue: true), Self.queuedThenSwitch)
        let v = r.violations.first { $0.invariant == .tenantIsolation }
        #expect(v?.explanation.contains("the server of tenant 1 applied w0") == true, "\(r.violations)\n\(r.story)")
        #expect(v?.culprit == "write of tenant 0 applied in tenant 1")
    }

    /// The shrinker keeps what the leak needs (the offline write and the switch) and drops the
    /// rest, tenant actions included when they do not matter.
    @Test func aLeakShrinksToTheWriteAndTheSwitch() throws {
        let noise: [TimedAction] = [
            TimedAction(at: 650, .switchTenant(F.B, TenantID(2))),
            TimedAction(at: 660, .logout(F.B)),
            TimedAction(at: 900, .update(F.B, F.todo, F.set(.priority, .int(5)))),
        ]
        var actions = Self.queuedThenSwitch + noise
        actions.sort { $0.at < $1.at }
        let original = Schedule(options: F.options(), initial: F.initial, actions: actions)
        var shrinker = Shrinker(strategy: LeakyUserChangeInstant(keepsQueue: true), seed: 1, invariant: .tenantIsolation)
        let shrunk = shrinker.shrink(original)
        let out = try #require(shrunk)
        let kinds = out.schedule.actions.map(\.action.kind)
        #expect(kinds.contains(.switchTenant) && kinds.contains(.create), "\(out.schedule.actions)")
        #expect(!kinds.contains(.logout) && out.schedule.actions.count < actions.count, "\(out.schedule.actions)")
        #expect(out.violation.invariant == .tenantIsolation)
    }

    @Test func instantClearsItsQueueAtAUserChangeAndTheWriteIsWithdrawnNotLost() throws {
        let r = try F.run(InstantStrategy(), Self.queuedThenSwitch)
        #expect(!r.violates(.tenantIsolation), "\(r.violations)")
        #expect(!r.violates(.noLostAcknowledgedWrite), "\(r.violations)")
        #expect(r.history.tenantChanges.map(\.discarded) == [[WriteID(0)]])
        #expect(r.history.applied.allSatisfy { !$0.tx.writes.contains(WriteID(0)) })
        #expect(r.settled)
    }

    @Test func resultsKeptAcrossAUserChangeShowTheOtherTenantsRows() throws {
        // A shows todo#1 (tenant 0's initial data), goes offline, switches, writes: the yield
        // that write causes still shows todo#1.
        let actions = F.subscribeTodos + [
            TimedAction(at: 500, .goOffline(F.A)),
            TimedAction(at: 600, .switchTenant(F.A, Self.one)),
            TimedAction(at: 700, .create(F.A, Self.mine, .todos, F.set(.title, .string("mine")))),
        ]
        let leaky = try F.run(LeakyUserChangeInstant(keepsResults: true), actions)
        let v = leaky.violations.first { $0.invariant == .tenantIsolation }
        #expect(v?.culprit == "foreign entity shown" && v?.entity == F.todo, "\(leaky.violations)\n\(leaky.story)")
        let real = try F.run(InstantStrategy(), actions)
        #expect(!real.violates(.tenantIsolation), "\(real.violations)")
        #expect(real.clients[0].subscriptions[0].result?.contains(F.todo) != true)
    }

    /// Seed 004's matrix row: two tenants sync separately. Every built-in keeps them apart.
    @Test(arguments: ["instant", "fullEntity", "sharedDiff", "conflictPrompt", "pushPull", "reference"])
    func twoTenantsSyncSeparately(strategy: String) throws {
        let s = try #require(AnyStrategy.builtIns.first { $0.name == strategy })
        let actions: [TimedAction] = [
            TimedAction(at: 0, .switchTenant(F.B, Self.one)),
            TimedAction(at: 10, .subscribe(F.A, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 10, .subscribe(F.B, SubscriptionID(2), Query(.todos))),
            TimedAction(at: 600, .create(F.A, EntityID(10), .todos, F.set(.title, .string("from A")))),
            TimedAction(at: 600, .create(F.B, EntityID(11), .todos, F.set(.title, .string("from B")))),
            TimedAction(at: 900, .update(F.A, F.todo, F.set(.title, .string("edited")))),
        ]
        let r = try s.run(Schedule(options: F.options(), initial: F.initial, actions: actions), seed: 1, trace: .full)
        #expect(!r.violates(.tenantIsolation), "\(r.violations)\n\(r.story)")
        #expect(r.settled, "\(r.story)")
        let a = r.clients[0].subscriptions[0].result.map { $0.roots } ?? []
        let b = r.clients[1].subscriptions[0].result.map { $0.roots } ?? []
        #expect(a == [F.todo, EntityID(10)], "\(a)")
        #expect(b == [EntityID(11)], "\(b)")
        #expect(r.server.contains(EntityID(10)) && !r.server.contains(EntityID(11)), "tenant 0's server has A's todo only")
    }

    /// `.databasePerTenant`: a write queued in tenant 0 waits in tenant 0's database while the
    /// user works in tenant 1, and syncs to tenant 0's server once they switch back.
    @Test(arguments: ["pushPull", "reference", "conflictPrompt"])
    func aParkedWriteSyncsWhenTheUserComesBack(strategy: String) throws {
        let s = try #require(AnyStrategy.builtIns.first { $0.name == strategy })
        let actions = Self.queuedThenSwitch + [TimedAction(at: 5_000, .switchTenant(F.A, .initial))]
        let r = try s.run(Schedule(options: F.options(), initial: F.initial, actions: actions), seed: 1, trace: .full)
        #expect(!r.violates(.tenantIsolation) && !r.violates(.noLostAcknowledgedWrite), "\(r.violations)\n\(r.story)")
        #expect(r.history.tenantChanges.allSatisfy { $0.discarded.isEmpty })
        #expect(r.server[Self.mine] != nil, "\(r.story)")
    }

    /// Seed 004 §4.1: logout drops the tenant's database, queued write included; the user asked
    /// for it, so it is withdrawn, not lost. Actions while logged out do not happen.
    @Test func logoutDropsTheTenantsDatabase() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 500, .goOffline(F.A)),
            TimedAction(at: 600, .create(F.A, Self.mine, .todos, F.set(.title, .string("mine")))),
            TimedAction(at: 700, .logout(F.A)),
            TimedAction(at: 750, .create(F.A, EntityID(11), .todos, F.set(.title, .string("nobody")))),
            TimedAction(at: 800, .goOnline(F.A)),
            TimedAction(at: 3_000, .switchTenant(F.A, .initial)),
        ]
        let r = try F.run(PushPullStrategy(), actions)
        #expect(!r.violates(.tenantIsolation) && !r.violates(.noLostAcknowledgedWrite), "\(r.violations)\n\(r.story)")
        #expect(r.history.tenantChanges.first?.discarded == [WriteID(0)])
        #expect(r.history.intent(WriteID(1)) == nil, "a logged-out user's write never happens")
        #expect(r.story.contains("is logged out"), "\(r.story)")
        #expect(r.server[Self.mine] == nil && r.server[EntityID(11)] == nil)
        #expect(r.settled)
    }

    /// With tenants on, the generator's schedules raise no false alarm on the built-ins: nothing
    /// a strategy claims is violated that it does not also violate without tenants.
    @Test func generatedTenantSchedulesRaiseNoFalseAlarm() throws {
        var config = WorkloadGenerator.Config()
        config.tenants = 3
        var changes = 0
        for s in AnyStrategy.builtIns {
            for seed in UInt64(0)..<5 {
                let schedule = s.schedule(seed: seed, config)
                let r = try s.run(schedule, seed: seed)
                changes += r.history.tenantChanges.count
                let claimed = s.info.contract.union(s.info.conditionalContract.filter { $0.condition.holds(in: schedule.options) }.map(\.invariant))
                let broken = Set(r.violations.map(\.invariant)).intersection(claimed)
                #expect(broken.isEmpty, "\(s.name) seed \(seed): \(r.violations.filter { claimed.contains($0.invariant) })")
            }
        }
        #expect(changes > 0, "the schedules switched tenants")
    }

    /// The same generated schedules catch the leaky client: the oracle reaches real leaks in
    /// fuzzing, not only in hand-written cases.
    @Test func generatedTenantSchedulesCatchTheLeakyClient() throws {
        var config = WorkloadGenerator.Config()
        config.tenants = 3
        let leaky = LeakyUserChangeInstant(keepsQueue: true, keepsResults: true)
        var caught = 0
        for seed in UInt64(0)..<12 {
            let schedule = WorkloadGenerator(config).generate(seed: seed)
            if try Simulator.run(leaky, schedule, seed: seed).violates(.tenantIsolation) { caught += 1 }
        }
        #expect(caught > 0)
    }
}
