import Testing
@testable import SyncSim

/// `learn` through a kept answer (`CPLearnRefs`: only the entries that differ from the list's
/// last answer, or whose entity's known copy or version changed since, are read) leaves `known`,
/// its versions and the redraw log exactly as the entry-by-entry form; and it still passes
/// over entries, so a change that silently stopped the shortcut fails here too.
@Suite("ConflictPrompt learn refs")
struct ConflictPromptLearnRefsTests {
    /// For every list answer the client receives, on two copies of its state before it handles
    /// it: each snapshot learnt with its list's group, as `receive` does, against the
    /// entry-by-entry form.
    enum RefCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            if case .received(.results(let ids, let snaps, _)) = input, ids.count == snaps.count {
                var fast = inner, slow = inner
                for (s, snap) in zip(ids, snaps) {
                    guard let i = inner.viewIndex(of: s), snap.versions.count == snap.result.entries.count else { continue }
                    let passed = fast.learnRefs.passed
                    fast.learn(snap, group: inner.views[i].group)
                    slow.learnEntryByEntry(snap)
                    log.checked(reused: fast.learnRefs.passed > passed)
                    if fast.known != slow.known || fast.knownVersion != slow.knownVersion || fast.knownLog != slow.knownLog
                        || fast.knownEpoch != slow.knownEpoch || fast.knownLogEpoch != slow.knownLogEpoch {
                        log.diverged("\(inner.id) at \(now) after \(input): learn through a kept answer differs from the entry-by-entry form")
                    }
                }
            }
            inner.handle(input, now: now, out: &out)
        }
    }

    @Test func learningThroughAKeptAnswerIsTheEntryByEntryForm() throws {
        let log = DivergenceLog()
        let changed = try ConflictPromptSharedListTests.run(RefCheck.self, log)
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 200, "few answers learnt through a kept one: \(log.reused) of \(log.checks)")
    }

    /// The walk itself on answers built by hand: an answer patched from the kept one (bit for
    /// bit, as the server does) names exactly the entries whose record or version changed and
    /// the new ones; one not ascending is refused.
    @Test func theWalkNamesTheEntriesThatDiffer() {
        var store = EntityStore()
        let schema = Schema.default
        let ns = NamespaceID.todos
        let field = FieldID.title
        for k in 0..<200 where k % 3 != 0 {
            _ = store.apply(.create(EntityID(UInt32(k)), ns, [FieldAssignment(field, .string("v\(k)"))]), schema: schema, mode: .update)
        }
        let query = Query(ns)
        let first = query.evaluate(store)
        let firstVersions = first.entries.map { UInt64($0.id.raw) }
        let kept = CPSnapshot(result: first, versions: firstVersions, asOf: 1)
        // Entity 100 rewritten, 101 created, 199 deleted, and entity 50's version moved.
        _ = store.apply(.update(EntityID(100), ns, [FieldAssignment(field, .string("w"))]), schema: schema, mode: .update)
        _ = store.apply(.create(EntityID(102), ns, [FieldAssignment(field, .string("n"))]), schema: schema, mode: .update)
        _ = store.apply(.delete(EntityID(199), ns), schema: schema, mode: .update)
        var next = first
        _ = query.patch(&next, touched: [EntityID(100), EntityID(102), EntityID(199)], in: store, shared: true)
        let nextVersions = next.entries.map { $0.id == EntityID(50) ? 7 : UInt64($0.id.raw) }
        var candidates: [Int] = []
        var passed = 0
        #expect(CPLearnRefs.walk(CPSnapshot(result: next, versions: nextVersions, asOf: 2), kept, into: &candidates, passed: &passed))
        #expect(candidates.map { next.entries[$0].id } == [EntityID(50), EntityID(100), EntityID(102)])
        #expect(passed == next.entries.count - 3)
        #expect(passed > 100, "blocks of equal bits were passed")
        // The kept answer itself: nothing to check.
        candidates.removeAll()
        #expect(CPLearnRefs.walk(kept, kept, into: &candidates, passed: &passed) && candidates.isEmpty)
        // Not ascending: refused.
        var shuffled = next.entries
        shuffled.swapAt(3, 4)
        let bad = CPSnapshot(result: QueryResult(roots: next.roots, entries: shuffled), versions: nextVersions, asOf: 3)
        #expect(!CPLearnRefs.walk(bad, kept, into: &candidates, passed: &passed))
        #expect(!CPLearnRefs.ascending(shuffled) && CPLearnRefs.ascending(next.entries))
    }
}
