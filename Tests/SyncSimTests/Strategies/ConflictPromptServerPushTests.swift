import Testing
@testable import SyncSim

/// The conflictPrompt server's realtime push brings each list up to date from its last result
/// (skipped, patched, or evaluated again), once per distinct query (`SharedList`): after every
/// input, every registered list's shared last result must be its query's result over the
/// server's data, as evaluating it again gives, and the shared lists are exactly the distinct
/// registered queries.
@Suite("ConflictPrompt push")
struct ConflictPromptServerPushTests {
    struct CheckedStrategy: SyncStrategy {
        let log: DivergenceLog
        var info: StrategyInfo { ConflictPromptStrategy().info }
        var transport: Transport { ConflictPromptStrategy().transport }
        func makeClient(_ context: ClientContext, restoring durable: ConflictPromptClient.Durable?) -> ConflictPromptClient {
            ConflictPromptStrategy().makeClient(context, restoring: durable)
        }
        func makeServer(_ context: ServerContext) -> CheckedServer {
            CheckedServer(inner: ConflictPromptStrategy().makeServer(context), log: log)
        }
    }

    struct CheckedServer: ServerMachine {
        var inner: ConflictPromptServer
        let log: DivergenceLog
        var data: EntityStore { inner.data }

        mutating func handle(_ input: ServerInput<ConflictPromptUp>, now: Int64, out: inout ServerOutbox<ConflictPromptDown>) {
            inner.handle(input, now: now, out: &out)
            for c in inner.registered.indices {
                for r in inner.registered[c] {
                    log.checked(reused: true)
                    let list = inner.lists[r.list]
                    if list.query != r.sub.query {
                        log.diverged("client \(c) \(r.sub.id) (\(r.sub.query)) at \(now) after \(input): shares the list of another query (\(list.query))")
                    }
                    if list.reads != list.query.readNamespaces(in: inner.schema) {
                        log.diverged("client \(c) \(r.sub.id) at \(now) after \(input): the kept namespaces read are not the query's")
                    }
                    if list.last != r.sub.query.evaluate(inner.data) {
                        log.diverged("client \(c) \(r.sub.id) (\(r.sub.query)) at \(now) after \(input): last result is not the query's result")
                    }
                }
            }
            // The shared lists are exactly the distinct registered queries.
            var used = [Bool](repeating: false, count: inner.lists.count)
            for rs in inner.registered { for r in rs { used[r.list] = true } }
            if used.contains(false) { log.diverged("at \(now) after \(input): a shared list nobody registers is kept") }
            for k in inner.lists.indices where inner.lists[..<k].contains(where: { $0.query == inner.lists[k].query }) {
                log.diverged("at \(now) after \(input): two shared lists of \(inner.lists[k].query)")
            }
        }
    }

    @Test func everyListsLastResultIsItsQuerysResult() throws {
        let log = DivergenceLog()
        var long = WorkloadGenerator.Config(actions: 300, swarm: false)
        long.userChoices = true
        var rich = WorkloadGenerator.Config(actions: 150)
        rich.richQueries = true
        rich.bulk = true
        let blog = WorkloadGenerator.Config(actions: 150, schema: .blog)
        var changed: [String] = []
        for (config, seeds) in [(long, UInt64(0)..<2), (rich, 0..<4), (blog, 0..<4)] {
            for seed in seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                let checked = try Simulator.run(CheckedStrategy(log: log), schedule, seed: seed)
                let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
                if checked.traceHash != plain.traceHash { changed.append("seed \(seed)") }
            }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 1_000)
    }
}
