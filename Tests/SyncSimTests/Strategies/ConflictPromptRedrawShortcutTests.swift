import Testing
@testable import SyncSim

/// An answer redraws only the lists it changed when nothing else a list is drawn from changed
/// since the last redraw of them all (`ConflictPromptClient.refreshViews`' `touched`). Every
/// input is also handled on a copy that redraws every list (`refreshedAt` forgotten): the
/// effects and every list's result must be the same. And the shortcut must still be taken:
/// the client counts the lists it left (`shortcuts.listsLeft`), so a change that silently
/// stopped it (the results stay right, only slower) fails here.
@Suite("ConflictPrompt redraw shortcut")
struct ConflictPromptRedrawShortcutTests {
    enum LeftListsCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            guard case .received(.results) = input else {
                inner.handle(input, now: now, out: &out)
                return
            }
            var all = inner
            all.refreshedAt = nil
            let left = inner.shortcuts.listsLeft
            let start = out.count
            inner.handle(input, now: now, out: &out)
            var redrawn = ClientOutbox<ConflictPromptUp>()
            all.handle(input, now: now, out: &redrawn)
            if all.shortcuts.listsLeft != left { log.diverged("\(inner.id) at \(now): a redraw with `refreshedAt` forgotten left a list") }
            log.checked(reused: inner.shortcuts.listsLeft > left)
            if Array(out.effects[start...]) != redrawn.effects {
                log.diverged("\(inner.id) at \(now) after \(input): effects \(Array(out.effects[start...])), with every list redrawn \(redrawn.effects)")
            }
            for (v, w) in zip(inner.views, all.views) where v.sub != w.sub || v.shown != w.shown {
                log.diverged("\(inner.id) \(v.sub) at \(now) after \(input): shows \(v.shown?.summary ?? "nil"), with every list redrawn \(w.shown?.summary ?? "nil")")
            }
        }
    }

    @Test func answersLeaveTheListsTheyDidNotChangeAndDrawTheSame() throws {
        let log = DivergenceLog()
        let changed = try ConflictPromptSharedListTests.run(LeftListsCheck.self, log)
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 50, "few answers left a list as it was: \(log.reused) of \(log.checks) answers")
    }
}
