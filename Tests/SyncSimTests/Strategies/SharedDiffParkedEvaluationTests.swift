import Testing
@testable import SyncSim

/// Two shortcuts of a refresh, each compared with a rebuild on generated runs: a parked
/// evaluation (`SharedDiffOverlay.parked`: the last evaluation, kept while the view shows its
/// server answer alone) lets the next refresh go on incrementally instead of evaluating the query
/// over the whole store, and a save laid again after a roll back tests only the steps that can
/// have changed (`SharedDiffOverlay.relay`). The views must be exactly those of a rebuild.
@Suite("SharedDiff parked evaluations and relays")
struct SharedDiffParkedEvaluationTests {
    /// Handles each input, then compares every collection's view with the view rebuilt from its
    /// server answer; counts as reused the inputs after which `Counter` grew on some overlay.
    enum ViewsMatchRebuild<Counter: OverlayCounter>: SharedDiffCheck {
        static func count(_ c: SharedDiffClient) -> Int {
            c.collections.reduce(0) { $0 + ($1.overlay.map(Counter.count) ?? 0) }
        }

        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            let before = count(inner)
            inner.handle(input, now: now, out: &out)
            log.checked(reused: count(inner) > before)
            for c in inner.collections where !c.key.isOnce && c.server != nil {
                let scratch = inner.view(of: c)
                if c.shown != scratch {
                    log.diverged("\(inner.id) \(c.key) at \(now) after \(input): \(String(describing: c.shown?.summary)) ≠ \(scratch.summary)")
                }
            }
        }
    }

    enum ParkedReuses: OverlayCounter { static func count(_ o: SharedDiffOverlay) -> Int { o.parkedReuses } }
    enum RelayPasses: OverlayCounter { static func count(_ o: SharedDiffOverlay) -> Int { o.relayPassed } }

    func run<Counter: OverlayCounter>(_: Counter.Type) throws -> DivergenceLog {
        let log = DivergenceLog()
        var hashes: [String] = []
        for seed in UInt64(0)..<8 {
            var config = WorkloadGenerator.Config(actions: 150)
            // Odd seeds add the opt-in features and tenants: include trees, limits, bulk
            // creates, user changes.
            if seed % 2 == 1 {
                for f in WorkloadFeature.allCases { f.turnOn(in: &config) }
                config.tenants = 3
            }
            let schedule = WorkloadGenerator(config).generate(seed: seed)
            let checked = try Simulator.run(CheckedSharedDiff<ViewsMatchRebuild<Counter>>(log: log), schedule, seed: seed)
            let plain = try Simulator.run(SharedDiffStrategy(), schedule, seed: seed)
            if checked.traceHash != plain.traceHash { hashes.append("seed \(seed)") }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(hashes.isEmpty, "the checking wrapper changed the run: \(hashes)")
        #expect(log.checks > 1_000)
        return log
    }

    @Test func viewsGoingOnFromAParkedEvaluationAreARebuildsViews() throws {
        let log = try run(ParkedReuses.self)
        // Not vacuous: refreshes went on from a parked evaluation.
        #expect(log.reused > 20, "parked evaluations reused after \(log.reused) of \(log.checks) inputs")
    }

    @Test func savesLaidAgainTestingOnlyWhatChangedGiveARebuildsViews() throws {
        let log = try run(RelayPasses.self)
        // Not vacuous: saves laid again passed steps over untested.
        #expect(log.reused > 20, "relays passed steps over after \(log.reused) of \(log.checks) inputs")
    }

    /// `SharedDiffOverlay.sameRecord`, the in-place comparison `rebase` makes, is `EntityRecord ==`:
    /// for shared storage, equal values in other storage, and each slot kind differing.
    @Test func sameRecordIsRecordEquality() {
        let a = EntityRecord(namespace: NamespaceID(0), values: [.int(1), .string("x"), nil], links: [EntityID(3), nil],
                             manyLinks: [[EntityID(4)], []])
        var copy = EntityRecord(namespace: NamespaceID(0), values: [], links: [], manyLinks: [])
        copy.values = a.values.map { $0 }
        copy.links = a.links.map { $0 }
        copy.manyLinks = a.manyLinks.map { $0 }
        var otherValue = a; otherValue.values[1] = .string("y")
        var otherLink = a; otherLink.links[1] = EntityID(5)
        var otherMany = a; otherMany.manyLinks[1] = [EntityID(6)]
        var otherNamespace = a; otherNamespace.namespace = NamespaceID(1)
        var shorter = a; shorter.values.removeLast()
        let records = [a, copy, otherValue, otherLink, otherMany, otherNamespace, shorter]
        for x in records {
            for y in records {
                let ex = [QueryResult.Entry(id: EntityID(1), record: x)]
                let ey = [QueryResult.Entry(id: EntityID(1), record: y)]
                let same = ex.withUnsafeBufferPointer { p in ey.withUnsafeBufferPointer { q in SharedDiffOverlay.sameRecord(p, 0, q, 0) } }
                #expect(same == (x == y))
            }
        }
    }
}

/// A count an overlay keeps of one shortcut taken.
protocol OverlayCounter: Sendable {
    static func count(_ o: SharedDiffOverlay) -> Int
}
