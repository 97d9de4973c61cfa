import Testing
@testable import SyncSim

/// The conflictPrompt client's `learn` (entries whose record `known` holds in the same storage
/// passed over by a pointer comparison, versions not written again when equal) leaves `known`,
/// `knownVersion` and the redraw log exactly as the entry-by-entry form it replaced.
@Suite("ConflictPrompt learn")
struct ConflictPromptLearnTests {
    /// For every answer the client receives, the fast `learn` against the entry-by-entry form
    /// on two copies of its state, before the client handles the answer.
    enum LearnCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            var snaps: [CPSnapshot] = []
            if case .received(.results(_, let s, _)) = input { snaps = s }
            if case .received(.queryResult(_, let s)) = input { snaps = [s] }
            var fast = inner, slow = inner
            for s in snaps {
                fast.learn(s)
                slow.learnEntryByEntry(s)
                log.checked(reused: !s.result.entries.isEmpty)
                if fast.known != slow.known || fast.knownVersion != slow.knownVersion || fast.knownLog != slow.knownLog
                    || fast.knownEpoch != slow.knownEpoch || fast.knownLogEpoch != slow.knownLogEpoch {
                    log.diverged("\(inner.id) at \(now) after \(input): learn differs from the entry-by-entry form")
                }
            }
            inner.handle(input, now: now, out: &out)
        }
    }

    @Test func learnMatchesTheEntryByEntryForm() throws {
        let log = DivergenceLog()
        var long = WorkloadGenerator.Config(actions: 400, swarm: false)
        long.userChoices = true
        var rich = WorkloadGenerator.Config(actions: 150)
        rich.richQueries = true
        rich.bulk = true
        var blog = WorkloadGenerator.Config(actions: 150, schema: .blog)
        blog.userChoices = true
        for (config, seeds) in [(long, 0..<2), (rich, 0..<3), (blog, 0..<3)] as [(WorkloadGenerator.Config, Range<UInt64>)] {
            for seed in seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                let checked = try Simulator.run(CheckedConflictPrompt<LearnCheck>(log: log), schedule, seed: seed)
                let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
                #expect(checked.traceHash == plain.traceHash, "the checking wrapper changed the run (seed \(seed))")
            }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(log.reused > 200)
    }

    /// `sameBuffer` (addresses first, counts only when they differ) says what the count-first
    /// form said: one storage is the same, empty arrays are the same whatever storage each has,
    /// equal elements in other storage are not, and an empty array is not a non-empty one.
    @Test func sameBufferIsTheCountFirstForm() {
        func countFirst(_ a: [Int], _ b: [Int]) -> Bool {
            a.count == b.count && (a.isEmpty || a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } })
        }
        var reserved: [Int] = []
        reserved.reserveCapacity(8)
        var emptied = [1, 2, 3]
        emptied.removeAll(keepingCapacity: true)
        let a = [1, 2, 3]
        let shared = a
        let equalElsewhere = Array([1, 2, 3][...])
        let arrays: [[Int]] = [[], reserved, emptied, a, shared, equalElsewhere, [1], [1, 2, 3, 4]]
        var sameSeen = 0
        for x in arrays {
            for y in arrays {
                #expect(ConflictPromptClient.sameBuffer(x, y) == countFirst(x, y))
                if ConflictPromptClient.sameBuffer(x, y) { sameSeen += 1 }
            }
        }
        #expect(ConflictPromptClient.sameBuffer(reserved, emptied) && ConflictPromptClient.sameBuffer(a, shared))
        #expect(!ConflictPromptClient.sameBuffer(a, equalElsewhere) && !ConflictPromptClient.sameBuffer([], a))
        #expect(sameSeen > arrays.count)
    }
}

extension ConflictPromptClient {
    /// `learn` as it was: every entry compared (and its version written) one by one.
    mutating func learnEntryByEntry(_ snap: CPSnapshot) {
        for (entry, v) in zip(snap.result.entries, snap.versions) where v >= version(entry.id) {
            setKnown(entry.id, entry.record)
            setVersion(entry.id, v)
        }
    }
}
