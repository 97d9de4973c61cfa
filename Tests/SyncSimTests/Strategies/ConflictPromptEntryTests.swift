import Testing
@testable import SyncSim

/// A queue row keeps its arrays behind one shared payload (`ConflictPromptClient.Entry`): it
/// must still behave as a value, a change of a copy never showing in the row it came from,
/// and rows compare by content whether or not they share the payload.
@Suite("ConflictPrompt queue row")
struct ConflictPromptEntryTests {
    static let todo = EntityID(1)
    static let ops: [Op] = [.update(todo, .todos, [FieldAssignment(.title, .string("a"))])]

    @Test func aChangedCopyLeavesTheRowItCameFrom() {
        let row = ConflictPromptClient.Entry(writes: [WriteID(1)], ops: Self.ops, expect: [CPExpectation(Self.todo, 3)])
        var copy = row
        #expect(copy == row)
        copy.expect[0].version = 7
        copy.writes.append(WriteID(2))
        copy.merged = [.update(Self.todo, .todos, [FieldAssignment(.title, .string("b"))])]
        #expect(row.expect == [CPExpectation(Self.todo, 3)])
        #expect(row.writes == [WriteID(1)])
        #expect(row.merged == nil && row.sentOps == Self.ops)
        #expect(copy.expect == [CPExpectation(Self.todo, 7)])
        #expect(copy.writes == [WriteID(1), WriteID(2)])
        #expect(copy.request.ops == copy.merged)
        #expect(copy != row)
        copy.sent = true
        #expect(!row.sent)
    }

    @Test func rowsCompareByContent() {
        let a = ConflictPromptClient.Entry(writes: [WriteID(1)], ops: Self.ops, expect: [CPExpectation(Self.todo, 3)])
        let b = ConflictPromptClient.Entry(writes: [WriteID(1)], ops: Self.ops, expect: [CPExpectation(Self.todo, 3)])
        #expect(a == b && a.hashValue == b.hashValue)
        var c = b
        c.force = true
        #expect(a != c)
        var d = b
        d.fields = [CPFieldSnapshot(Self.todo, EntityRecord(namespace: .todos, schema: .default))]
        #expect(a != d)
    }
}
