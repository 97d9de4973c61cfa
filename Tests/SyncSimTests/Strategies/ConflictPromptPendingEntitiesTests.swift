import Testing
@testable import SyncSim

/// The client keeps its pending entities as rows come and go (`CPPendingEntities`) instead of
/// deriving them from the queue. Through a drawn sequence of rows joining at the tail and
/// leaving from the head or the middle (rows naming one entity, several, or one twice), the kept
/// list must equal `ConflictPromptClient.pendingEntities(of:)` of the queue after every change.
/// (`ConflictPromptKeptStateTests` checks the same after every input of generated runs.)
@Suite("ConflictPrompt pending entities")
struct ConflictPromptPendingEntitiesTests {
    static func row(_ n: Int, _ entities: [UInt32]) -> ConflictPromptClient.Entry {
        let ops: [Op] = entities.map { .update(EntityID($0), .todos, [FieldAssignment(.title, .string("t\(n)"))]) }
        return ConflictPromptClient.Entry(writes: [WriteID(UInt32(n))], ops: ops, expect: entities.map { CPExpectation(EntityID($0), 1) })
    }

    @Test func keptEntitiesMatchTheQueueAfterEveryChange() {
        var random = SimRandom(seed: 12)
        var queue: [ConflictPromptClient.Entry] = []
        var kept = CPPendingEntities()
        var removals = 0
        for n in 0..<2_000 {
            let leave = !queue.isEmpty && random.index(5) < 2
            if leave {
                let i = random.index(3) == 0 ? random.index(queue.count) : 0
                kept.remove(queue[i])
                queue.remove(at: i)
                removals += 1
            } else {
                var entities: [UInt32] = []
                for _ in 0...random.index(3) { entities.append(UInt32(random.index(150))) }
                // Sometimes one entity twice (counted twice, freed only when both go).
                if random.index(10) == 0 { entities.append(entities[0]) }
                let r = Self.row(n, entities)
                queue.append(r)
                kept.add(r)
            }
            #expect(kept.list == ConflictPromptClient.pendingEntities(of: queue), "after change \(n)")
            if kept.list != ConflictPromptClient.pendingEntities(of: queue) { return }
        }
        #expect(removals > 500)
        // Built from a queue at once (a relaunch) it is the same.
        #expect(CPPendingEntities(queue).list == kept.list)
    }

    /// The in-place comparisons that replaced the optionals' `==` (which copied both records
    /// into a tuple) say what `==` says, for records in one storage, equal in another, unequal,
    /// and absent.
    @Test func inPlaceComparisonsAgreeWithEquality() {
        let schema = Schema.default
        var a = EntityRecord(namespace: .todos, schema: schema)
        a[.title] = .string("x")
        var equal = EntityRecord(namespace: .todos, schema: schema)
        equal[.title] = .string("x")
        var other = a
        other[.title] = .string("y")
        let records: [EntityRecord?] = [nil, a, a, equal, other]
        for x in records {
            for y in records {
                #expect(CPListRender.sameRecord(x, y) == (x == y))
            }
        }
        typealias Hold = ConflictPromptClient.Hold
        let lists: [[Hold]] = [[], [Hold(entity: EntityID(1), record: a)], [Hold(entity: EntityID(1), record: equal)],
                               [Hold(entity: EntityID(1), record: other)], [Hold(entity: EntityID(2), record: a)],
                               [Hold(entity: EntityID(1), record: nil)], [Hold(entity: EntityID(1), record: a), Hold(entity: EntityID(2), record: nil)]]
        for x in lists {
            for y in lists {
                #expect(CPListRender.sameHolds(x, y) == (x == y))
            }
        }
        // `heldAcross`: the record before when it differs between two answers, else nil.
        func result(_ entries: [(UInt32, EntityRecord)]) -> QueryResult {
            QueryResult(roots: entries.map { EntityID($0.0) }, entries: entries.map { QueryResult.Entry(id: EntityID($0.0), record: $0.1) })
        }
        let old = result([(1, a), (3, a), (5, a)])
        let new = result([(1, equal), (3, other), (4, a)])
        for e in (0..<7).map({ EntityID(UInt32($0)) }) {
            let before = old.record(e)
            let expected: Hold? = before != new.record(e) ? Hold(entity: e, record: before) : nil
            #expect(ConflictPromptClient.heldAcross(e, from: old, to: new) == expected, "entity \(e)")
        }
    }

    /// An answer whose changed slots no overlay step reaches replays nothing and skips the passes
    /// over every step (`CPListRender.reachesNone`). What it draws is checked against the rebuild
    /// by `ConflictPromptRenderTests`; here, that the shortcut is still taken on generated runs
    /// (a change that silently stopped it would leave every result right, only slower).
    enum SkippedReplayCheck: ConflictPromptCheck {
        static func count(_ c: ConflictPromptClient) -> Int { c.views.reduce(0) { $0 + ($1.render?.replaysSkipped ?? 0) } }
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            let before = count(inner)
            inner.handle(input, now: now, out: &out)
            log.checked(reused: count(inner) > before)
        }
    }

    @Test func answersThatReachNoStepSkipTheReplay() throws {
        let log = DivergenceLog()
        let changed = try ConflictPromptSharedListTests.run(SkippedReplayCheck.self, log)
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 20, "few inputs skipped a replay: \(log.reused) of \(log.checks)")
    }
}
