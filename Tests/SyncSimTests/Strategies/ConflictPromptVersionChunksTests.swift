import Testing
@testable import SyncSim

/// The conflictPrompt client's durable copy of its server versions (`CPVersionChunks`, set slot
/// by slot with `knownVersion`) holds exactly `knownVersion` after every input of generated
/// runs, against building the chunks from scratch, and a relaunch gets the same array back.
@Suite("ConflictPrompt version chunks")
struct ConflictPromptVersionChunksTests {
    enum ChunksCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            inner.handle(input, now: now, out: &out)
            log.checked(reused: inner.knownVersion.count > CPVersionChunks.size)
            if inner.knownVersionChunks != CPVersionChunks(inner.knownVersion) || inner.durableState.knownVersion != inner.knownVersion {
                log.diverged("\(inner.id) at \(now) after \(input): the durable version chunks differ from the client's versions")
            }
        }
    }

    @Test func chunksHoldTheVersionsAfterEveryInput() throws {
        let log = DivergenceLog()
        let long = WorkloadGenerator.Config(actions: 600, swarm: false)
        var rich = WorkloadGenerator.Config(actions: 150)
        rich.richQueries = true
        rich.bulk = true
        var changed: [String] = []
        for (config, seeds) in [(long, 0..<2), (rich, 0..<2)] as [(WorkloadGenerator.Config, Range<UInt64>)] {
            for seed in seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                let checked = try Simulator.run(CheckedConflictPrompt<ChunksCheck>(log: log), schedule, seed: seed)
                let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
                if checked.traceHash != plain.traceHash { changed.append("seed \(seed)") }
            }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        // Runs whose versions span more than one chunk were checked.
        #expect(log.reused > 100)
    }

    /// Sets in any order grow the chunks as the flat array grows (zeros between), and a copy
    /// taken before a set keeps what it held (what a persisted state relies on).
    @Test func setsGrowLikeTheFlatArrayAndCopiesKeepTheirValues() {
        var flat: [UInt64] = []
        var chunks = CPVersionChunks()
        var kept: [(CPVersionChunks, [UInt64])] = []
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for step in 0..<2_000 {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            let i = Int(x % 700)
            let v = x >> 40
            if i >= flat.count { flat.append(contentsOf: repeatElement(0, count: i - flat.count + 1)) }
            flat[i] = v
            chunks.set(i, v, count: flat.count)
            #expect(chunks.all == flat, "step \(step)")
            #expect(chunks == CPVersionChunks(flat), "step \(step)")
            if step % 37 == 0 { kept.append((chunks, flat)) }
        }
        for (c, f) in kept { #expect(c.all == f) }
        #expect(CPVersionChunks([]).all == [])
    }
}
