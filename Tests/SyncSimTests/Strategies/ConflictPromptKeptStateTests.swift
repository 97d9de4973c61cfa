import Testing
@testable import SyncSim

/// What the conflictPrompt client keeps beside its state so that a redraw or a yield need not
/// derive it again: the queue's pending writes (`pendingWriteList`), each list's query group
/// (`View.group`) and its answer's storage words (`View.answer`), the pending entities
/// (`pendingSet`, kept where rows come and go) and each kept render's
/// chunk words (`CPListRender.chunkIDs`). After every input of generated runs each equals what
/// deriving it from scratch gives, the lists ascend by subscription (what the lookups by binary
/// search rely on), and each list's held records ascend by entity (`receive` sorts them only
/// when it adds one).
@Suite("ConflictPrompt kept state")
struct ConflictPromptKeptStateTests {
    enum KeptCheck: ConflictPromptCheck {
        static func check(_ inner: inout ConflictPromptClient, _ input: ClientInput<ConflictPromptDown>, now: Int64,
                          out: inout ClientOutbox<ConflictPromptUp>, log: DivergenceLog) {
            inner.handle(input, now: now, out: &out)
            log.checked(reused: !inner.pendingWriteList.isEmpty)
            if inner.pendingWriteList != inner.queue.flatMap(\.writes) {
                log.diverged("\(inner.id) at \(now) after \(input): kept pending writes \(inner.pendingWriteList), queue's \(inner.queue.flatMap(\.writes))")
            }
            let views = inner.views
            // `viewIndex(of:)` and `result(of:)` search the lists by binary search.
            for a in views.indices.dropFirst() where !(views[a - 1].sub < views[a].sub) {
                log.diverged("\(inner.id) at \(now) after \(input): lists not ascending by subscription: \(views.map(\.sub))")
            }
            for a in views.indices {
                if views[a].answer != CPAnswerID(views[a].base) {
                    log.diverged("\(inner.id) \(views[a].sub) at \(now) after \(input): kept answer words differ from its answer's")
                }
                for b in views.indices where (views[a].group == views[b].group) != (views[a].query == views[b].query) {
                    log.diverged("\(inner.id) \(views[a].sub) and \(views[b].sub) at \(now) after \(input): groups disagree with their queries")
                }
                let holds = views[a].holds
                for k in holds.indices.dropFirst() where !(holds[k - 1].entity < holds[k].entity) {
                    log.diverged("\(inner.id) \(views[a].sub) at \(now) after \(input): held records not ascending by entity")
                }
                if let r = views[a].render, r.chunkIDs != r.chunks.map({ CPListRender.storageID($0) }) {
                    log.diverged("\(inner.id) \(views[a].sub) at \(now) after \(input): kept chunk words differ from its chunks'")
                }
            }
            if inner.pendingSet.list != ConflictPromptClient.pendingEntities(of: inner.queue) {
                log.diverged("\(inner.id) at \(now) after \(input): kept pending entities \(inner.pendingSet.list), the queue's \(ConflictPromptClient.pendingEntities(of: inner.queue))")
            }
        }
    }

    @Test func keptStateMatchesWhatDerivingItGives() throws {
        let log = DivergenceLog()
        var changed: [String] = []
        for (config, seeds) in ConflictPromptSharedListTests.configs() {
            for seed in seeds {
                let schedule = WorkloadGenerator(config).generate(seed: seed)
                let checked = try Simulator.run(CheckedConflictPrompt<KeptCheck>(log: log), schedule, seed: seed)
                let plain = try Simulator.run(ConflictPromptStrategy(), schedule, seed: seed)
                if checked.traceHash != plain.traceHash { changed.append("seed \(seed)") }
            }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences.prefix(5))")
        #expect(changed.isEmpty, "the checking wrapper changed the run: \(changed)")
        #expect(log.reused > 100, "few inputs with pending writes: \(log.reused) of \(log.checks)")
    }
}
