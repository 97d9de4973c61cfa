import Testing
@testable import SyncSim

/// The InstantDB client's incremental view maintenance (the overlay store kept across server
/// answers, rolled back to its base and patched where a new answer differs, views patched where
/// the touched entities are) gives exactly what rebuilding every view from scratch gives.
@Suite("Instant incremental")
struct InstantIncrementalTests {
    /// `instant` (or `fullEntity`), whose client also handles every input on a copy with its
    /// overlay caches dropped (so that copy rebuilds every view from the server's answer and the
    /// visible mutations) and reports any difference in effects or in what a subscription shows.
    struct CheckedStrategy: SyncStrategy {
        let log: DivergenceLog
        let fullEntity: Bool
        var info: StrategyInfo { fullEntity ? FullEntityStrategy().info : InstantStrategy().info }
        var transport: Transport { .stream }
        func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> CheckedClient {
            CheckedClient(inner: InstantClient(context: context, fullEntity: fullEntity, restoring: durable), log: log)
        }
        func makeServer(_ context: ServerContext) -> InstantServer {
            InstantServer(clients: context.clientCount, schema: context.schema)
        }
    }

    struct CheckedClient: ClientMachine {
        var inner: InstantClient
        let log: DivergenceLog

        mutating func handle(_ input: ClientInput<InstantDown>, now: Int64, out: inout ClientOutbox<InstantUp>) {
            var scratch = inner
            var reused = false
            for i in scratch.queries.indices {
                if scratch.queries[i].overlayStore != nil && scratch.queries[i].storeShowsView { reused = true }
                scratch.queries[i].overlayValid = false
                scratch.queries[i].overlayStore = nil
                scratch.queries[i].overlayBase = nil
                scratch.queries[i].overlayUndo = EntityStore.UndoLog()
                scratch.queries[i].storeShowsView = false
                // The rebuild takes every pending step, so it also checks which steps the
                // incremental stores leave out (`OverlayStepFilter`).
                scratch.queries[i].overlayFilter = OverlayStepFilter(keepsAll: true)
            }
            let start = out.count
            inner.handle(input, now: now, out: &out)
            var fromScratch = ClientOutbox<InstantUp>()
            scratch.handle(input, now: now, out: &fromScratch)
            log.checked(reused: reused)
            if Array(out.effects[start...]) != fromScratch.effects {
                log.diverged("\(inner.id) at \(now) after \(input): effects differ from the rebuild's")
            }
            for (q, s) in zip(inner.queries, scratch.queries) where q.shown != s.shown {
                log.diverged("\(inner.id) \(q.key) at \(now) after \(input): shows \(q.shown?.summary ?? "nil"), rebuilt \(s.shown?.summary ?? "nil")")
            }
        }

        var durableState: InstantClient.Durable { inner.durableState }
        func result(of subscription: SubscriptionID) -> QueryResult? { inner.result(of: subscription) }
        var pendingWrites: [WriteID] { inner.pendingWrites }
    }

    @Test(arguments: [false, true])
    func generatedRunsMatchTheRebuild(fullEntity: Bool) throws {
        let log = DivergenceLog()
        var hashes: [String] = []
        for seed in UInt64(0)..<6 {
            let schedule = WorkloadGenerator(.init(actions: 150)).generate(seed: seed)
            let checked = try Simulator.run(CheckedStrategy(log: log, fullEntity: fullEntity), schedule, seed: seed)
            let plain = fullEntity ? try Simulator.run(FullEntityStrategy(), schedule, seed: seed).traceHash
                : try Simulator.run(InstantStrategy(), schedule, seed: seed).traceHash
            if checked.traceHash != plain { hashes.append("seed \(seed)") }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(hashes.isEmpty, "the checking wrapper changed the run: \(hashes)")
        #expect(log.checks > 1_000)
        // The incremental path was taken, not only the rebuild.
        #expect(log.reused > 100)
    }

    /// `patchBase` brings a store holding one answer's entries to another's, writing only the
    /// entities that differ (joined, left or changed) and naming exactly those.
    @Test func patchingTheBaseGivesTheNewAnswersStore() {
        var data = EntityStore()
        for op: Op in [
            .create(EntityID(1), .todos, [FieldAssignment(.title, .string("a"))]),
            .create(EntityID(2), .todos, [FieldAssignment(.title, .string("b"))]),
            .create(EntityID(4), .todos, [FieldAssignment(.title, .string("d"))]),
        ] { #expect(data.apply(op, schema: .default) == nil) }
        let q = Query(.todos)
        let old = q.evaluate(data)
        for op: Op in [
            .update(EntityID(2), .todos, [FieldAssignment(.title, .string("B"))]),
            .delete(EntityID(1), .todos),
            .create(EntityID(3), .todos, []),
            .create(EntityID(9), .todos, []),
        ] { #expect(data.apply(op, schema: .default) == nil) }
        let new = q.evaluate(data)
        var store = EntityStore(entriesOf: old)
        var touched: [EntityID] = []
        InstantClient.patchBase(&store, from: old, to: new, touched: &touched)
        #expect(store == EntityStore(entriesOf: new))
        #expect(touched.sorted() == [EntityID(1), EntityID(2), EntityID(3), EntityID(9)])
        // The same answer: nothing written, nothing touched.
        var same = EntityStore(entriesOf: new)
        var none: [EntityID] = []
        InstantClient.patchBase(&same, from: new, to: new, touched: &none)
        #expect(none.isEmpty && same == EntityStore(entriesOf: new))
    }
}
