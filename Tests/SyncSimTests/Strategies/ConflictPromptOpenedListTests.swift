import Testing
@testable import SyncSim

/// A list opened while nothing the other lists are drawn from changed since they were last all
/// redrawn is drawn alone (`ConflictPromptClient.refreshOpened`): every subscribe is also
/// handled on a copy that redraws every list (`refreshedAt` forgotten), and the effects and
/// every list's result must be the same. Relaunches open every list again one by one, so the
/// generated runs take the single-list path many times (counted by the client where it takes
/// it, `shortcuts.openedAlone`, so the test fails if the path silently stops being taken).
@Suite("ConflictPrompt opened list")
struct ConflictPromptOpenedListTests {
    enum OpenedCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            guard case .user(.subscribe(let s, _)) = input else {
                inner.handle(input, now: now, out: &out)
                return
            }
            var all = inner
            all.refreshedAt = nil
            let opened = inner.shortcuts.openedAlone
            let start = out.count
            inner.handle(input, now: now, out: &out)
            var redrawn = ClientOutbox<ConflictPromptUp>()
            all.handle(input, now: now, out: &redrawn)
            // Counted where the list is drawn alone: the shortcut ran, not only its condition held.
            log.checked(reused: inner.shortcuts.openedAlone > opened)
            if Array(out.effects[start...]) != redrawn.effects {
                log.diverged("\(inner.id) at \(now) opening \(s): effects \(Array(out.effects[start...])), with every list redrawn \(redrawn.effects)")
            }
            for (v, w) in zip(inner.views, all.views) where v.sub != w.sub || v.shown != w.shown {
                log.diverged("\(inner.id) \(v.sub) at \(now) opening \(s): shows \(v.shown?.summary ?? "nil"), with every list redrawn \(w.shown?.summary ?? "nil")")
            }
        }
    }

    @Test func anOpenedListDrawnAloneMatchesRedrawingEveryList() throws {
        let log = DivergenceLog()
        var changed: [String] = []
        for (config, seeds) in ConflictPromptSharedListTests.configs() {
            for seed in seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                let checked = try Simulator.run(CheckedConflictPrompt<OpenedCheck>(log: log), schedule, seed: seed)
                let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
                if checked.traceHash != plain.traceHash { changed.append("seed \(seed)") }
            }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 50, "few lists opened alone: \(log.reused) of \(log.checks) subscribes")
    }
}
