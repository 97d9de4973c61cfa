import Testing
@testable import SyncSim

/// The cached overlay (`SharedDiffOverlay`) gives exactly the views a rebuild from scratch gives.
@Suite("SharedDiff overlay")
struct SharedDiffOverlayTests {
    /// `sharedDiff`, whose client checks after every input that each collection's view through
    /// its cached overlay equals the view rebuilt from the server answer.
    enum OverlayMatchesRebuild: SharedDiffCheck {
        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            inner.handle(input, now: now, out: &out)
            for c in inner.collections where !c.key.isOnce && c.server != nil {
                var overlay = c.overlay
                let reusable = overlay?.isPrefix(base: c.server!, pending: inner.pending, processedTxID: c.processedTxID,
                                                 collections: inner.collections, shownVersion: inner.shownVersion) == true
                let cached = SharedDiffClient.view(of: c, overlay: &overlay, shownVersion: inner.shownVersion,
                                                   unlessEqualTo: nil, collections: inner.collections,
                                                   pending: inner.pending, unsaved: inner.unsaved, schema: inner.schema)
                let scratch = inner.view(of: c)
                log.checked(reused: reusable)
                if cached != scratch { log.diverged("\(inner.id) \(c.key) at \(now) after \(input): \(String(describing: cached?.summary)) ≠ \(scratch.summary)") }
            }
        }
    }

    @Test func generatedRunsSeeTheSameViewsAsARebuild() throws {
        let log = DivergenceLog()
        var hashes: [String] = []
        for seed in UInt64(0)..<8 {
            let schedule = WorkloadGenerator(.init(actions: 120)).generate(seed: seed)
            let checked = try Simulator.run(CheckedSharedDiff<OverlayMatchesRebuild>(log: log), schedule, seed: seed)
            let plain = try Simulator.run(SharedDiffStrategy(), schedule, seed: seed)
            if checked.traceHash != plain.traceHash { hashes.append("seed \(seed)") }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(hashes.isEmpty, "the checking wrapper changed the run: \(hashes)")
        // Not vacuous: views were compared, and many of them through a reused overlay.
        #expect(log.checks > 1_000)
        #expect(log.reused > 100)
    }

    // MARK: - When the cache may not be reused

    let todo = EntityID(1), other = EntityID(2)

    func result(_ title: String) -> QueryResult {
        var store = EntityStore()
        _ = store.apply(.create(todo, .todos, [FieldAssignment(.title, .string(title))]), schema: .default)
        return Query(.todos).evaluate(store)
    }

    func save(_ id: UInt64, _ title: String, entity: EntityID? = nil) -> SharedDiffClient.SaveMutation {
        SharedDiffClient.SaveMutation(eventID: id, order: Int(id), writes: [],
                                      steps: [InstantStep(.update(entity ?? todo, .todos, [FieldAssignment(.title, .string(title))]), upsert: true)],
                                      txID: nil)
    }

    func collection(_ s: UInt32, shown: QueryResult?) -> SharedDiffClient.Collection {
        var c = SharedDiffClient.Collection(key: .subscription(SubscriptionID(s)), query: Query(.todos))
        c.server = result("server")
        c.shown = shown
        return c
    }

    func overlay(_ saves: [SharedDiffClient.SaveMutation], collections: [SharedDiffClient.Collection]) -> SharedDiffOverlay? {
        var o: SharedDiffOverlay?
        _ = SharedDiffClient.view(of: collections[0], overlay: &o, unlessEqualTo: nil, collections: collections,
                                  pending: saves, unsaved: [], schema: .default)
        return o
    }

    @Test func aPrefixOfTheVisibleSavesIsReused() {
        let cols = [collection(1, shown: nil)]
        let o = overlay([save(1, "a")], collections: cols)
        #expect(o?.isPrefix(base: result("server"), pending: [save(1, "a"), save(2, "b")], processedTxID: 0, collections: cols) == true)
        // A confirmed save the answer already reflects is not laid over, so it is no prefix.
        var seen = save(1, "a")
        seen.txID = 5
        #expect(o?.isPrefix(base: result("server"), pending: [seen, save(2, "b")], processedTxID: 5, collections: cols) == false)
    }

    @Test func anotherAnswerOrAnotherSaveIsRebuilt() {
        let cols = [collection(1, shown: nil)]
        let o = overlay([save(1, "a")], collections: cols)
        #expect(o?.isPrefix(base: result("newer"), pending: [save(1, "a")], processedTxID: 0, collections: cols) == false)
        #expect(o?.isPrefix(base: result("server"), pending: [save(1, "other")], processedTxID: 0, collections: cols) == false)
        #expect(o?.isPrefix(base: result("server"), pending: [], processedTxID: 0, collections: cols) == false)
    }

    /// A step on an entity the answer lacks takes it from the collection that shows it; when that
    /// collection shows something else later (beyond the fields the step assigns, which it
    /// overwrites anyway), the overlay built on the old record is stale.
    @Test func aChangedLookupIsRebuilt() {
        var shownOther = EntityStore()
        _ = shownOther.apply(.create(other, .todos, [FieldAssignment(.title, .string("seen"))]), schema: .default)
        let before = [collection(1, shown: nil), collection(2, shown: Query(.todos).evaluate(shownOther))]
        let o = overlay([save(1, "a", entity: other)], collections: before)
        #expect(o?.lookups.count == 1)
        #expect(o?.isPrefix(base: result("server"), pending: [save(1, "a", entity: other)], processedTxID: 0, collections: before) == true)
        // Only the title the save assigns changed: the overlay stands.
        var retitled = shownOther
        _ = retitled.apply(.update(other, .todos, [FieldAssignment(.title, .string("changed"))]), schema: .default)
        let overwritten = [before[0], collection(2, shown: Query(.todos).evaluate(retitled))]
        #expect(o?.isPrefix(base: result("server"), pending: [save(1, "a", entity: other)], processedTxID: 0, collections: overwritten) == true)
        _ = shownOther.apply(.update(other, .todos, [FieldAssignment(.done, .bool(true))]), schema: .default)
        let after = [before[0], collection(2, shown: Query(.todos).evaluate(shownOther))]
        #expect(o?.isPrefix(base: result("server"), pending: [save(1, "a", entity: other)], processedTxID: 0, collections: after) == false)
        // Checked at a version of what the collections show: trusted while it has not moved,
        // checked again (and found stale) once it has.
        var checked = o
        checked?.verifiedAt = 7
        #expect(checked?.isPrefix(base: result("server"), pending: [save(1, "a", entity: other)], processedTxID: 0, collections: before, shownVersion: 7) == true)
        #expect(checked?.isPrefix(base: result("server"), pending: [save(1, "a", entity: other)], processedTxID: 0, collections: after, shownVersion: 8) == false)
    }

    /// The overlay's own delete (links to the entity found in place) does what the store's does.
    @Test func anOverlayStepAppliesAsTheStoreDoes() {
        let author = EntityID(3), lone = EntityID(5)
        var store = EntityStore()
        for op: Op in [.create(author, .profiles, []), .create(lone, .profiles, []),
                       .create(EntityID(4), .posts, []), .create(EntityID(6), .posts, []), .create(EntityID(7), .posts, []),
                       .link(EntityID(4), .author, author), .link(EntityID(6), .author, author), .link(EntityID(7), .author, lone)] {
            #expect(store.apply(op, schema: .default) == nil)
        }
        let steps: [Op] = [.delete(author, .profiles), .delete(EntityID(40), .posts), .delete(EntityID(7), .posts),
                           .update(EntityID(8), .todos, [FieldAssignment(.title, .string("new"))])]
        for op in steps {
            var theirs = store, ours = store
            _ = theirs.apply(op, schema: .default, mode: .upsert)
            SharedDiffClient.applyStep(op, to: &ours, schema: .default)
            #expect(ours == theirs, "\(op)")
            #expect(ours.count == theirs.count)
        }
        var deleted = store
        SharedDiffClient.applyStep(.delete(author, .profiles), to: &deleted, schema: .default)
        #expect(deleted[EntityID(4)]?[.author] == nil && deleted[EntityID(7)]?[.author] == lone)
    }
}
