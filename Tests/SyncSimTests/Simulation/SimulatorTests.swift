import Testing
@testable import SyncSim

@Suite struct SimulatorTests {
    static let a = ClientID(0)

    func fixedLatency(_ clients: Int = 1) -> SimulationOptions {
        var o = SimulationOptions()
        o.clients = clients
        o.latencyMinMs = 100
        o.latencyMaxMs = 100
        return o
    }

    @Test func aLinkThatGoesDownLosesItsInFlightMessages() throws {
        let s = Schedule(options: fixedLatency(), actions: [
            TimedAction(at: 1_000, .create(Self.a, EntityID(1), .todos, [FieldAssignment(.title, .string("lost"))])),
            TimedAction(at: 1_050, .goOffline(Self.a)),   // the write is 50 ms into its 100 ms flight
            TimedAction(at: 1_500, .goOnline(Self.a)),
            TimedAction(at: 2_000, .create(Self.a, EntityID(2), .todos, [FieldAssignment(.title, .string("kept"))])),
        ])
        var sim = try Simulator(strategy: ProbeStrategy(), schedule: s, seed: 1, trace: .full)
        let r = sim.run()
        let server = sim.server
        #expect(server.log == [WriteID(1)])
        #expect(r.trace.contains { $0.kind == .lose && $0.text.contains("went down while it was in flight") })
        #expect(r.history.messagesLost == 1)
        // Not delivered late either: after the link came back, only the second write arrived.
        #expect(r.server.contains(EntityID(2)) && !r.server.contains(EntityID(1)))
    }

    @Test func streamsLoseInFlightMessagesWhenTheServerBecomesUnreachable() throws {
        let s = Schedule(options: fixedLatency(), actions: [
            TimedAction(at: 1_000, .create(Self.a, EntityID(1), .todos, [])),
            TimedAction(at: 1_010, .serverUnreachable(Self.a)),
            TimedAction(at: 1_500, .serverReachable(Self.a)),
        ])
        var sim = try Simulator(strategy: ProbeStrategy(transport: .stream), schedule: s, seed: 1, trace: .full)
        _ = sim.run()
        #expect(sim.server.log.isEmpty)
        // The device still believed it was online; it learned of the broken connection later.
        #expect(sim.link(Self.a).device == .online)
    }

    @Test func restartLosesVolatileStateAndKeepsDurableStorage() throws {
        let s = Schedule(options: fixedLatency(), actions: [
            TimedAction(at: 100, .create(Self.a, EntityID(1), .todos, [])),
            TimedAction(at: 200, .create(Self.a, EntityID(2), .todos, [])),
            TimedAction(at: 300, .restart(Self.a)),
            TimedAction(at: 400, .create(Self.a, EntityID(3), .todos, [])),
        ])
        var sim = try Simulator(strategy: ProbeStrategy(), schedule: s, seed: 1)
        _ = sim.run()
        let c = sim.client(Self.a)
        #expect(c.durableCount == 3)   // 2 before the crash, kept, + 1 after
        #expect(c.volatileCount == 1)  // only the write after the crash
    }

    @Test func sameSeedSameTraceDifferentSeedDifferentTrace() throws {
        let gen = WorkloadGenerator()
        let s = gen.generate(seed: 3)
        let r1 = try Simulator.run(InstantStrategy(), s, seed: 3)
        let r2 = try Simulator.run(InstantStrategy(), s, seed: 3)
        #expect(r1.traceHash == r2.traceHash)
        #expect(r1.events == r2.events)
        let r3 = try Simulator.run(InstantStrategy(), gen.generate(seed: 4), seed: 4)
        #expect(r3.traceHash != r1.traceHash)
        // Recording the story does not change the run.
        let r4 = try Simulator.run(InstantStrategy(), s, seed: 3, trace: .full)
        #expect(r4.traceHash == r1.traceHash)
        #expect(!r4.trace.isEmpty)
    }

    @Test func aRunThatNeverSettlesEndsWithALivenessFailure() throws {
        var o = fixedLatency()
        o.settleLimitMs = 5_000
        let s = Schedule(options: o, actions: [TimedAction(at: 10, .create(Self.a, EntityID(1), .todos, []))])
        let r = try Simulator.run(ProbeStrategy(neverSettle: true), s, seed: 1)
        #expect(!r.settled)
        #expect(r.violations.contains { $0.invariant == .liveness })
        #expect(r.virtualDurationMs <= 10 + 1 + 5_000 + 250)
    }

    @Test func theEventBoundStopsARunawayRun() throws {
        var o = fixedLatency()
        o.maxEvents = 3
        let s = Schedule(options: o, actions: (0..<10).map { TimedAction(at: Int64($0), .create(Self.a, EntityID(UInt32($0 + 1)), .todos, [])) })
        let r = try Simulator.run(ProbeStrategy(), s, seed: 1)
        #expect(r.violations.contains { $0.invariant == .liveness && $0.explanation.contains("3 events") })
    }

    @Test func invalidSchedulesAreErrorsNotCrashes() {
        var o = SimulationOptions()
        o.clients = 1
        let bad: [(Schedule, String)] = [
            (Schedule(options: o, actions: [TimedAction(at: 5, .update(Self.a, EntityID(9), [FieldAssignment(.title, .string("x"))]))]), "actions[0].entity"),
            (Schedule(options: o, actions: [TimedAction(at: 5, .goOffline(Self.a)), TimedAction(at: 4, .goOnline(Self.a))]), "actions[1].at"),
            (Schedule(options: o, actions: [TimedAction(at: 5, .goOffline(ClientID(3)))]), "actions[0].client"),
            (Schedule(options: o, actions: [TimedAction(at: 5, .create(Self.a, EntityID(1), .todos, [FieldAssignment(.name, .string("x"))]))]), "actions[0].set.name"),
            (Schedule(options: o, actions: [TimedAction(at: 5, .create(Self.a, EntityID(1), .todos, [FieldAssignment(.done, .string("yes"))]))]), "actions[0].set.done"),
        ]
        for (s, path) in bad {
            #expect(throws: ScheduleError.self) { try s.compile() }
            do { _ = try s.compile() } catch let e as ScheduleError { #expect(e.path == path) } catch { Issue.record("\(error)") }
        }
    }
}

/// A timer cancelled and set again must not fire at its first deadline (found by the
/// conflictPrompt work: generations used to restart at 1 after a cancel).
@Suite struct TimerTests {
    struct Once: WireMessage {
        var kind: String { "x" }
        var description: String { "x" }
        func stableHash(into h: inout StableHasher) {}
    }
    struct C: ClientMachine {
        typealias Up = Once
        typealias Down = Once
        var fired: [Int64] = []
        var durableState: Int { 0 }
        var pendingWrites: [WriteID] { [] }
        func result(of subscription: SubscriptionID) -> QueryResult? { nil }
        mutating func handle(_ input: ClientInput<Once>, now: Int64, out: inout ClientOutbox<Once>) {
            switch input {
            case .network(.online):
                out(.setTimer(TimerID(7), afterMs: 100))
                out(.cancelTimer(TimerID(7)))
                out(.setTimer(TimerID(7), afterMs: 500))
            case .timerFired: fired.append(now)
            default: break
            }
        }
    }
    struct S: ServerMachine {
        typealias Up = Once
        typealias Down = Once
        var data = EntityStore()
        mutating func handle(_ input: ServerInput<Once>, now: Int64, out: inout ServerOutbox<Once>) {}
    }
    struct T: SyncStrategy {
        var info: StrategyInfo { StrategyInfo(name: "t", summary: "", contract: [], arbitration: .serverArrival) }
        var transport: Transport { .datagram }
        func makeClient(_ context: ClientContext, restoring durable: Int?) -> C { C() }
        func makeServer(_ context: ServerContext) -> S { S() }
    }

    @Test func resetTimerFiresOnlyAtItsNewDeadline() throws {
        var o = SimulationOptions()
        o.clients = 1
        var sim = try Simulator(strategy: T(), schedule: Schedule(options: o, actions: [TimedAction(at: 1_000, .goOffline(ClientID(0)))]), seed: 1)
        _ = sim.run()
        #expect(sim.client(ClientID(0)).fired == [500])
    }
}
