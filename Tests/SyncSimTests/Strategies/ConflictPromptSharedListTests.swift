import Testing
@testable import SyncSim

/// Lists of one query share their work: the server keeps one result per distinct query and
/// answers every list of it with one snapshot value, and the client draws the first list of a
/// query over an answer and lets the later ones take its result (`refreshViews`), learning and
/// remembering a repeated snapshot once. These compare both shortcuts with the forms they
/// replaced on generated runs.
@Suite("ConflictPrompt shared lists")
struct ConflictPromptSharedListTests {
    /// After every input, every list shows what drawing it from scratch gives
    /// (`ConflictPromptClient.render`, which shares nothing between lists).
    enum FollowCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            inner.handle(input, now: now, out: &out)
            let pending = inner.pendingEntities()
            for v in inner.views {
                guard let base = v.base, let shown = v.shown else { continue }
                log.checked(reused: v.render == nil)
                let scratch = ConflictPromptClient.render(v, base, pending, unlessEqualTo: nil, confirmed: inner.confirmed,
                                                          queue: inner.queue, known: inner.known, schema: inner.schema)!
                if scratch != shown {
                    log.diverged("\(inner.id) \(v.sub) at \(now) after \(input): shows \(shown.summary), from scratch \(scratch.summary)")
                }
            }
        }
    }

    /// For every answer, learning and remembering every snapshot against skipping the repeats
    /// the client skips (the same value in the same storage for a list of the same query).
    enum RepeatCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            if case .received(.results(let ids, let snaps, _)) = input, ids.count == snaps.count {
                var every = inner, once = inner
                var learnt: [(query: Query, snap: Int)] = []
                for (n, (s, snap)) in zip(ids, snaps).enumerated() {
                    guard let v = inner.views.first(where: { $0.sub == s }) else { continue }
                    every.learn(snap)
                    every.remember(v.query, snap)
                    if learnt.contains(where: { $0.query == v.query && ConflictPromptClient.same(snaps[$0.snap], snap) }) {
                        log.checked(reused: true)
                        continue
                    }
                    learnt.append((v.query, n))
                    once.learn(snap)
                    once.remember(v.query, snap)
                }
                if every.known != once.known || every.knownVersion != once.knownVersion || every.knownLog != once.knownLog
                    || every.cache != once.cache {
                    log.diverged("\(inner.id) at \(now) after \(input): learning the repeated snapshots again changes the client")
                }
            }
            inner.handle(input, now: now, out: &out)
        }
    }

    static func configs() -> [(WorkloadGenerator.Config, Range<UInt64>)] {
        var long = WorkloadGenerator.Config(actions: 400, swarm: false)
        long.userChoices = true
        var rich = WorkloadGenerator.Config(actions: 150)
        rich.richQueries = true
        rich.bulk = true
        rich.userChoices = true
        var blog = WorkloadGenerator.Config(actions: 150, schema: .blog)
        blog.userChoices = true
        return [(long, 0..<2), (rich, 0..<3), (blog, 0..<3), (.init(actions: 150), 0..<3)]
    }

    static func run<Check: ConflictPromptCheck>(_: Check.Type, _ log: DivergenceLog) throws -> [String] {
        var changed: [String] = []
        for (config, seeds) in configs() {
            for seed in seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                let checked = try Simulator.run(CheckedConflictPrompt<Check>(log: log), schedule, seed: seed)
                let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
                if checked.traceHash != plain.traceHash { changed.append("seed \(seed)") }
            }
        }
        return changed
    }

    @Test func listsThatFollowAnotherShowWhatDrawingThemFromScratchGives() throws {
        let log = DivergenceLog()
        let changed = try Self.run(FollowCheck.self, log)
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 100, "few lists followed another: \(log.reused) of \(log.checks)")
    }

    @Test func repeatedSnapshotsLearntOnceLeaveTheClientAsLearningThemAgain() throws {
        let log = DivergenceLog()
        let changed = try Self.run(RepeatCheck.self, log)
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 50, "few repeated snapshots: \(log.reused)")
    }
}
