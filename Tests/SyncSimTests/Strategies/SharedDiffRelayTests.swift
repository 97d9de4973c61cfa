import Testing
@testable import SyncSim

/// `SharedDiffOverlay.relay` against `lay`, on every overlay of generated runs: after each input,
/// each overlay with saves laid is copied twice and rolled back, and its saves are laid again,
/// in order, one copy with `relay` (which passes over untested every step that acted on nothing
/// before and reads no slot changed since, in one scan with `nextToRelay`) and the other with
/// `lay` (which tests every step). Both must give the same store, dirty slots, acting steps,
/// lookups and touched slots, and `relay` must have passed steps over (`relayPassed`).
@Suite("SharedDiff relay")
struct SharedDiffRelayTests {
    enum RelayIsLay: SharedDiffCheck {
        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            inner.handle(input, now: now, out: &out)
            for c in inner.collections {
                guard let o = c.overlay, !o.saves.isEmpty else { continue }
                // The scope a refresh would lay with now; a laying without one after one with one
                // is never a relay (`refresh`).
                var scope: SharedDiffNamespaceClaims.Scope?
                if !inner.claims.mixed {
                    scope = inner.claims.scope(reading: o.reads ?? OverlayStepFilter.namespaces(of: c.query, schema: inner.schema))
                }
                if scope == nil && o.laidScoped { continue }
                var relaid = o, laid = o
                var relaidTouched: [EntityID] = [], laidTouched: [EntityID] = []
                relaid.beginTouching()
                laid.beginTouching()
                relaid.rollBackSaves(touched: &relaidTouched)
                laid.rollBackSaves(touched: &laidTouched)
                for r in o.saves.indices {
                    relaid.relay(o.saves[r], acted: o.acting[r], collections: inner.collections, schema: inner.schema,
                                 touched: &relaidTouched, scope: scope)
                    laid.lay(o.saves[r], collections: inner.collections, schema: inner.schema, touched: &laidTouched,
                             scope: scope)
                }
                log.checked(reused: relaid.relayPassed > o.relayPassed)
                if relaid.store != laid.store || relaid.dirty != laid.dirty || relaid.acting != laid.acting
                    || relaid.lookups.map(\.id) != laid.lookups.map(\.id)
                    || relaid.lookups.map(\.record) != laid.lookups.map(\.record) || relaidTouched != laidTouched {
                    log.diverged("\(inner.id) \(c.key) at \(now) after \(input): relay acted \(relaid.acting), lay \(laid.acting)")
                }
            }
        }
    }

    @Test func relayingASaveIsLayingIt() throws {
        let log = DivergenceLog()
        try CheckedSharedDiff<RelayIsLay>.runGenerated(seeds: 0..<6, actions: 120, log: log)
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(log.checks > 500, "\(log.checks) overlays with saves compared")
        // Not vacuous: relays passed steps over untested.
        #expect(log.reused > 100, "relays passed steps over in \(log.reused) of \(log.checks) comparisons")
    }
}
