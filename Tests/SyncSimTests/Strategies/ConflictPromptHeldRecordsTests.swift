import Testing
@testable import SyncSim

/// An answer for lists with pending entities holds back the records it changed
/// (`ConflictPromptClient.receive`: the pending entities whose record differs between a list's
/// answer and the new one are found once per pair of answers, not once per list). After every
/// answer of generated runs, each list's held records must be what the rule applied to that list
/// alone gives: the pending entities it did not hold yet whose record the answer changed, with the
/// record before, added to those it still holds.
@Suite("ConflictPrompt held records")
struct ConflictPromptHeldRecordsTests {
    enum HeldCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            guard case .received(.results(let ids, let snaps, _)) = input, ids.count == snaps.count else {
                inner.handle(input, now: now, out: &out)
                return
            }
            // The rule, list by list, on the state before the answer.
            let pending = inner.pendingEntities()
            var lists = inner.views.map { (sub: $0.sub, base: $0.base, holds: $0.holds) }
            var held = 0
            for (s, snap) in zip(ids, snaps) {
                guard let i = lists.firstIndex(where: { $0.sub == s }), snap.versions.count == snap.result.entries.count else { continue }
                if let b = lists[i].base, snap.asOf < b.asOf { continue }
                lists[i].holds.removeAll { !pending.contains($0.entity) }
                if let old = lists[i].base, !CPListRender.sameBuffers(old.result, snap.result) {
                    for e in pending where !lists[i].holds.contains(where: { $0.entity == e }) {
                        let before = old.result.record(e)
                        if before != snap.result.record(e) {
                            lists[i].holds.append(ConflictPromptClient.Hold(entity: e, record: before))
                            held += 1
                        }
                    }
                    lists[i].holds.sort { $0.entity < $1.entity }
                }
                lists[i].base = snap
            }
            inner.handle(input, now: now, out: &out)
            log.checked(reused: held > 0)
            for (l, v) in zip(lists, inner.views) where l.sub != v.sub || l.holds != v.holds {
                log.diverged("\(inner.id) \(v.sub) at \(now) after \(input): holds \(v.holds.map(\.entity)), list by list \(l.holds.map(\.entity))")
            }
        }
    }

    @Test func heldRecordsMatchTheRuleListByList() throws {
        let log = DivergenceLog()
        var changed: [String] = []
        for (config, seeds) in ConflictPromptSharedListTests.configs() {
            for seed in seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                let checked = try Simulator.run(CheckedConflictPrompt<HeldCheck>(log: log), schedule, seed: seed)
                let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
                if checked.traceHash != plain.traceHash { changed.append("seed \(seed)") }
            }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 10, "few answers held records back: \(log.reused) of \(log.checks)")
    }
}
