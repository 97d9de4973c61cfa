import Testing
@testable import SyncSim

/// `pendingWriteCount`, asked by the simulator after every input a client handles, is answered
/// without building the list of pending writes (`PushPullClient`: the queue's kept list of
/// outstanding writes, `OperationQueue.outstandingWriteCount`; `ReferenceClient`: its queue's
/// length). It must be the count the old answers gave, `pendingWrites.count`, after every input
/// of real runs: persistence on and off (a restart keeps or drops the queue), clients offline
/// for long stretches (queues that grow), pushes that fail and are retried.
@Suite("Pending write counts")
struct PendingWriteCountTests {
    /// Compares the counts after every input; forwards everything else untouched.
    struct CountChecked<Inner: ClientMachine>: ClientMachine {
        var inner: Inner
        let log: DivergenceLog

        mutating func handle(_ input: ClientInput<Inner.Down>, now: Int64, out: inout ClientOutbox<Inner.Up>) {
            inner.handle(input, now: now, out: &out)
            let n = inner.pendingWriteCount
            log.checked(reused: n > 0)
            if n != inner.pendingWrites.count {
                log.diverged("after \(input): pendingWriteCount \(n), pendingWrites \(inner.pendingWrites.count)")
            }
        }

        var durableState: Inner.Durable { inner.durableState }
        func result(of subscription: SubscriptionID) -> QueryResult? { inner.result(of: subscription) }
        var pendingWrites: [WriteID] { inner.pendingWrites }
        var pendingWriteCount: Int { inner.pendingWriteCount }
    }

    struct CheckedPushPull: SyncStrategy {
        let log: DivergenceLog
        var info: StrategyInfo { PushPullStrategy().info }
        var transport: Transport { PushPullStrategy().transport }
        func makeClient(_ context: ClientContext, restoring durable: PushPullClient.Durable?) -> CountChecked<PushPullClient> {
            CountChecked(inner: PushPullClient(context: context, restoring: durable), log: log)
        }
        func makeServer(_ context: ServerContext) -> PushPullServer { PushPullStrategy().makeServer(context) }
    }

    struct CheckedReference: SyncStrategy {
        let log: DivergenceLog
        var info: StrategyInfo { ReferenceStrategy().info }
        var transport: Transport { ReferenceStrategy().transport }
        func makeClient(_ context: ClientContext, restoring durable: ReferenceClient.Durable?) -> CountChecked<ReferenceClient> {
            CountChecked(inner: ReferenceClient(context: context, restoring: durable), log: log)
        }
        func makeServer(_ context: ServerContext) -> ReferenceServer { ReferenceStrategy().makeServer(context) }
    }

    @Test func theCountIsThePendingWritesCount() throws {
        for (name, strategy) in [("pushPull", 0), ("reference", 1)] {
            let log = DivergenceLog()
            var hashes: [String] = []
            for seed in UInt64(1)...4 {
                var schedule = WorkloadGenerator(.init(actions: 400)).generate(seed: seed)
                schedule.options.persistence = seed % 2 == 0
                let checked = strategy == 0 ? try Simulator.run(CheckedPushPull(log: log), schedule, seed: seed)
                                            : try Simulator.run(CheckedReference(log: log), schedule, seed: seed)
                let plain = strategy == 0 ? try Simulator.run(PushPullStrategy(), schedule, seed: seed)
                                          : try Simulator.run(ReferenceStrategy(), schedule, seed: seed)
                if checked.traceHash != plain.traceHash { hashes.append("seed \(seed)") }
            }
            #expect(log.divergences.isEmpty, "\(name): \(log.divergences)")
            #expect(hashes.isEmpty, "\(name): the checking wrapper changed the run: \(hashes)")
            #expect(log.checks > 1_000, "\(name)")
            #expect(log.reused > 200, "\(name): writes were rarely pending")
        }
    }
}
