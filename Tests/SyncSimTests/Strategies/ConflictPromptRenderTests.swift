import Testing
@testable import SyncSim

/// The conflictPrompt client's incremental rendering (a list's store kept and extended when only
/// queue entries were appended, the view patched where they touched) gives exactly what laying
/// the whole queue over the server's answer again gives.
@Suite("ConflictPrompt render")
struct ConflictPromptRenderTests {
    /// `conflictPrompt`, whose client also handles every input on a copy with its render caches
    /// dropped (so that copy renders every list from scratch) and reports any difference.
    struct CheckedStrategy: SyncStrategy {
        let log: DivergenceLog
        var info: StrategyInfo { ConflictPromptStrategy().info }
        var transport: Transport { ConflictPromptStrategy().transport }
        func makeClient(_ context: ClientContext, restoring durable: ConflictPromptClient.Durable?) -> CheckedClient {
            CheckedClient(inner: ConflictPromptStrategy().makeClient(context, restoring: durable), log: log)
        }
        func makeServer(_ context: ServerContext) -> ConflictPromptServer { ConflictPromptStrategy().makeServer(context) }
    }

    struct CheckedClient: ClientMachine {
        var inner: ConflictPromptClient
        let log: DivergenceLog

        mutating func handle(_ input: ClientInput<ConflictPromptDown>, now: Int64, out: inout ClientOutbox<ConflictPromptUp>) {
            var scratch = inner
            var reused = false
            for i in scratch.views.indices {
                if scratch.views[i].renderInputs != nil { reused = true }
                scratch.views[i].renderStore = nil
                scratch.views[i].renderInputs = nil
            }
            let start = out.count
            inner.handle(input, now: now, out: &out)
            var fromScratch = ClientOutbox<ConflictPromptUp>()
            scratch.handle(input, now: now, out: &fromScratch)
            log.checked(reused: reused)
            if Array(out.effects[start...]) != fromScratch.effects {
                log.diverged("\(inner.id) at \(now) after \(input): effects differ from the rebuild's")
            }
            for (v, s) in zip(inner.views, scratch.views) where v.shown != s.shown {
                log.diverged("\(inner.id) \(v.sub) at \(now) after \(input): shows \(v.shown?.summary ?? "nil"), rebuilt \(s.shown?.summary ?? "nil")")
            }
        }

        var durableState: ConflictPromptClient.Durable { inner.durableState }
        func result(of subscription: SubscriptionID) -> QueryResult? { inner.result(of: subscription) }
        var pendingWrites: [WriteID] { inner.pendingWrites }
    }

    @Test func generatedRunsMatchTheRenderFromScratch() throws {
        let log = DivergenceLog()
        var hashes: [String] = []
        for seed in UInt64(0)..<6 {
            let schedule = WorkloadGenerator(.init(actions: 150)).generate(seed: seed)
            let checked = try Simulator.run(CheckedStrategy(log: log), schedule, seed: seed)
            let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
            if checked.traceHash != plain.traceHash { hashes.append("seed \(seed)") }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(hashes.isEmpty, "the checking wrapper changed the run: \(hashes)")
        #expect(log.checks > 500)
        #expect(log.reused > 50)
    }
}
