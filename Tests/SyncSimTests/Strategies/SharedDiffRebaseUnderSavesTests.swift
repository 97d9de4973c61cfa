import Testing
@testable import SyncSim

/// A new answer taken under the saves laid (`SharedDiffOverlay.rebaseUnderSaves`) leaves the
/// overlay a rebuild over the new answer would give, and is refused whenever a save could tell
/// the answers apart.
@Suite("SharedDiff rebase under saves")
struct SharedDiffRebaseUnderSavesTests {
    /// `SharedDiffIncrementalTests.ViewsMatchRebuild` (every view against a rebuild after every
    /// input), also counting the new answers taken under the saves laid.
    enum ViewsMatchRebuildCountingKept: SharedDiffCheck {
        static func kept(_ c: SharedDiffClient) -> Int { c.collections.reduce(0) { $0 + ($1.overlay?.keptUnderNewAnswer ?? 0) } }
        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            let before = kept(inner)
            SharedDiffIncrementalTests.ViewsMatchRebuild.check(&inner, input, now: now, out: &out, log: log)
            if kept(inner) > before { log.checked(reused: true) }
        }
    }

    @Test func generatedRunsSeeTheSameViewsAsARebuild() throws {
        let log = DivergenceLog()
        for seed in UInt64(0)..<10 {
            // bench's workload (swarm, no stress), the opt-in features and tenants, the blog.
            var config = WorkloadGenerator.Config(clients: 3, actions: 200, swarm: true, schema: seed >= 8 ? .blog : .default, stress: false)
            if seed % 3 == 1 {
                for f in WorkloadFeature.allCases { f.turnOn(in: &config) }
                config.tenants = 3
            }
            let schedule = WorkloadGenerator(config).generate(seed: seed)
            let checked = try Simulator.run(CheckedSharedDiff<ViewsMatchRebuildCountingKept>(log: log), schedule, seed: seed)
            let plain = try Simulator.run(SharedDiffStrategy(), schedule, seed: seed)
            #expect(checked.traceHash == plain.traceHash, "the checking wrapper changed seed \(seed)")
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        // Not vacuous: new answers were taken under saves.
        #expect(log.checks > 1_000)
        #expect(log.reused > 50)
    }

    // MARK: - When a new answer may be taken under the saves

    static let todo = EntityID(1), alice = EntityID(2), post = EntityID(3), bob = EntityID(4)

    /// todo#1 (title t), profile#2 alice, post#3 → alice, profile#4 bob.
    static func store(todoTitle: String = "t", postContent: String = "hi") -> EntityStore {
        var s = EntityStore()
        let ops: [Op] = [
            .create(todo, .todos, [FieldAssignment(.title, .string(todoTitle))]),
            .create(alice, .profiles, [FieldAssignment(.name, .string("alice"))]),
            .create(post, .posts, [FieldAssignment(.content, .string(postContent))]),
            .link(post, .author, alice),
            .create(bob, .profiles, [FieldAssignment(.name, .string("bob"))]),
        ]
        for op in ops { _ = s.apply(op, schema: .default) }
        return s
    }

    static func answer(_ s: EntityStore) -> QueryResult {
        QueryResult(roots: [], entries: s.entities.map { QueryResult.Entry(id: $0.0, record: $0.1) })
    }

    /// The overlay over `old` with `steps` laid, then given `new`: whether it was taken under
    /// the saves, and whether its store is then the one laying the steps over `new` gives.
    static func rebase(_ steps: [Op], from old: EntityStore, to new: EntityStore) -> (kept: Bool, exact: Bool) {
        var o = SharedDiffOverlay(base: answer(old))
        var touched: [EntityID] = []
        o.beginTouching()
        o.lay(steps.map { InstantStep($0, upsert: true) }, collections: [], schema: .default, touched: &touched)
        let kept = o.rebaseUnderSaves(on: answer(new), touched: &touched)
        var scratch = EntityStore(entriesOf: answer(new))
        for op in steps { SharedDiffClient.applyStep(op, to: &scratch, schema: .default) }
        return (kept, kept && o.store.entities.elementsEqual(scratch.entities, by: { $0.0 == $1.0 && $0.1 == $1.1 }))
    }

    @Test func anAnswerChangingOnlyWhatNoSaveNamesIsTaken() {
        let edited = Self.store(todoTitle: "u")
        let saves: [Op] = [.update(Self.alice, .profiles, [FieldAssignment(.name, .string("ann"))]), .link(Self.post, .author, Self.bob)]
        let r = Self.rebase(saves, from: Self.store(), to: edited)
        #expect(r.kept && r.exact)
    }

    @Test func anAnswerChangingANamedEntityIsRefused() {
        // The save names the todo (an update), or the post (a link's source) and bob (its target).
        #expect(!Self.rebase([.update(Self.todo, .todos, [])], from: Self.store(), to: Self.store(todoTitle: "u")).kept)
        #expect(!Self.rebase([.link(Self.post, .author, Self.bob)], from: Self.store(), to: Self.store(postContent: "x")).kept)
    }

    @Test func anAnswerChangingARecordLinkingToADeletedEntityIsRefused() {
        // Deleting alice rewrites the post that links to her, so a new post is not free...
        #expect(!Self.rebase([.delete(Self.alice, .profiles)], from: Self.store(), to: Self.store(postContent: "x")).kept)
        // ...while deleting bob, whom nothing links to, leaves it free.
        let r = Self.rebase([.delete(Self.bob, .profiles)], from: Self.store(), to: Self.store(postContent: "x"))
        #expect(r.kept && r.exact)
    }
}
