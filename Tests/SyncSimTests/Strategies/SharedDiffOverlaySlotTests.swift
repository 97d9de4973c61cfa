import Testing
@testable import SyncSim

/// `SharedDiffClient.OverlaySlot`: copies of a client share their collections' overlay boxes,
/// and no copy sees another's writes.
@Suite("SharedDiff overlay slot")
struct SharedDiffOverlaySlotTests {
    /// Before every input, a copy of the client is kept with what each of its overlays holds;
    /// after the input ran on the client, the copy's overlays must hold exactly that.
    enum CopiesKeepTheirOverlays: SharedDiffCheck {
        static func state(_ c: SharedDiffClient) -> [String] {
            c.collections.map { col in
                guard let o = col.overlay else { return "none" }
                return "\(o.generation) \(o.saves.count) \(o.dirty) \(o.store.records.count) \(o.evaluated?.result.summary ?? "-")"
            }
        }

        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            let copy = inner
            let before = state(copy)
            inner.handle(input, now: now, out: &out)
            log.checked(reused: state(inner) != before)
            if state(copy) != before { log.diverged("\(inner.id) at \(now) after \(input): a copy's overlay changed") }
        }
    }

    @Test func aCopyOfTheClientKeepsItsOverlays() throws {
        let log = DivergenceLog()
        try CheckedSharedDiff<CopiesKeepTheirOverlays>.runGenerated(seeds: 0..<4, actions: 120, log: log)
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        // Not vacuous: the client's own overlays changed on many inputs.
        #expect(log.reused > 100)
    }

    @Test func aCollectionsCopyWritesItsOwnBox() {
        var c = SharedDiffClient.Collection(key: .subscription(SubscriptionID(1)), query: Query(.todos))
        c.overlay = SharedDiffOverlay(base: .empty)
        let d = c
        #expect(d.slot === c.slot)
        c.overlay = nil
        #expect(d.overlay != nil && c.overlay == nil)
        #expect(d.slot !== c.slot)
    }
}
