import Testing
@testable import SyncSim

/// A save's update steps taken from the collection's `SharedDiffStepCache` are the steps built
/// from scratch, whatever the cache holds from earlier saves.
@Suite("SharedDiff step cache")
struct SharedDiffStepCacheTests {
    /// A client that, before every input that runs a save, computes the save of that collection
    /// with a copy of its step cache and with an empty one, and compares them.
    enum CachedSaveMatchesBuilt: SharedDiffCheck {
        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            if case .timerFired(let t) = input, t.raw & SharedDiffClient.saveTimerBit != 0 {
                let s = SubscriptionID(t.raw & ~SharedDiffClient.saveTimerBit)
                if let c = inner.collections.first(where: { $0.key == .subscription(s) }), !c.saveDue.isEmpty {
                    var cache = c.stepCache
                    let held = cache.entries.contains { $0 != nil }
                    let cached = inner.saveSteps(for: c, cache: &cache)
                    var empty = SharedDiffStepCache()
                    let built = inner.saveSteps(for: c, cache: &empty)
                    log.checked(reused: held && !cached.steps.isEmpty)
                    if cached.steps != built.steps || cached.writes != built.writes {
                        log.diverged("\(inner.id) \(c.key) at \(now): \(cached.steps) ≠ \(built.steps)")
                    }
                }
            }
            inner.handle(input, now: now, out: &out)
        }
    }

    @Test func generatedRunsSaveWhatABuildSaves() throws {
        let log = DivergenceLog()
        for seed in UInt64(0)..<8 {
            // The blog schema too (has-many links), the opt-in features, tenants and the
            // known-entity traversal on some seeds.
            var config = WorkloadGenerator.Config(actions: 150, schema: seed >= 6 ? .blog : .default)
            if seed % 2 == 1 {
                for f in WorkloadFeature.allCases { f.turnOn(in: &config) }
                config.tenants = 3
            }
            var schedule = WorkloadGenerator(config).generate(seed: seed)
            if seed % 4 == 3 { schedule.options.strategy.sharedDiffTraverseKnown = true }
            let checked = try Simulator.run(CheckedSharedDiff<CachedSaveMatchesBuilt>(log: log), schedule, seed: seed)
            let plain = try Simulator.run(SharedDiffStrategy(), schedule, seed: seed)
            #expect(checked.traceHash == plain.traceHash, "the checking wrapper changed seed \(seed)")
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        // Not vacuous: saves were compared, most of them over a cache earlier saves filled.
        #expect(log.checks > 200)
        #expect(log.reused > 100)
    }

    /// A hit needs the same namespace and equal values, shared storage or not; any other
    /// record builds the step again.
    @Test func aStepIsReusedOnlyForTheSameValues() {
        let schema = Schema.default
        let e = EntityID(4)
        var s = EntityStore()
        _ = s.apply(.create(e, .todos, [FieldAssignment(.title, .string("a")), FieldAssignment(.done, .bool(false))]), schema: schema)
        let r = s[e]!
        var cache = SharedDiffStepCache()
        let first = cache.updateStep(e, r, schema: schema)
        #expect(first == SharedDiffStepCache.build(e, r, schema: schema))
        // Equal values in other storage: the cached step.
        var copy = r
        copy.values = Array(r.values)
        copy.values.append(nil)
        copy.values.removeLast()
        #expect(cache.updateStep(e, copy, schema: schema) == first)
        // Another value: built again, and cached from then on.
        var edited = r
        edited[.title] = .string("b")
        let second = cache.updateStep(e, edited, schema: schema)
        #expect(second != first && second == SharedDiffStepCache.build(e, edited, schema: schema))
        // Another namespace with the same value slots: built again.
        var moved = edited
        moved.namespace = .profiles
        #expect(cache.updateStep(e, moved, schema: schema) == SharedDiffStepCache.build(e, moved, schema: schema))
    }

    /// A hit by comparing values takes the shown record as the entry's, so the next save showing
    /// that record is told by its storage (`refreshed` counts the first, not the second).
    @Test func aHitByValueKeepsTheShownRecord() {
        let schema = Schema.default
        let e = EntityID(2)
        var s = EntityStore()
        _ = s.apply(.create(e, .todos, [FieldAssignment(.title, .string("a"))]), schema: schema)
        let r = s[e]!
        var cache = SharedDiffStepCache()
        let first = cache.updateStep(e, r, schema: schema)
        #expect(cache.refreshed == 0)
        var copy = r
        copy.values = Array(r.values)
        copy.values.append(nil)
        copy.values.removeLast()
        #expect(cache.updateStep(e, copy, schema: schema) == first)
        #expect(cache.refreshed == 1)
        #expect(cache.updateStep(e, copy, schema: schema) == first)
        #expect(cache.refreshed == 1)
        // The first record's storage is now another one's: compared by value, and taken again.
        #expect(cache.updateStep(e, r, schema: schema) == first)
        #expect(cache.refreshed == 2)
    }
}
