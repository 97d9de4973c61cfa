import Testing
@testable import SyncSim

/// The store primitives the fast paths use must mean what the slow ones did: a store built from
/// id slots equals one built by assignment; `set(_:_:undo:)` rolls back; `forEachTarget` visits
/// `targets(_:)`; an update assigning values a record already has leaves the store equal.
@Suite struct EntityStoreSlotsTests {
    let schema = Schema.default

    func record(_ ns: NamespaceID, _ a: [FieldAssignment]) -> EntityRecord {
        var r = EntityRecord(namespace: ns, schema: schema)
        for x in a { r[x.field] = x.value }
        return r
    }

    @Test func slotsEqualAssignment() {
        let t = record(.todos, [FieldAssignment(.title, .string("T"))])
        let p = record(.profiles, [FieldAssignment(.name, .string("Ann"))])
        var byAssignment = EntityStore()
        byAssignment[EntityID(3)] = t
        byAssignment[EntityID(1)] = p
        let bySlots = EntityStore(slots: [nil, p, nil, t, nil])
        #expect(bySlots == byAssignment)
        #expect(bySlots.count == 2)
        #expect(StableHasher.hash(bySlots) == StableHasher.hash(byAssignment))
        #expect(EntityStore(slots: []) == EntityStore())
    }

    @Test func setWithUndoRollsBack() {
        var s = EntityStore()
        s[EntityID(2)] = record(.todos, [FieldAssignment(.title, .string("a"))])
        let before = s
        var undo = EntityStore.UndoLog()
        s.set(EntityID(2), record(.todos, [FieldAssignment(.title, .string("b"))]), undo: &undo)
        s.set(EntityID(2), nil, undo: &undo)
        s.set(EntityID(9), record(.profiles, []), undo: &undo)
        #expect(s != before)
        s.rollBack(undo)
        #expect(s == before)
        #expect(s.records.count == before.records.count)
        #expect(s.count == 1)
    }

    @Test func forEachTargetVisitsTargets() {
        var store = EntityStore()
        _ = store.apply(.create(EntityID(1), .profiles, []), schema: schema)
        _ = store.apply(.create(EntityID(2), .posts, []), schema: schema)
        _ = store.apply(.link(EntityID(2), .author, EntityID(1)), schema: schema)
        for id in [EntityID(1), EntityID(2)] {
            let r = store[id]!
            for l in schema.links(of: r.namespace) {
                var seen: [EntityID] = []
                r.forEachTarget(of: l) { seen.append($0) }
                #expect(seen == r.targets(l))
            }
        }
        var seen: [EntityID] = []
        store[EntityID(2)]!.forEachTarget(of: .author) { seen.append($0) }
        #expect(seen == [EntityID(1)])
    }

    @Test func updateWithSameValuesChangesNothing() {
        var s = EntityStore()
        _ = s.apply(.create(EntityID(1), .todos, [FieldAssignment(.title, .string("T")), FieldAssignment(.done, .bool(false))]), schema: schema)
        let before = s
        #expect(s.apply(.update(EntityID(1), .todos, [FieldAssignment(.title, .string("T"))]), schema: schema) == nil)
        #expect(s == before)
        #expect(s.apply(.update(EntityID(1), .todos, [FieldAssignment(.title, .string("U")), FieldAssignment(.done, .bool(false))]), schema: schema) == nil)
        #expect(s[EntityID(1)]?[FieldID.title] == .string("U"))
        #expect(s[EntityID(1)]?[FieldID.done] == .bool(false))
    }
}
