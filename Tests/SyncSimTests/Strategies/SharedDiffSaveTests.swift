import Testing
@testable import SyncSim

/// `SharedDiffClient.tracked(_:notIn:)`, which marks ids through one buffer, lists exactly the
/// tracked ids of a namespace that a collection's value does not show (`tracked(_:)` filtered).
@Suite("SharedDiff save")
struct SharedDiffSaveTests {
    /// Before every save, for each namespace it is due for, the marked list against the sorted
    /// union of the answers' ids filtered by the collection's value.
    enum TrackedMatchesFiltered: SharedDiffCheck {
        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            if case .timerFired(let t) = input, t.raw & SharedDiffClient.saveTimerBit != 0 {
                let s = SubscriptionID(t.raw & ~SharedDiffClient.saveTimerBit)
                if let c = inner.collections.first(where: { $0.key == .subscription(s) }), let own = c.shown {
                    for ns in c.saveDue {
                        let marked = inner.tracked(ns, notIn: own)
                        let filtered = inner.tracked(ns).filter { !own.contains($0) }
                        log.checked(reused: !marked.isEmpty)
                        if marked != filtered { log.diverged("\(inner.id) \(c.key) \(ns) at \(now): \(marked) ≠ \(filtered)") }
                    }
                }
            }
            inner.handle(input, now: now, out: &out)
        }
    }

    @Test func generatedRunsDeleteWhatTheFilteredListDeletes() throws {
        let log = DivergenceLog()
        try CheckedSharedDiff<TrackedMatchesFiltered>.runGenerated(seeds: 0..<8, actions: 150, log: log)
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        // Not vacuous: saves were compared, and some of them deleted something.
        #expect(log.checks > 200)
        #expect(log.reused > 5)
    }
}
