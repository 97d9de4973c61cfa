import Testing
@testable import SyncSim

/// The shortcuts an overlay takes when it lays a save, each against what it replaces:
/// `SharedDiffClient.changesNothing` against `EntityStore.apply`, a lookup's assigned fields
/// against laying the step over the record shown now, and a save's deletes
/// (`tracked(_:notIn:)`) against the tracked ids filtered by the collection.
@Suite("SharedDiff overlay steps")
struct SharedDiffStepTests {
    /// todo#1, todo#2, profile#3, profile#4, post#5 → profile#3, post#6 (no author).
    static var store: EntityStore {
        var s = EntityStore()
        let ops: [Op] = [
            .create(EntityID(1), .todos, [FieldAssignment(.title, .string("a")), FieldAssignment(.done, .bool(false))]),
            .create(EntityID(2), .todos, [FieldAssignment(.title, .string("b"))]),
            .create(EntityID(3), .profiles, [FieldAssignment(.name, .string("ann"))]),
            .create(EntityID(4), .profiles, []),
            .create(EntityID(5), .posts, [FieldAssignment(.content, .string("hi"))]),
            .create(EntityID(6), .posts, []),
            .link(EntityID(5), .author, EntityID(3)),
        ]
        for op in ops { _ = s.apply(op, schema: .default) }
        return s
    }

    /// Every kind of update, link and unlink a save or a write can carry: equal and different
    /// values, missing entities, wrong namespaces, invalid fields, unknown links.
    static var ops: [Op] {
        var out: [Op] = []
        for e in 0...7 {
            let id = EntityID(UInt32(e))
            for ns in [NamespaceID.todos, .profiles, .posts] {
                out.append(.update(id, ns, []))
                out.append(.update(id, ns, [FieldAssignment(.title, .string("a"))]))
                out.append(.update(id, ns, [FieldAssignment(.title, .string("a")), FieldAssignment(.done, .bool(false))]))
                out.append(.update(id, ns, [FieldAssignment(.title, .string("b")), FieldAssignment(.done, .bool(false))]))
                out.append(.update(id, ns, [FieldAssignment(.title, .int(1))]))
                out.append(.update(id, ns, [FieldAssignment(.name, .string("ann"))]))
                out.append(.update(id, ns, [FieldAssignment(.content, .string("hi"))]))
                out.append(.update(id, ns, [FieldAssignment(FieldID(99), .string("x"))]))
            }
            for t in 0...7 {
                for l in [LinkID.author, LinkID(9)] {
                    out.append(.link(id, l, EntityID(UInt32(t))))
                    out.append(.unlink(id, l, EntityID(UInt32(t))))
                }
            }
        }
        return out
    }

    @Test func aStepThatChangesNothingLeavesTheStoreAsApplyDoes() {
        var skipped = 0
        for schema in [Schema.default] {
            for op in Self.ops {
                let before = Self.store
                guard SharedDiffClient.changesNothing(op, in: before, schema: schema) else { continue }
                skipped += 1
                var after = before
                _ = after.apply(op, schema: schema, mode: .upsert)
                #expect(after == before, "\(op) changed the store")
                // The overlay's own step (which takes the shortcut) leaves it as well, noting nothing.
                var ours = before
                var changed: [Int] = []
                SharedDiffClient.applyStep(op, to: &ours, schema: schema, changed: &changed)
                #expect(ours == before && changed.isEmpty)
            }
        }
        // Not vacuous: equal updates, links already set, unlinks of links not there.
        #expect(skipped > 50)
    }

    /// Every step, shortcut or not, leaves the store as `apply` does.
    @Test func everyStepAppliesAsTheStoreDoes() {
        for op in Self.ops {
            var theirs = Self.store, ours = Self.store
            _ = theirs.apply(op, schema: .default, mode: .upsert)
            SharedDiffClient.applyStep(op, to: &ours, schema: .default)
            #expect(ours == theirs, "\(op)")
        }
    }

    /// An overlay's delete finds the records linking to the entity among its answer's referrers
    /// and the slots its saves changed; the store it leaves is the one a scan of every record
    /// leaves, whatever the saves before it linked or deleted.
    @Test func anOverlayDeleteLeavesTheStoreAScanLeaves() {
        let answer = QueryResult(roots: [], entries: Self.store.entities.map { QueryResult.Entry(id: $0.0, record: $0.1) })
        let p3 = EntityID(3), p4 = EntityID(4), post5 = EntityID(5), post6 = EntityID(6)
        let saves: [[Op]] = [
            [.delete(p3, .profiles)],
            [.link(post6, .author, p3), .delete(p3, .profiles)],
            [.link(post5, .author, p4), .link(post6, .author, p4), .delete(p4, .profiles), .delete(p3, .profiles)],
            [.delete(post5, .posts), .delete(p3, .profiles), .delete(EntityID(40), .todos)],
            [.update(EntityID(7), .posts, []), .link(EntityID(7), .author, p3), .delete(p3, .profiles)],
        ]
        for steps in saves {
            var o = SharedDiffOverlay(base: answer)
            var touched: [EntityID] = []
            o.beginTouching()
            // Laid in two saves, so the second finds the first's writes among the dirty slots.
            let half = steps.count / 2
            o.lay(Array(steps[..<half]).map { InstantStep($0, upsert: true) }, collections: [], schema: .default, touched: &touched)
            o.lay(Array(steps[half...]).map { InstantStep($0, upsert: true) }, collections: [], schema: .default, touched: &touched)
            var scanned = EntityStore(entriesOf: answer)
            for op in steps { SharedDiffClient.applyStep(op, to: &scanned, schema: .default) }
            #expect(o.store == scanned, "\(steps)")
            // Every slot that differs from the answer is listed as dirty and as touched.
            for i in 0..<10 {
                let id = EntityID(UInt32(i))
                if o.store[id] != answer.record(id) {
                    #expect(o.dirty.contains(i) && touched.contains(id), "\(steps) slot \(i)")
                }
            }
        }
    }

    func collections(showing record: EntityRecord?, id: EntityID) -> [SharedDiffClient.Collection] {
        var c = SharedDiffClient.Collection(key: .subscription(SubscriptionID(1)), query: Query(.todos))
        var s = EntityStore()
        s[id] = record
        c.server = Query(.todos).evaluate(s)
        c.shown = c.server
        return [c]
    }

    /// A lookup made for an update that applies stands while the record shown differs only in
    /// the fields the update assigns; a change elsewhere (another field, a link, the namespace,
    /// the entity gone) does not, and a lookup for any other step needs the same record.
    @Test func aLookupStandsWhileOnlyTheAssignedFieldsDiffer() {
        let id = EntityID(1)
        let was = Self.store[id]!
        let assign: [FieldAssignment] = [FieldAssignment(.title, .string("mine"))]
        let op = Op.update(id, .todos, assign)
        let lookup = SharedDiffClient.lookup(id, for: op, in: collections(showing: was, id: id), schema: .default)
        #expect(lookup.assigned == assign)
        var retitled = was
        retitled[.title] = .string("theirs")
        var redone = was
        redone[.done] = .bool(true)
        var relinked = was
        relinked[.author] = EntityID(3)
        for q: Query? in [Query(.todos), Query(.todos, include: .forward(.author)), nil] {
            #expect(SharedDiffOverlay.stands(lookup, for: q, in: collections(showing: retitled, id: id)))
            #expect(!SharedDiffOverlay.stands(lookup, for: q, in: collections(showing: redone, id: id)))
            #expect(!SharedDiffOverlay.stands(lookup, for: q, in: collections(showing: relinked, id: id)))
            #expect(!SharedDiffOverlay.stands(lookup, for: q, in: collections(showing: nil, id: id)))
        }
        // The same store either way: the update writes the only field that differs.
        var a = EntityStore(), b = EntityStore()
        a[id] = was
        b[id] = retitled
        SharedDiffClient.applyStep(op, to: &a, schema: .default)
        SharedDiffClient.applyStep(op, to: &b, schema: .default)
        #expect(a == b)
        // An update that does not apply (an invalid field, another namespace) and other steps
        // keep the exact test.
        for other: Op in [.update(id, .todos, [FieldAssignment(.title, .int(3))]), .update(id, .posts, assign), .unlink(id, .author, EntityID(3)),
                          .link(id, .author, EntityID(3)), .update(EntityID(2), .todos, assign)] {
            let l = SharedDiffClient.lookup(id, for: other, in: collections(showing: was, id: id), schema: .default)
            #expect(l.assigned == nil, "\(other)")
            #expect(!SharedDiffOverlay.stands(l, for: Query(.todos), in: collections(showing: retitled, id: id)))
        }
    }

    /// A client that checks, before every input, that each due save's deletes are the tracked
    /// ids its collection does not show, as the sorted gathering computes them.
    enum SaveDeletesMatchSorted: SharedDiffCheck {
        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            for c in inner.collections where !c.key.isOnce {
                guard let own = c.shown else { continue }
                for ns in [NamespaceID.todos, .profiles, .posts] {
                    let fast = inner.tracked(ns, notIn: own)
                    let slow = inner.tracked(ns).filter { !own.contains($0) }
                    log.checked(reused: !fast.isEmpty)
                    if fast != slow { log.diverged("\(inner.id) \(c.key) \(ns) at \(now): \(fast) ≠ \(slow)") }
                }
            }
            inner.handle(input, now: now, out: &out)
        }
    }

    @Test func aSaveDeletesTheTrackedIdsItsCollectionLacks() throws {
        let log = DivergenceLog()
        try CheckedSharedDiff<SaveDeletesMatchSorted>.runGenerated(seeds: 0..<6, actions: 120, log: log)
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(log.checks > 1_000)
        #expect(log.reused > 50, "some collections must lack tracked ids")
    }
}
