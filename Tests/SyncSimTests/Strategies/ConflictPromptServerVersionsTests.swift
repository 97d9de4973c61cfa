import Testing
@testable import SyncSim

/// The server keeps each shared list's versions beside its result (`SharedList.versions`,
/// brought up to date by `CPServerVersions`): after every input the server handles, every
/// list's versions must be the `modified` of each of its entries, looked up one by one; a
/// fetch of an unchanged list must carry the very versions the one before it carried (the
/// shortcut, so a change that silently rebuilt them every time fails here).
@Suite("ConflictPrompt server versions")
struct ConflictPromptServerVersionsTests {
    final class Counts: @unchecked Sendable {
        var checked = 0
        var realigned = 0
        var shared = 0
        var divergences: [String] = []
    }

    /// `conflictPrompt` with its server checked after every input.
    struct Checked: SyncStrategy {
        let counts: Counts
        var info: StrategyInfo { ConflictPromptStrategy().info }
        var transport: Transport { ConflictPromptStrategy().transport }
        func makeClient(_ context: ClientContext, restoring durable: ConflictPromptClient.Durable?) -> ConflictPromptClient {
            ConflictPromptStrategy().makeClient(context, restoring: durable)
        }
        func makeServer(_ context: ServerContext) -> Server {
            Server(inner: ConflictPromptStrategy().makeServer(context), counts: counts)
        }

        struct Server: ServerMachine {
            var inner: ConflictPromptServer
            let counts: Counts
            var data: EntityStore { inner.data }

            mutating func handle(_ input: ServerInput<ConflictPromptUp>, now: Int64, out: inout ServerOutbox<ConflictPromptDown>) {
                let before = inner.lists
                let start = out.count
                inner.handle(input, now: now, out: &out)
                for (k, l) in inner.lists.enumerated() {
                    counts.checked += 1
                    if l.versions != inner.versions(of: l.last) {
                        if counts.divergences.count < 5 { counts.divergences.append("list \(k) at \(now) after \(input): stale versions") }
                    }
                    if let b = before.first(where: { $0.query == l.query }), !CPListRender.sameBuffers(b.last, l.last) { counts.realigned += 1 }
                }
                // A fetch answers an unchanged list with the versions it kept.
                if case .received(_, .fetch) = input {
                    for e in out.effects[start...] {
                        guard case .send(_, .results(_, let snaps, _)) = e else { continue }
                        for s in snaps {
                            guard let l = before.first(where: { CPListRender.sameBuffers($0.last, s.result) }) else { continue }
                            if ConflictPromptClient.sameBuffer(l.versions, s.versions) { counts.shared += 1 }
                        }
                    }
                }
            }
        }
    }

    @Test func everyListsVersionsAreItsEntriesModifiedAfterEveryInput() throws {
        let counts = Counts()
        for (config, seeds) in ConflictPromptSharedListTests.configs() {
            for seed in seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                let checked = try Simulator.run(Checked(counts: counts), schedule, seed: seed)
                let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
                #expect(checked.traceHash == plain.traceHash, "the checking wrapper changed the run (seed \(seed))")
            }
        }
        #expect(counts.divergences.isEmpty, "\(counts.divergences)")
        #expect(counts.checked > 1_000)
        #expect(counts.realigned > 100, "few lists were patched: \(counts.realigned)")
        #expect(counts.shared > 100, "few fetches carried kept versions: \(counts.shared)")
    }

    /// `realign` on a result patched by hand (an entry rewritten, one inserted, one dropped):
    /// the versions of the same ids carried over, the new one looked up.
    @Test func realignCarriesTheVersionsOfTheSameIds() {
        var store = EntityStore()
        let schema = Schema.default
        for k in 0..<120 where k % 4 != 0 {
            _ = store.apply(.create(EntityID(UInt32(k)), .todos, [FieldAssignment(.title, .string("v\(k)"))]), schema: schema, mode: .update)
        }
        let query = Query(.todos)
        let old = query.evaluate(store)
        var modified = (0..<130).map { UInt64($0) * 10 }
        let versions = old.entries.map { modified[Int($0.id.raw)] }
        _ = store.apply(.update(EntityID(5), .todos, [FieldAssignment(.title, .string("w"))]), schema: schema, mode: .update)
        _ = store.apply(.create(EntityID(8), .todos, [FieldAssignment(.title, .string("n"))]), schema: schema, mode: .update)
        _ = store.apply(.delete(EntityID(99), .todos), schema: schema, mode: .update)
        var new = old
        _ = query.patch(&new, touched: [EntityID(5), EntityID(8), EntityID(99)], in: store, shared: true)
        modified[5] = 1_000
        modified[8] = 1_001
        var v = CPServerVersions.realign(versions, from: old, to: new, modified: modified)
        CPServerVersions.restamp(&v, of: new, [EntityID(5), EntityID(8), EntityID(99)], modified: modified)
        #expect(v == new.entries.map { modified[Int($0.id.raw)] })
        #expect(v.count == old.entries.count)
    }
}
