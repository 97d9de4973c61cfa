import Testing
@testable import SyncSim

/// A check a conflictPrompt test makes on every input its client handles: `check` handles
/// `input` on `inner` (it must, exactly once) and logs any difference it finds to `log`.
protocol ConflictPromptCheck: Sendable {
    static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                      out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog)
}

/// `conflictPrompt` with its client wrapped so that `Check` runs on every input. Why one
/// wrapper: the render and learn tests each compare an incremental path with the form it
/// replaced, and the strategy and client plumbing around that comparison is the same.
struct CheckedConflictPrompt<Check: ConflictPromptCheck>: SyncStrategy {
    let log: DivergenceLog
    var info: StrategyInfo { ConflictPromptStrategy().info }
    var transport: Transport { ConflictPromptStrategy().transport }
    func makeClient(_ context: ClientContext, restoring durable: ConflictPromptClient.Durable?) -> Client {
        Client(inner: ConflictPromptStrategy().makeClient(context, restoring: durable), log: log)
    }
    func makeServer(_ context: ServerContext) -> ConflictPromptServer { ConflictPromptStrategy().makeServer(context) }

    struct Client: ClientMachine {
        var inner: ConflictPromptClient
        let log: DivergenceLog

        mutating func handle(_ input: ClientInput<ConflictPromptDown>, now: Int64, out: inout ClientOutbox<ConflictPromptUp>) {
            Check.check(&inner, input, now: now, out: &out, log: log)
        }

        var durableState: ConflictPromptClient.Durable { inner.durableState }
        func result(of subscription: SubscriptionID) -> QueryResult? { inner.result(of: subscription) }
        var pendingWrites: [WriteID] { inner.pendingWrites }
    }
}
