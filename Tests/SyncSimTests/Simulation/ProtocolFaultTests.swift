import Foundation
import Testing
@testable import SyncSim

/// Faults aimed at protocol points (`crash` actions): each strikes where it says, shows in the
/// story, and is found by the generator in a share of seeds.
@Suite struct ProtocolFaultTests {
    static let a = ClientID(0), b = ClientID(1)
    static let todo = EntityID(1)

    static func options() -> SimulationOptions {
        var o = SimulationOptions()
        o.clients = 2
        o.latencyMinMs = 50
        o.latencyMaxMs = 50
        return o
    }

    /// A subscribes to todos, the fault is armed, then A (or B) writes.
    static func schedule(_ point: CrashPoint, writer: ClientID = a) -> Schedule {
        Schedule(options: options(), initial: [InitialEntity(entity: todo, namespace: .todos, values: [FieldAssignment(.title, .string("milk"))])],
                 actions: [
                    TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
                    TimedAction(at: 0, .subscribe(b, SubscriptionID(2), Query(.todos))),
                    TimedAction(at: 1_000, .crash(a, point)),
                    TimedAction(at: 1_100, .update(writer, todo, [FieldAssignment(.title, .string("oat milk"))])),
                 ])
    }

    static func run<S: SyncStrategy>(_ strategy: S, _ s: Schedule) throws -> RunResult {
        try Simulator.run(strategy, s, seed: 1, trace: .full)
    }

    @Test func afterSendCrashesRightAfterASendOutsideAUserCommand() throws {
        // A writes offline (no send), then reconnects: the sync it sends then is not a user command.
        var s = Self.schedule(.afterSend)
        s.actions.insert(TimedAction(at: 1_050, .goOffline(Self.a)), at: 3)
        s.actions.append(TimedAction(at: 1_500, .goOnline(Self.a)))
        let r = try Self.run(ReferenceStrategy(), s)
        let i = try #require(r.trace.firstIndex { $0.text.contains("A crashes right after sending") })
        // The line before it is A's send, at the same instant; the user's own write did not trigger it.
        let send = r.trace[i - 1]
        #expect(send.kind == .send && send.text.hasPrefix("A sends") && send.time == r.trace[i].time)
        #expect(send.time >= 1_500)
        #expect(r.history.restarts.count == 1)
        #expect(r.trace.contains { $0.text.contains("fault armed: A will crash right after its next send") })
        // The write-ahead reference survives it: applied once, nothing violated.
        #expect(r.history.applied.filter { $0.tx.writes.contains(WriteID(0)) }.count == 1)
        #expect(r.violations.isEmpty, "\(r.violations)")
    }

    @Test func duringApplyCrashesAfterTheNextReceivedMessageWithoutPersisting() throws {
        let r = try Self.run(ReferenceStrategy(), Self.schedule(.duringApply, writer: Self.b))
        let crash = try #require(r.trace.first { $0.text.contains("A crashes while applying a received message") })
        #expect(crash.time > 1_000)
        #expect(r.history.restarts.count == 1)
        #expect(r.violations.isEmpty, "\(r.violations)")
    }

    @Test func commitUnknownLosesTheAckAndTheClientRetries() throws {
        let s = Self.schedule(.commitUnknown)
        // Reference retries with the same write id and the server deduplicates: applied once.
        let ref = try Self.run(ReferenceStrategy(), s)
        #expect(ref.trace.contains { $0.text.contains("the server crashes after applying tx") })
        #expect(ref.trace.contains { $0.kind == .lose && $0.text.contains("commit unknown") })
        #expect(ref.violations.isEmpty, "\(ref.violations)")
        #expect(ref.history.applied.filter { $0.tx.writes.contains(WriteID(0)) }.count == 1)
        // instant replays at least once and does not deduplicate: the retry applies the write again.
        let inst = try Self.run(InstantStrategy(), s)
        #expect(inst.history.applied.filter { $0.tx.writes.contains(WriteID(0)) }.count == 2)
        #expect(inst.violatedInvariants.contains(.noDuplicateApplication))
    }

    @Test func withoutACrashActionNothingCrashes() throws {
        // The fault machinery stays out of a schedule that never arms it: no crash, no restart.
        var s = Self.schedule(.afterSend)
        s.actions.remove(at: 2)
        let r = try Self.run(ReferenceStrategy(), s)
        #expect(!r.trace.contains { $0.text.contains("crash") })
        #expect(r.history.restarts.isEmpty)
    }

    @Test func scenarioFilesCarryCrashActions() throws {
        let json = #"{"format":1,"title":"t","strategy":"reference","actions":[{"at":0,"do":"crash","client":"A","point":"commitUnknown"}]}"#
        let sc = try Scenario.decode(Data(json.utf8), file: "c.json")
        #expect(sc.schedule.actions.first?.action == .crash(Self.a, .commitUnknown))
        let back = try JSONFormat.encode(sc.schedule)
        #expect(back.contains("commitUnknown"), "\(back)")
        let bad = json.replacingOccurrences(of: "commitUnknown", with: "atRandom")
        #expect(throws: ScenarioError.self) { try Scenario.decode(Data(bad.utf8), file: "c.json") }
        do { _ = try Scenario.decode(Data(bad.utf8), file: "c.json") } catch {
            #expect("\(error)".contains("c.json") && "\(error)".contains("afterSend, duringApply, commitUnknown"), "\(error)")
        }
    }

    @Test func theGeneratorArmsProtocolFaultsInAShareOfSeeds() {
        let gen = WorkloadGenerator()
        var seedsWith = 0
        var points = Set<CrashPoint>()
        for seed in 0..<200 {
            let s = gen.generate(seed: UInt64(seed))
            var any = false
            for a in s.actions { if case .crash(let c, let p) = a.action { any = true; points.insert(p); #expect(c.index < s.options.clients) } }
            if any { seedsWith += 1 }
        }
        #expect((25...80).contains(seedsWith), "\(seedsWith) of 200 seeds armed a protocol fault")
        #expect(points.count == CrashPoint.allCases.count)
    }
}
