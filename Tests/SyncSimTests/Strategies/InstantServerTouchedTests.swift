import Testing
@testable import SyncSim

/// The instant server's list of touched entities (`InstantServer.commit`), which leaves out the
/// steps that write nothing, against what it replaces: the undo log's list of every entity a
/// step named, and the subscriptions' results evaluated from scratch.
@Suite("Instant server touched entities")
struct InstantServerTouchedTests {
    /// A step judged to write nothing leaves the store as it is, in either mode, whether or not
    /// `apply` refuses it; one judged to do nothing is also accepted (`commit` does not apply
    /// it); and every answer occurs (the test is not vacuous).
    @Test func aStepThatWritesNothingLeavesTheStoreAlone() {
        var idle = 0, skipped = 0, writing = 0
        var ops = SharedDiffStepTests.ops
        for e in 0...8 { ops.append(.delete(EntityID(UInt32(e)), .todos)) }
        for op in ops {
            let store = SharedDiffStepTests.store
            let effect = InstantServer.effect(of: op, in: store, schema: .default)
            for mode in [EntityStore.UpdateMode.upsert, .update] {
                var after = store
                let refused = after.apply(op, schema: .default, mode: mode) != nil
                if effect != .mayWrite {
                    #expect(after == store, "\(op) was judged to write nothing but changed the store")
                } else if after != store {
                    writing += 1
                }
                if effect == .doesNothing { #expect(!refused, "\(op) was judged to do nothing but is refused") }
            }
            if effect != .mayWrite { idle += 1 }
            if effect == .doesNothing { skipped += 1 }
        }
        #expect(idle > 30)
        #expect(skipped >= 8)
        #expect(writing > 30)
    }

    /// Random transactions over a small store: each committed one lists (ascending, once) every
    /// entity whose record changed, each once, and only entities the undo log's list has; a refused one
    /// leaves the store as it was.
    @Test func touchedHoldsEveryChangedEntity() {
        var random = SimRandom(seed: 7)
        var s = InstantServer(clients: 1)
        let ops = SharedDiffStepTests.ops + (0...8).map { Op.delete(EntityID(UInt32($0)), .todos) }
            + (0...8).map { Op.create(EntityID(UInt32($0)), .todos, [FieldAssignment(.title, .string("a"))]) }
            + (0...8).map { Op.create(EntityID(UInt32($0)), .profiles, [FieldAssignment(.name, .string("ann"))]) }
            + (0...8).map { Op.create(EntityID(UInt32($0)), .posts, [FieldAssignment(.content, .string("hi"))]) }
        var committed = 0
        for _ in 0..<3_000 {
            let n = 1 + random.int(in: 0...4)
            let steps = (0..<n).map { _ in InstantStep(ops[random.int(in: 0...(ops.count - 1))], upsert: random.int(in: 0...1) == 0) }
            let before = s.data
            // What the undo log lists for the same steps over the same store.
            var replay = before
            var undo = EntityStore.UndoLog()
            var refused = false
            for step in steps where replay.apply(step.op, schema: .default, mode: step.upsert ? .upsert : .update, undo: &undo) != nil {
                refused = true
                break
            }
            var changed = NamespaceSet()
            var touched: [EntityID] = []
            let e = s.commit(steps, changed: &changed, touched: &touched)
            #expect((e != nil) == refused)
            if e != nil {
                #expect(s.data == before)
                continue
            }
            committed += 1
            #expect(s.data == replay)
            let logged = Set(replay.touched(by: undo))
            #expect(Set(touched).count == touched.count)
            if !steps.contains(where: { $0.op.isDelete }) { #expect(touched == touched.sorted()) }
            #expect(Set(touched).isSubset(of: logged))
            let slots = max(before.records.count, s.data.records.count)
            for i in 0..<slots {
                let id = EntityID(UInt32(i))
                if before[id] != s.data[id] {
                    #expect(touched.contains(id), "entity \(i) changed but is not listed as touched")
                    #expect(changed.contains(s.data[id]?.namespace ?? before[id]!.namespace))
                }
            }
        }
        #expect(committed > 100)
        #expect(s.idleSteps > 500)
    }

    /// A transaction that re-sends what the server holds (a sharedDiff save of an unchanged
    /// collection) touches nothing and refreshes nobody; the subscription's result stays the
    /// one evaluated from scratch.
    @Test func aResentSaveTouchesNothing() {
        var s = InstantServer(clients: 1)
        let a = ClientID(0)
        _ = s.step(.clientConnected(a))
        _ = s.step(.received(from: a, .initialize))
        _ = s.step(.received(from: a, .addQuery(.subscription(SubscriptionID(1)), Query(.todos))))
        let steps = [
            InstantStep(.update(EntityID(1), .todos, [FieldAssignment(.title, .string("a"))]), upsert: true),
            InstantStep(.update(EntityID(2), .todos, [FieldAssignment(.title, .string("b"))]), upsert: true),
        ]
        let first = s.step(.received(from: a, .transact(eventID: 1, writes: [], steps: steps)))
        #expect(first.contains { if case .send(_, .refreshOk) = $0 { return true } else { return false } })
        let idle = s.idleSteps
        var changed = NamespaceSet()
        var touched: [EntityID] = [EntityID(9)]
        #expect(s.commit(steps, changed: &changed, touched: &touched) == nil)
        #expect(touched.isEmpty && changed == NamespaceSet())
        #expect(s.idleSteps == idle + 2)
        let again = s.step(.received(from: a, .transact(eventID: 2, writes: [], steps: steps)))
        #expect(!again.contains { if case .send(_, .refreshOk) = $0 { return true } else { return false } })
        #expect(s.sessions[0]![0].last == Query(.todos).evaluate(s.data))
    }
}
