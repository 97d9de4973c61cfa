import Testing
@testable import SyncSim

/// The steps an overlay passes over (`SharedDiffOverlay.passesOver`) against the general path
/// they skip, and the save's union-find link closure against the breadth-first walk it replaced.
@Suite("SharedDiff skipped steps and link closure")
struct SharedDiffSkippedStepsTests {
    /// Every step of `SharedDiffStepTests.ops`, and a delete of every slot.
    static var ops: [Op] {
        var out = SharedDiffStepTests.ops
        for e in 0...8 { out.append(.delete(EntityID(UInt32(e)), .todos)) }
        return out
    }

    /// A collection showing every record of `SharedDiffStepTests.store` and one entity it lacks
    /// (todo#7), so the general path has something to look up.
    static var collections: [SharedDiffClient.Collection] {
        var c = SharedDiffClient.Collection(key: .subscription(SubscriptionID(1)), query: Query(.todos))
        var s = SharedDiffStepTests.store
        _ = s.apply(.create(EntityID(7), .todos, [FieldAssignment(.title, .string("z"))]), schema: .default)
        c.server = QueryResult(roots: [], entries: s.entities.map { QueryResult.Entry(id: $0.0, record: $0.1) })
        c.shown = c.server
        return [c]
    }

    /// A step passed over is one the general path (`fill`, then `applyStep`; `delete` for a
    /// delete) would neither look anything up for, nor write, nor note as changed.
    @Test func aStepPassedOverIsOneTheGeneralPathLeavesAlone() {
        let answer = QueryResult(roots: [], entries: SharedDiffStepTests.store.entities.map { QueryResult.Entry(id: $0.0, record: $0.1) })
        var passed = 0, kept = 0
        for op in Self.ops {
            let o = SharedDiffOverlay(base: answer)
            let over = SharedDiffOverlay.firstEffective([InstantStep(op, upsert: true)], from: 0, in: o.store, schema: .default) == 1
            var general = o
            var changed: [Int] = []
            if case .delete(let e, _) = op {
                general.delete(e, changed: &changed)
            } else {
                SharedDiffClient.fill(op, in: &general.store, lookups: &general.lookups, collections: Self.collections,
                                      schema: .default, changed: &changed)
                SharedDiffClient.applyStep(op, to: &general.store, schema: .default, changed: &changed)
            }
            let untouched = general.store == o.store && changed.isEmpty && general.lookups.isEmpty
            if over {
                passed += 1
                #expect(untouched, "\(op) was passed over but the general path acts on it")
            } else if !untouched {
                kept += 1
            }
        }
        // Not vacuous either way: equal updates, links in place and deletes of missing entities
        // are passed over; new values, missing entities and present deletes are not.
        #expect(passed > 50)
        #expect(kept > 50)
    }

    /// Several steps: `firstEffective` stops at the first one the general path acts on.
    @Test func firstEffectiveStopsAtTheFirstStepThatActs() {
        let store = SharedDiffStepTests.store
        let steps: [InstantStep] = [
            InstantStep(.update(EntityID(1), .todos, [FieldAssignment(.title, .string("a"))]), upsert: true),
            InstantStep(.link(EntityID(5), .author, EntityID(3)), upsert: false),
            InstantStep(.delete(EntityID(40), .todos), upsert: false),
            InstantStep(.update(EntityID(1), .todos, [FieldAssignment(.title, .string("new"))]), upsert: true),
            InstantStep(.unlink(EntityID(6), .author, EntityID(3)), upsert: false),
        ]
        #expect(SharedDiffOverlay.firstEffective(steps, from: 0, in: store, schema: .default) == 3)
        #expect(SharedDiffOverlay.firstEffective(steps, from: 4, in: store, schema: .default) == 5)
        #expect(SharedDiffOverlay.firstEffective([], from: 0, in: store, schema: .default) == 0)
    }

    /// The closure as it was computed before the union-find: an adjacency list per entry and a
    /// walk from every accepted entry.
    static func walked(_ view: QueryResult, schema: Schema, _ start: (EntityID, EntityRecord) -> Bool) -> [Bool] {
        let entries = view.entries
        let m = entries.count
        var slot = [Int32](repeating: -1, count: (entries.last.map { Int($0.id.raw) } ?? -1) + 1)
        for k in 0..<m { slot[Int(entries[k].id.raw)] = Int32(k) }
        var adjacent = [[Int32]](repeating: [], count: m)
        for k in 0..<m {
            let r = entries[k].record
            for l in schema.links(of: r.namespace) {
                r.forEachTarget(of: l) { t in
                    let i = Int(t.raw)
                    guard i < slot.count, slot[i] >= 0 else { return }
                    adjacent[k].append(slot[i])
                    adjacent[Int(slot[i])].append(Int32(k))
                }
            }
        }
        var reached = [Bool](repeating: false, count: m)
        var frontier: [Int32] = []
        for k in 0..<m where start(entries[k].id, entries[k].record) { reached[k] = true; frontier.append(Int32(k)) }
        while let k = frontier.popLast() {
            for j in adjacent[Int(k)] where !reached[Int(j)] { reached[Int(j)] = true; frontier.append(j) }
        }
        return reached
    }

    /// A client that checks, before every input, that each collection's link closure (from each
    /// namespace's roots, and from each single entry) is the walked one.
    enum ClosureMatchesWalk: SharedDiffCheck {
        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            for c in inner.collections where !c.key.isOnce {
                guard let own = c.shown else { continue }
                let view = inner.known(preferring: own)
                var starts: [(EntityID, EntityRecord) -> Bool] = inner.schema.namespaceIDs.map { ns in { _, r in r.namespace == ns } }
                if let first = own.entries.first { starts.append { id, _ in id == first.id } }
                for start in starts {
                    let fast = inner.linkClosure(of: view, start)
                    let slow = walked(view, schema: inner.schema, start)
                    log.checked(reused: fast.contains(true) && fast.contains(false))
                    if fast != slow { log.diverged("\(inner.id) \(c.key) at \(now): \(fast) ≠ \(slow)") }
                }
            }
            inner.handle(input, now: now, out: &out)
        }
    }

    @Test func theLinkClosureIsTheWalkedOne() throws {
        let log = DivergenceLog()
        for seed in UInt64(0)..<8 {
            // The blog schema too: has-many links, and links two steps away.
            var config = WorkloadGenerator.Config(actions: 120, schema: seed >= 6 ? .blog : .default)
            if seed % 2 == 1 {
                for f in WorkloadFeature.allCases { f.turnOn(in: &config) }
                config.tenants = 3
            }
            let schedule = WorkloadGenerator(config).generate(seed: seed)
            _ = try Simulator.run(CheckedSharedDiff<ClosureMatchesWalk>(log: log), schedule, seed: seed)
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(log.checks > 1_000)
        #expect(log.reused > 50, "some closures must reach part of the view")
    }
}
