import Testing
@testable import SyncSim

/// `Monitor.value(of:_:_:)`, the value an intent assigns to one entity's field, which every
/// register oracle reads. It once returned a value the intent gave another entity it created
/// (a `where` that guarded only the second pattern of the `case`).
@Suite struct IntentValueTests {
    static func intent(_ ops: [Op]) -> History.Intent {
        History.Intent(write: UserWrite(id: WriteID(0), ops: ops), origin: .client(ClientID(0)), time: 0, clientTime: 0, whileDisconnected: false)
    }

    @Test func onlyTheNamedEntitysAssignmentsCount() {
        let f = FieldID(0), ns = NamespaceID(0)
        let a = EntityID(1), b = EntityID(2)
        let createsA = Self.intent([.create(a, ns, [FieldAssignment(f, .string("mine"))]), .update(b, ns, [FieldAssignment(FieldID(1), .bool(true))])])
        #expect(Monitor.value(of: createsA, a, f) == .string("mine"))
        #expect(Monitor.value(of: createsA, b, f) == nil, "b's field 0 is not written by this intent")
        let updatesB = Self.intent([.update(b, ns, [FieldAssignment(f, .string("theirs"))]), .create(a, ns, [FieldAssignment(f, .string("mine"))])])
        #expect(Monitor.value(of: updatesB, b, f) == .string("theirs"))
        #expect(Monitor.value(of: updatesB, a, f) == .string("mine"))
    }
}
