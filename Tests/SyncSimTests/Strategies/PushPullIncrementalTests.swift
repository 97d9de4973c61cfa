import Testing
@testable import SyncSim

/// The `pushPull` client's incremental work (the UI view patched where rows changed,
/// subscriptions patched where the view changed: `ViewPatch`) gives exactly what the work from
/// scratch gives.
@Suite("PushPull incremental")
struct PushPullIncrementalTests {
    /// `pushPull`, whose client checks after every input that every subscription shows its
    /// query's result over the view, and the view is the local database's live rows with
    /// dangling links hidden.
    struct CheckedStrategy: SyncStrategy {
        let log: DivergenceLog
        var info: StrategyInfo { PushPullStrategy().info }
        var transport: Transport { .datagram }
        func makeClient(_ context: ClientContext, restoring durable: PushPullClient.Durable?) -> CheckedClient {
            CheckedClient(inner: PushPullClient(context: context, restoring: durable), log: log)
        }
        func makeServer(_ context: ServerContext) -> PushPullServer { PushPullStrategy().makeServer(context) }
    }

    struct CheckedClient: ClientMachine {
        var inner: PushPullClient
        let log: DivergenceLog
        /// The last persisted rows and what they held when taken: a later change must leave them
        /// as they were (the persisted log is shared with the client's, `SharedAppendLog`).
        var earlier: (durable: PushPullClient.Durable, rows: [LocalRecord])?

        mutating func handle(_ input: ClientInput<PushPullDown>, now: Int64, out: inout ClientOutbox<PushPullUp>) {
            inner.handle(input, now: now, out: &out)
            // The persisted rows (a base and a log of the rows set since) are the table's rows,
            // and rows persisted earlier are unchanged.
            if inner.persistence {
                log.checked()
                if let e = earlier, e.durable.records != e.rows { log.diverged("\(inner.id) at \(now): earlier persisted rows changed") }
                let rows = inner.records.rows
                if inner.durableState.records != rows { log.diverged("\(inner.id) at \(now): persisted rows differ") }
                earlier = (inner.durableState, rows)
            }
            // The view, from scratch: the live rows, links to rows it does not show dropped.
            var want = EntityStore()
            for r in inner.records.rows where r.status != .deleted {
                var rec = r.record
                for l in inner.schema.links(of: rec.namespace) {
                    let ns = inner.schema.target(of: l)
                    rec.filterLink(l) { t in inner.records[t].map { $0.status != .deleted && $0.record.namespace == ns } ?? false }
                }
                want[r.entity] = rec
            }
            log.checked()
            if want != inner.view { log.diverged("\(inner.id) at \(now) after \(input): the view differs from the table's live rows") }
            // Pending changes of the table not yet in the view are patched by the next refresh;
            // the subscriptions are the query over the view as it is.
            for s in inner.subs.subs {
                guard let shown = inner.result(of: s.id) else { continue }
                let query = inner.subs.groups[s.group].query
                log.checked(reused: true)
                if shown != query.evaluate(inner.view) {
                    log.diverged("\(inner.id) \(s.id) at \(now) after \(input): shows \(shown.summary)")
                }
            }
        }

        var durableState: PushPullClient.Durable { inner.durableState }
        func result(of subscription: SubscriptionID) -> QueryResult? { inner.result(of: subscription) }
        var pendingWrites: [WriteID] { inner.pendingWrites }
    }

    @Test func generatedRunsMatchTheWorkFromScratch() throws {
        let log = DivergenceLog()
        var hashes: [String] = []
        for seed in UInt64(0)..<12 {
            let schedule = WorkloadGenerator(.init(actions: 150)).generate(seed: seed)
            let checked = try Simulator.run(CheckedStrategy(log: log), schedule, seed: seed)
            let plain = try Simulator.run(PushPullStrategy(), schedule, seed: seed)
            if checked.traceHash != plain.traceHash { hashes.append("seed \(seed)") }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(hashes.isEmpty, "the checking wrapper changed the run: \(hashes)")
        #expect(log.checks > 1_000)
    }
}
