import Testing
@testable import SyncSim

/// The conflictPrompt client's incremental rendering (a list's store kept and extended when only
/// queue entries were appended, the view patched where they touched) gives exactly what laying
/// the whole queue over the server's answer again gives.
@Suite("ConflictPrompt render")
struct ConflictPromptRenderTests {
    /// Every input also handled on a copy with its render caches dropped (so that copy renders
    /// every list from scratch); any difference is logged.
    enum RenderCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            var scratch = inner
            let reused = scratch.hasRenderCaches
            scratch.dropRenderCaches()
            let start = out.count
            inner.handle(input, now: now, out: &out)
            var fromScratch = ClientOutbox<ConflictPromptUp>()
            scratch.handle(input, now: now, out: &fromScratch)
            log.checked(reused: reused)
            if Array(out.effects[start...]) != fromScratch.effects {
                log.diverged("\(inner.id) at \(now) after \(input): effects differ from the rebuild's: \(Array(out.effects[start...])) vs \(fromScratch.effects)")
            }
            for (v, s) in zip(inner.views, scratch.views) where v.shown != s.shown {
                log.diverged("\(inner.id) \(v.sub) at \(now) after \(input): shows \(v.shown?.summary ?? "nil"), rebuilt \(s.shown?.summary ?? "nil")")
            }
            // The kept state itself, wherever the scratch copy built it in this step: a slot
            // that differs would show only later, if ever.
            for (v, s) in zip(inner.views, scratch.views) {
                guard let a = v.render, let b = s.render else { continue }
                if a.store != b.store || a.under != b.under || a.eval != b.eval || a.showsEval != b.showsEval {
                    log.diverged("\(inner.id) \(v.sub) at \(now) after \(input): kept render state differs from the rebuild's")
                }
                }
        }
    }

    /// Runs `seeds` of `config` checked and plain; returns the checks made.
    static func compare(_ config: WorkloadGenerator.Config, seeds: Range<UInt64>, _ log: DivergenceLog) throws -> [String] {
        var hashes: [String] = []
        for seed in seeds {
            let schedule = WorkloadGenerator(config).generate(seed: seed)
            let checked = try Simulator.run(CheckedConflictPrompt<RenderCheck>(log: log), schedule, seed: seed)
            let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
            if checked.traceHash != plain.traceHash { hashes.append("seed \(seed)") }
        }
        return hashes
    }

    @Test func generatedRunsMatchTheRenderFromScratch() throws {
        let log = DivergenceLog()
        let hashes = try Self.compare(.init(actions: 150), seeds: 0..<6, log)
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(hashes.isEmpty, "the checking wrapper changed the run: \(hashes)")
        #expect(log.checks > 500)
        #expect(log.reused > 50)
    }

    /// Long queues (offline stretches without swarm), deletes and links among queued rows,
    /// merged conflicts and dropped rows, the richer query forms and the blog's include trees:
    /// the incremental redraw replays only part of the overlay, and these are where it could
    /// differ from laying all of it again.
    @Test func longAndRichRunsMatchTheRenderFromScratch() throws {
        let log = DivergenceLog()
        var long = WorkloadGenerator.Config(actions: 400, swarm: false)
        long.userChoices = true
        var rich = WorkloadGenerator.Config(actions: 150)
        rich.richQueries = true
        rich.bulk = true
        rich.userChoices = true
        var blog = WorkloadGenerator.Config(actions: 150, schema: .blog)
        blog.userChoices = true
        var hashes = try Self.compare(long, seeds: 0..<2, log)
        hashes += try Self.compare(rich, seeds: 0..<4, log)
        hashes += try Self.compare(blog, seeds: 0..<4, log)
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(hashes.isEmpty, "the checking wrapper changed the run: \(hashes)")
        #expect(log.reused > 500)
    }
}
