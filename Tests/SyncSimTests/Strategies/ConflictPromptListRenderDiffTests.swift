import Testing
@testable import SyncSim

/// `CPListRender.diff` passing blocks of entries with the same bits in both answers (given the
/// old answer's roots, when it is known ascending) finds what the entry-by-entry walk finds:
/// the same changed ids in the same order, the same verdict on whether the answer is fixed,
/// nil for the same answers; and it passes entries on the answers of generated runs.
@Suite("ConflictPrompt list render diff")
struct ConflictPromptListRenderDiffTests {
    static func both(_ old: QueryResult, _ new: QueryResult, _ query: Query, oldFix: Bool?) -> (same: Bool, passed: Int) {
        var a: [EntityID] = [], b: [EntityID] = []
        var passed = 0, none = 0
        let blocks = CPListRender.diff(old.entries, new, query: query, oldFix: oldFix, oldRoots: old.roots, into: &a, passed: &passed)
        let each = CPListRender.diff(old.entries, new, query: query, oldFix: oldFix, into: &b, passed: &none)
        return (blocks == each && a == b && none == 0, passed)
    }

    /// For every list answer, before the client handles it: the answer against each list's kept
    /// one, both ways.
    enum DiffCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            if case .received(.results(let ids, let snaps, _)) = input, ids.count == snaps.count {
                for (s, snap) in zip(ids, snaps) {
                    guard let i = inner.viewIndex(of: s), let r = inner.views[i].render, r.ascending else { continue }
                    let (same, passed) = ConflictPromptListRenderDiffTests.both(r.base, snap.result, inner.views[i].query, oldFix: r.fix)
                    log.checked(reused: passed > 0)
                    if !same { log.diverged("\(inner.id) \(s) at \(now): the diff by blocks differs from the entry-by-entry walk") }
                }
            }
            inner.handle(input, now: now, out: &out)
        }
    }

    @Test func theDiffByBlocksIsTheEntryByEntryWalkOnGeneratedRuns() throws {
        let log = DivergenceLog()
        let changed = try ConflictPromptSharedListTests.run(DiffCheck.self, log)
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 100, "few answers were passed by blocks: \(log.reused) of \(log.checks)")
    }

    /// By hand: a fixed answer patched bit for bit (the server's way) keeps its verdict with
    /// most entries passed; roots that stop being the entries inside a block, and entries out
    /// of order inside a block, are found as the entry-by-entry walk finds them.
    @Test func blocksKeepTheVerdictsOfTheEntryByEntryWalk() {
        var store = EntityStore()
        let schema = Schema.default
        for k in 0..<150 where k % 3 != 0 {
            _ = store.apply(.create(EntityID(UInt32(k)), .todos, [FieldAssignment(.title, .string("v\(k)"))]), schema: schema, mode: .update)
        }
        let query = Query(.todos)
        let old = query.evaluate(store)
        _ = store.apply(.update(EntityID(70), .todos, [FieldAssignment(.title, .string("w"))]), schema: schema, mode: .update)
        _ = store.apply(.create(EntityID(72), .todos, [FieldAssignment(.title, .string("n"))]), schema: schema, mode: .update)
        var new = old
        _ = query.patch(&new, touched: [EntityID(70), EntityID(72)], in: store, shared: true)
        let patched = Self.both(old, new, query, oldFix: true)
        #expect(patched.same && patched.passed > 64)
        var out: [EntityID] = []
        var passed = 0
        #expect(CPListRender.diff(old.entries, new, query: query, oldFix: true, oldRoots: old.roots, into: &out, passed: &passed) == .some(true))
        #expect(out == [EntityID(70), EntityID(72)])
        // A root missing inside a block: not fixed, either way.
        var roots = new.roots
        roots[5] = roots[4]
        let notFixed = QueryResult(roots: roots, entries: new.entries)
        #expect(Self.both(old, notFixed, query, oldFix: true).same)
        // The same with the old answer not fixed, and not known.
        #expect(Self.both(old, new, query, oldFix: false).same && Self.both(old, new, query, oldFix: nil).same)
        // Entries out of order after the first block: nil, either way.
        var shuffled = new.entries
        shuffled.swapAt(40, 41)
        let disordered = QueryResult(roots: new.roots, entries: shuffled)
        #expect(Self.both(old, disordered, query, oldFix: true).same)
        var none: [EntityID] = []
        #expect(CPListRender.diff(old.entries, disordered, query: query, oldFix: true, oldRoots: old.roots, into: &none, passed: &passed) == nil)
    }
}
