import Foundation
import Testing
@testable import SyncSim

/// Tenant actions in schedules: the file format, limits, digest, ownership of entities.
@Suite struct TenantScheduleTests {
    static func file(_ actions: String) -> String {
        """
        {"format": 1, "title": "t", "strategy": "instant",
         "options": {"clients": 2},
         "initial": [{"entity": 1, "namespace": "todos", "set": {"title": "a"}}],
         "actions": \(actions)}
        """
    }

    static func error(_ text: String) -> ScenarioError? {
        do { _ = try Scenario.decode(Data(text.utf8), file: "t.json"); return nil } catch let e as ScenarioError { return e } catch { return nil }
    }

    @Test func tenantActionsRoundTripThroughJSON() throws {
        let s = Schedule(initial: [], actions: [
            TimedAction(at: 5, .switchTenant(ClientID(1), TenantID(3))),
            TimedAction(at: 9, .logout(ClientID(0))),
        ])
        let sc = Scenario(title: "t", description: "d", strategy: "instant", expect: ["instant": .holds], origin: .init(seed: 0), schedule: s)
        let text = try sc.encoded()
        #expect(text.contains(#"{"at": 5, "client": "B", "do": "switchTenant", "tenant": 3}"#), "\(text)")
        #expect(text.contains(#"{"at": 9, "client": "A", "do": "logout"}"#), "\(text)")
        let back = try Scenario.decode(Data(text.utf8), file: "x.json")
        #expect(back.schedule == s)
        var other = s
        other.actions[0] = TimedAction(at: 5, .switchTenant(ClientID(1), TenantID(2)))
        #expect(s.digest != other.digest)
        #expect(try s.compile().usesTenants)
        #expect(try !Schedule(actions: []).compile().usesTenants)
    }

    @Test(arguments: ["16", "-1", "300"])
    func aTenantOutOfRangeIsRejectedWithItsPath(tenant: String) {
        let e = Self.error(Self.file(#"[{"at": 5, "do": "switchTenant", "client": "A", "tenant": \#(tenant)}]"#))
        #expect(e?.path == "actions[0].tenant", "\(String(describing: e))")
        #expect(e?.location != nil)
    }

    @Test func aProgrammaticTenantOutOfRangeFailsToCompile() {
        let s = Schedule(actions: [TimedAction(at: 1, .switchTenant(ClientID(0), TenantID(200)))])
        #expect(throws: ScheduleError.self) { try s.compile() }
    }

    @Test func aUserCannotWriteAnotherTenantsEntity() {
        let e = Self.error(Self.file("""
            [{"at": 5, "do": "switchTenant", "client": "B", "tenant": 1},
             {"at": 6, "do": "update", "client": "B", "entity": 1, "set": {"title": "x"}}]
            """))
        #expect(e?.path == "actions[1].entity", "\(String(describing: e))")
        #expect(e?.message.contains("belongs to tenant 0, but client B is in tenant 1") == true, "\(String(describing: e))")
        // Admin writes go to tenant 0: an entity of tenant 1 is out of their reach.
        let admin = Self.error(Self.file("""
            [{"at": 5, "do": "switchTenant", "client": "B", "tenant": 1},
             {"at": 6, "do": "create", "client": "B", "entity": 2, "namespace": "todos", "set": {}},
             {"at": 7, "do": "serverUpdate", "entity": 2, "set": {"title": "x"}}]
            """))
        #expect(admin?.path == "actions[2].entity", "\(String(describing: admin))")
    }

    @Test func aSwitchInsideATypingBurstIsRejected() {
        let e = Self.error(Self.file("""
            [{"at": 5, "do": "type", "client": "A", "entity": 1, "field": "title", "text": "abc", "everyMs": 100},
             {"at": 100, "do": "switchTenant", "client": "A", "tenant": 1}]
            """))
        #expect(e?.path == "actions[1].at", "\(String(describing: e))")
    }

    @Test func theGeneratorDrawsTenantActionsOnlyWhenAsked() throws {
        var on = WorkloadGenerator.Config()
        on.tenants = 4
        var drew = false
        for seed in UInt64(0)..<20 {
            let plain = WorkloadGenerator().generate(seed: seed)
            let with = WorkloadGenerator(on).generate(seed: seed)
            #expect(!plain.actions.contains { $0.action.kind == .switchTenant || $0.action.kind == .logout })
            drew = drew || with.actions.contains { $0.action.kind == .switchTenant }
            _ = try with.compile()   // every generated schedule respects tenant ownership
        }
        #expect(drew)
    }
}
