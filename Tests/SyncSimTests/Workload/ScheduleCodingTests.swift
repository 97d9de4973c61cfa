import Foundation
import Testing
@testable import SyncSim

@Suite struct ScheduleCodingTests {
    @Test(arguments: [UInt64(0), 1, 2, 3, 17, 99])
    func generatedSchedulesRoundTripThroughJSON(seed: UInt64) throws {
        let s = WorkloadGenerator().generate(seed: seed)
        let sc = Scenario(title: "t", description: "d", strategy: "instant", expect: ["instant": .holds], origin: .init(seed: seed), schedule: s)
        let text = try sc.encoded()
        let back = try Scenario.decode(Data(text.utf8), file: "x.json")
        #expect(back.schedule == s)
        #expect(try back.encoded() == text)   // canonical: encoding is stable
    }

    @Test func oneActionPerLine() throws {
        let s = Schedule(actions: [TimedAction(at: 120, .update(ClientID(1), EntityID(1), [FieldAssignment(.title, .string("Te"))]))],
                         )
        let text = try JSONFormat.encode(s)
        #expect(text.contains(#"{"at": 120, "client": "B", "do": "update", "entity": 1, "set": {"title": "Te"}}"#))
    }
}
