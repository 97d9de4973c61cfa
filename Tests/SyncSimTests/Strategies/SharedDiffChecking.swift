import Testing
@testable import SyncSim

/// A check a sharedDiff test makes on every input its client handles: `check` handles `input`
/// on `inner` (it must, exactly once, before or after its comparison) and logs any difference it
/// finds to `log`.
protocol SharedDiffCheck: Sendable {
    static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                      out: inout ClientOutbox<InstantUp>, log: DivergenceLog)
}

/// `sharedDiff` with its client wrapped so that `Check` runs on every input. Why one wrapper:
/// the overlay, incremental-view and step tests each compare a shortcut with the form it
/// replaced, and the strategy and client plumbing around that comparison is the same.
struct CheckedSharedDiff<Check: SharedDiffCheck>: SyncStrategy {
    typealias Server = InstantServer
    let log: DivergenceLog
    var info: StrategyInfo { SharedDiffStrategy().info }
    var transport: Transport { SharedDiffStrategy().transport }
    var tenancy: Tenancy { SharedDiffStrategy().tenancy }
    func makeClient(_ context: ClientContext, restoring durable: SharedDiffClient.Durable?) -> Client {
        Client(inner: SharedDiffClient(context: context, restoring: durable), log: log)
    }
    func makeServer(_ context: ServerContext) -> InstantServer { SharedDiffStrategy().makeServer(context) }

    struct Client: ClientMachine {
        var inner: SharedDiffClient
        let log: DivergenceLog

        mutating func handle(_ input: ClientInput<InstantDown>, now: Int64, out: inout ClientOutbox<InstantUp>) {
            Check.check(&inner, input, now: now, out: &out, log: log)
        }

        var durableState: SharedDiffClient.Durable { inner.durableState }
        func result(of subscription: SubscriptionID) -> QueryResult? { inner.result(of: subscription) }
        var pendingWrites: [WriteID] { inner.pendingWrites }
    }
}

extension CheckedSharedDiff {
    /// Runs `Check` over the schedules generated for `seeds`, `actions` actions each; the odd
    /// seeds add the opt-in features and tenants (include trees, limits, bulk creates, user
    /// changes).
    static func runGenerated(seeds: Range<UInt64>, actions: Int, log: DivergenceLog) throws {
        for seed in seeds {
            var config = WorkloadGenerator.Config(actions: actions)
            if seed % 2 == 1 {
                for f in WorkloadFeature.allCases { f.turnOn(in: &config) }
                config.tenants = 3
            }
            let schedule = WorkloadGenerator(config).generate(seed: seed)
            _ = try Simulator.run(CheckedSharedDiff(log: log), schedule, seed: seed)
        }
    }
}
