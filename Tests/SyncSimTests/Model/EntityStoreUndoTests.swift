import Testing
@testable import SyncSim

/// All-or-nothing transactions in place: `apply(_:schema:mode:undo:)` then `rollBack(_:)` must
/// leave the store equal to what it was, whatever the steps touched (creates past the end,
/// updates, links, deletes that clear links pointing at the deleted entity).
@Suite struct EntityStoreUndoTests {
    let schema = Schema.default

    /// Two profiles, a post by profile 1, a todo.
    func seeded() -> EntityStore {
        var s = EntityStore()
        let ops: [Op] = [
            .create(EntityID(1), .profiles, [FieldAssignment(.name, .string("Ann"))]),
            .create(EntityID(2), .profiles, [FieldAssignment(.name, .string("Bo"))]),
            .create(EntityID(3), .posts, [FieldAssignment(.content, .string("hi"))]),
            .link(EntityID(3), .author, EntityID(1)),
            .create(EntityID(4), .todos, [FieldAssignment(.title, .string("T"))]),
        ]
        for op in ops { #expect(s.apply(op, schema: schema) == nil) }
        return s
    }

    @Test func rollingBackEveryKindOfStepRestoresTheStore() {
        let before = seeded()
        var s = before
        var undo = EntityStore.UndoLog()
        let steps: [Op] = [
            .update(EntityID(4), .todos, [FieldAssignment(.title, .string("changed"))]),
            .create(EntityID(40), .todos, [FieldAssignment(.title, .string("far past the end"))]),
            .link(EntityID(3), .author, EntityID(2)),
            .delete(EntityID(2), .profiles),  // clears post 3's author link
            .unlink(EntityID(3), .author, EntityID(2)),
            .delete(EntityID(1), .profiles),
        ]
        for op in steps { #expect(s.apply(op, schema: schema, undo: &undo) == nil) }
        #expect(s != before)
        #expect(s[EntityID(3)]?[LinkID.author] == nil)
        s.rollBack(undo)
        #expect(s == before)
        #expect(s.records.count == before.records.count)
        #expect(s.count == before.count)
        #expect(StableHasher.hash(s) == StableHasher.hash(before))
    }

    /// The failing step changes nothing itself; rolling back undoes the steps before it.
    @Test func aFailedStepLeavesNothingBehindAfterRollBack() {
        let before = seeded()
        var s = before
        var undo = EntityStore.UndoLog()
        #expect(s.apply(.update(EntityID(1), .profiles, [FieldAssignment(.name, .string("Zed"))]), schema: schema, undo: &undo) == nil)
        #expect(s.apply(.create(EntityID(9), .todos, []), schema: schema, undo: &undo) == nil)
        let failed = s.apply(.create(EntityID(4), .todos, []), schema: schema, undo: &undo)
        #expect(failed == .alreadyExists(EntityID(4)))
        #expect(s[EntityID(1)]?[FieldID.name] == .string("Zed"))
        s.rollBack(undo)
        #expect(s == before)
        #expect(StableHasher.hash(s) == StableHasher.hash(before))
    }

    /// An empty log rolls back nothing; steps logged in one log are undone whatever their order.
    @Test func anEmptyLogIsANoOp() {
        var s = seeded()
        let undo = EntityStore.UndoLog()
        #expect(undo.isEmpty)
        s.rollBack(undo)
        #expect(s == seeded())
    }

    /// A log that absorbed a later one rolls both back: slots the later one saved first keep the
    /// earlier log's saved value, slots it appended are cut off (how the instant client's overlay
    /// store logs steps applied in several batches).
    @Test func aLogThatAbsorbedALaterOneRollsBothBack() {
        let before = seeded()
        var s = before
        var first = EntityStore.UndoLog()
        #expect(s.apply(.update(EntityID(4), .todos, [FieldAssignment(.title, .string("one"))]), schema: schema, undo: &first) == nil)
        #expect(s.apply(.create(EntityID(7), .todos, []), schema: schema, undo: &first) == nil)
        var later = EntityStore.UndoLog()
        for op: Op in [
            .update(EntityID(4), .todos, [FieldAssignment(.title, .string("two"))]),   // saved by both
            .update(EntityID(7), .todos, [FieldAssignment(.title, .string("new"))]),   // appended by the first
            .delete(EntityID(1), .profiles),                                             // clears post 3's link
            .create(EntityID(30), .todos, []),                                          // appended by the later
        ] { #expect(s.apply(op, schema: schema, undo: &later) == nil) }
        var partial = s
        partial.rollBack(later)
        #expect(partial != before)
        first.absorb(later)
        s.rollBack(first)
        #expect(s == before)
        #expect(s.records.count == before.records.count)
        #expect(StableHasher.hash(s) == StableHasher.hash(before))
        // An empty log absorbing one becomes it.
        var empty = EntityStore.UndoLog()
        var t = before
        var only = EntityStore.UndoLog()
        #expect(t.apply(.delete(EntityID(2), .profiles), schema: schema, undo: &only) == nil)
        empty.absorb(only)
        t.rollBack(empty)
        #expect(t == before)
    }

    /// A log past `scanLimit` slots (a whole-collection save) marks its slots in a bit set: each
    /// slot is still saved once, at its first change, so a rollback restores the store, also
    /// through `absorb` of two long logs and with slots written twice.
    @Test func aLongLogSavesEachSlotOnceAndRollsBack() {
        var before = EntityStore()
        for k in 1...200 { #expect(before.apply(.create(EntityID(UInt32(k)), .todos, [FieldAssignment(.title, .string("t\(k)"))]), schema: schema) == nil) }
        var s = before
        var first = EntityStore.UndoLog()
        for k in stride(from: 1, through: 200, by: 2) {
            #expect(s.apply(.update(EntityID(UInt32(k)), .todos, [FieldAssignment(.title, .string("a\(k)"))]), schema: schema, undo: &first) == nil)
            #expect(s.apply(.update(EntityID(UInt32(k)), .todos, [FieldAssignment(.priority, .int(k))]), schema: schema, undo: &first) == nil)
        }
        #expect(first.saved.count == 100 && !first.savedMarks.isEmpty)
        var second = EntityStore.UndoLog()
        for k in 1...200 where k % 3 == 0 {
            #expect(s.apply(.update(EntityID(UInt32(k)), .todos, [FieldAssignment(.title, .string("b\(k)"))]), schema: schema, undo: &second) == nil)
        }
        #expect(s.apply(.create(EntityID(300), .todos, []), schema: schema, undo: &second) == nil)
        #expect(s.apply(.delete(EntityID(7), .todos), schema: schema, undo: &second) == nil)
        first.absorb(second)
        // Slots saved by both logs are kept once, with the record from before the first change.
        let indices = first.saved.map(\.index)
        #expect(Set(indices).count == indices.count)
        s.rollBack(first)
        #expect(s == before)
    }
}
