import Testing
@testable import SyncSim

/// The conflictPrompt client's durable copy of its server copies (`CPKnownChunks`, changed
/// slot by slot with `known`) holds exactly `known` after every input, and a store built from
/// it is equal to `known` (what a relaunch restores), against building the chunks from scratch.
@Suite("ConflictPrompt known chunks")
struct ConflictPromptKnownChunksTests {
    enum ChunksCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            inner.handle(input, now: now, out: &out)
            log.checked(reused: inner.known.count > 0)
            if inner.knownChunks != CPKnownChunks(inner.known) || inner.durableState.known != inner.known {
                log.diverged("\(inner.id) at \(now) after \(input): the durable chunks differ from the client's known copies")
            }
        }
    }

    @Test func chunksHoldTheKnownCopiesAfterEveryInput() throws {
        let log = DivergenceLog()
        var long = WorkloadGenerator.Config(actions: 400, swarm: false)
        long.userChoices = true
        var rich = WorkloadGenerator.Config(actions: 150)
        rich.richQueries = true
        rich.bulk = true
        rich.userChoices = true
        var blog = WorkloadGenerator.Config(actions: 150, schema: .blog)
        blog.userChoices = true
        var changed: [String] = []
        for (config, seeds) in [(long, 0..<2), (rich, 0..<3), (blog, 0..<3)] as [(WorkloadGenerator.Config, Range<UInt64>)] {
            for seed in seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                let checked = try Simulator.run(CheckedConflictPrompt<ChunksCheck>(log: log), schedule, seed: seed)
                let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
                if checked.traceHash != plain.traceHash { changed.append("seed \(seed)") }
            }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 500)
    }

    @Test func chunksGrowAndBuildTheSameStore() {
        var store = EntityStore()
        var chunks = CPKnownChunks()
        let schema = Schema.default
        for raw in [3, 40, 31, 32, 100, 64, 0] as [UInt32] {
            let e = EntityID(raw)
            store[e] = EntityRecord(namespace: schema.namespaceIDs[0], schema: schema)
            chunks.take(e, from: store)
            #expect(chunks == CPKnownChunks(store))
            #expect(chunks.store == store)
        }
        store[EntityID(40)] = nil
        chunks.take(EntityID(40), from: store)
        #expect(chunks == CPKnownChunks(store))
        #expect(chunks.store == store)
    }

    /// Past one group (`fanout` chunks), slots taken in any order give the chunks built from
    /// scratch; and a change after a copy (a persist) copies one group: every other group of
    /// the copy keeps its storage.
    @Test func groupsGrowAndAChangeCopiesOneGroup() {
        var store = EntityStore()
        var chunks = CPKnownChunks()
        let schema = Schema.default
        let perGroup = CPKnownChunks.size * CPKnownChunks.fanout
        for raw in [5, 2 * perGroup + 7, perGroup - 1, perGroup, 3 * perGroup + 40, 17] {
            let e = EntityID(UInt32(raw))
            store[e] = EntityRecord(namespace: schema.namespaceIDs[0], schema: schema)
            chunks.take(e, from: store)
            #expect(chunks == CPKnownChunks(store))
            #expect(chunks.store == store)
        }
        #expect(chunks.groups.count == 4)
        #expect(chunks.groups.dropLast().allSatisfy { $0.count == CPKnownChunks.fanout })
        let saved = chunks
        let e = EntityID(UInt32(perGroup + 3))
        store[e] = EntityRecord(namespace: schema.namespaceIDs[0], schema: schema)
        chunks.take(e, from: store)
        #expect(chunks == CPKnownChunks(store) && saved != chunks)
        for g in chunks.groups.indices {
            let shared = ConflictPromptClient.sameBuffer(chunks.groups[g], saved.groups[g])
            #expect(shared == (g != 1), "group \(g)")
        }
    }
}
