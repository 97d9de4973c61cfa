import Testing
@testable import SyncSim

/// Overlays that leave out the steps of a save their view cannot read (`SharedDiffNamespaceClaims`)
/// give exactly the views a rebuild from every step gives.
@Suite("SharedDiff overlay scope")
struct SharedDiffScopeTests {
    /// `sharedDiff`, whose client checks after every input that each collection's view equals the
    /// view rebuilt from the server answer with every step: through the overlay `refreshViews`
    /// keeps (laid with the client's claims), and through a fresh overlay laid with them.
    enum ScopedViewsMatchRebuild: SharedDiffCheck {
        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            inner.handle(input, now: now, out: &out)
            for c in inner.collections where !c.key.isOnce && c.server != nil {
                let scratch = inner.view(of: c)
                var fresh: SharedDiffOverlay?
                let scoped = SharedDiffClient.view(of: c, overlay: &fresh, unlessEqualTo: nil, collections: inner.collections,
                                                   pending: inner.pending, unsaved: inner.unsaved, schema: inner.schema,
                                                   claims: inner.claims)
                // Not vacuous: count the views where a visible save had a step left out or reduced.
                var leftOut = false
                if let scope = inner.claims.scope(reading: OverlayStepFilter.namespaces(of: c.query, schema: inner.schema)) {
                    for m in inner.pending where SharedDiffClient.isVisible(m, above: c.processedTxID) {
                        if m.steps.contains(where: { scope.reach($0.op) != .whole }) { leftOut = true; break }
                    }
                }
                log.checked(reused: leftOut)
                if scoped != scratch {
                    log.diverged("fresh \(inner.id) \(c.key) at \(now) after \(input): \(String(describing: scoped?.summary)) ≠ \(scratch.summary)")
                }
                // The overlay `refreshViews` kept, laid with the claims save after save, evaluated in full.
                var kept = c.overlay
                let laid = SharedDiffClient.view(of: c, overlay: &kept, shownVersion: inner.shownVersion, changes: inner.seenChanges,
                                                 unlessEqualTo: nil, collections: inner.collections, pending: inner.pending,
                                                 unsaved: inner.unsaved, schema: inner.schema, claims: inner.claims)
                if laid != scratch {
                    log.diverged("kept \(inner.id) \(c.key) at \(now) after \(input): \(String(describing: laid?.summary)) ≠ \(scratch.summary)")
                }
            }
        }
    }

    @Test func generatedRunsSeeTheSameViewsAsARebuild() throws {
        let log = DivergenceLog()
        var hashes: [String] = []
        for seed in UInt64(0)..<10 {
            var config = WorkloadGenerator.Config(actions: 150)
            switch seed % 3 {
            case 1:
                // Include trees, limits, bulk creates, user changes.
                for f in WorkloadFeature.allCases { f.turnOn(in: &config) }
                config.tenants = 3
            case 2:
                // Bench's workload: three clients, swarm on, the stress profile off.
                config = WorkloadGenerator.Config(clients: 3, actions: 300, swarm: true, stress: false)
            default:
                break
            }
            let schedule = WorkloadGenerator(config).generate(seed: seed)
            let checked = try Simulator.run(CheckedSharedDiff<ScopedViewsMatchRebuild>(log: log), schedule, seed: seed)
            let plain = try Simulator.run(SharedDiffStrategy(), schedule, seed: seed)
            if checked.traceHash != plain.traceHash { hashes.append("seed \(seed)") }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(hashes.isEmpty, "the checking wrapper changed the run: \(hashes)")
        #expect(log.checks > 1_000)
        #expect(log.reused > 100)
    }

    // MARK: - By hand

    let profile = EntityID(3), post = EntityID(4), todo = EntityID(5)

    func collection(_ s: UInt32, _ q: Query, server: QueryResult, shown: QueryResult?) -> SharedDiffClient.Collection {
        var c = SharedDiffClient.Collection(key: .subscription(SubscriptionID(s)), query: q)
        c.server = server
        c.shown = shown
        return c
    }

    func save(_ steps: [Op]) -> SharedDiffClient.SaveMutation {
        SharedDiffClient.SaveMutation(eventID: 1, order: 1, writes: [], steps: steps.map { InstantStep($0, upsert: true) }, txID: nil)
    }

    /// A post's save laid over a profiles view whose answer lacks the post's author: the author
    /// comes back from the collection that still shows it (the full step's lookup), with or
    /// without the scope, while the post's own steps and a todo's are left out.
    @Test func aLinkTargetIsStillLookedUpAndTheRestLeftOut() {
        var shownStore = EntityStore()
        for op: Op in [.create(profile, .profiles, [FieldAssignment(.name, .string("ann"))]),
                       .create(post, .posts, [FieldAssignment(.content, .string("hi"))]),
                       .link(post, .author, profile),
                       .create(todo, .todos, [FieldAssignment(.title, .string("t"))])] {
            #expect(shownStore.apply(op, schema: .default) == nil)
        }
        let postsWithAuthor = Query(.posts, include: .forward(.author))
        let cols = [collection(1, Query(.profiles), server: Query(.profiles).evaluate(EntityStore()), shown: nil),
                    collection(2, postsWithAuthor, server: postsWithAuthor.evaluate(shownStore), shown: postsWithAuthor.evaluate(shownStore)),
                    collection(3, Query(.todos), server: Query(.todos).evaluate(shownStore), shown: Query(.todos).evaluate(shownStore))]
        var claims = SharedDiffNamespaceClaims()
        for c in cols { #expect(claims.claim(c.server!) == false) }
        let pending = [save([.update(post, .posts, [FieldAssignment(.content, .string("edited"))]), .link(post, .author, profile),
                             .update(todo, .todos, [FieldAssignment(.title, .string("t2"))])])]
        var whole: SharedDiffOverlay?, scoped: SharedDiffOverlay?
        let a = SharedDiffClient.view(of: cols[0], overlay: &whole, unlessEqualTo: nil, collections: cols, pending: pending,
                                      unsaved: [], schema: .default)
        let b = SharedDiffClient.view(of: cols[0], overlay: &scoped, unlessEqualTo: nil, collections: cols, pending: pending,
                                      unsaved: [], schema: .default, claims: claims)
        #expect(a == b)
        #expect(b?.contains(profile) == true)
        // The full laying looked up the post, the author and the todo; the scoped one the author only.
        #expect(whole?.lookups.map(\.id) == [post, profile, todo])
        #expect(scoped?.lookups.map(\.id) == [profile])
    }

    /// An id named with a second namespace mixes the claims for good: nothing is left out, and the
    /// client drops the overlays laid so far.
    @Test func aSecondNamespaceMixesTheClaims() {
        var claims = SharedDiffNamespaceClaims()
        #expect(claims.claim(todo, .todos) == false)
        #expect(claims.claim(todo, .todos) == false)
        #expect(claims.scope(reading: Query(.profiles).readNamespaces(in: .default)) != nil)
        #expect(claims.claim(.update(todo, .profiles, [])) == true)
        #expect(claims.mixed)
        // Told once.
        #expect(claims.claim(profile, .posts) == false && claims.claim(profile, .profiles) == false)
        #expect(claims.scope(reading: Query(.profiles).readNamespaces(in: .default)) == nil)
        // Links name no namespace.
        var fresh = SharedDiffNamespaceClaims()
        #expect(fresh.claim(.link(post, .author, profile)) == false && fresh.namespaces.isEmpty)
    }

    /// What each kind of step reaches of a profiles view (which reads profiles only).
    @Test func theReachOfEachStep() {
        var claims = SharedDiffNamespaceClaims()
        _ = claims.claim(profile, .profiles)
        _ = claims.claim(post, .posts)
        _ = claims.claim(todo, .todos)
        let scope = claims.scope(reading: OverlayStepFilter.namespaces(of: Query(.profiles), schema: .default))!
        let unnamed = EntityID(9)
        let cases: [(Op, SharedDiffNamespaceClaims.Scope.Reach)] = [
            (.update(todo, .todos, []), .nothing),
            (.create(profile, .profiles, []), .whole),
            (.delete(todo, .todos), .whole),
            (.link(post, .author, profile), .linkTarget),
            (.link(post, .author, todo), .nothing),
            (.link(post, .author, unnamed), .linkTarget),
            (.link(unnamed, .author, todo), .whole),
            (.unlink(post, .author, profile), .nothing),
            (.unlink(profile, .author, post), .whole),
        ]
        for (op, reach) in cases { #expect(scope.reach(op) == reach, "\(op)") }
    }
}
