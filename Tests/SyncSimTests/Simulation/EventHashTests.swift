import Testing
@testable import SyncSim

/// The trace hash records each user event as its description; the fast path must feed the
/// hasher exactly the same bytes.
@Suite struct EventHashTests {
    static func viaDescription(_ e: UserEvent) -> UInt64 {
        var h = StableHasher()
        h.combine(e.description)
        return h.value
    }

    static func viaFastPath(_ e: UserEvent) -> UInt64 {
        var h = StableHasher()
        e.hashDescription(into: &h)
        return h.value
    }

    @Test func fastPathMatchesDescription() {
        let ids: [UInt32] = [0, 1, 9, 10, 99, 100, 12345, UInt32.max]
        var events: [UserEvent] = []
        for x in ids {
            for r in [RejectReason.timeout, .queueFull, .conflictDiscarded, .serverError("boom"), .invalid("bad")] {
                events.append(.writeRejected(WriteID(x), r))
            }
            events.append(.writeConfirmed(WriteID(x)))
            events.append(.subscriptionYielded(SubscriptionID(x), fromCache: false))
            events.append(.subscriptionYielded(SubscriptionID(x), fromCache: true))
            events.append(.queryOnceResult(QueryRequestID(x)))
            for off in [false, true] { for stale in [false, true] { events.append(.queryOnceFailed(QueryRequestID(x), offline: off, hasStaleResult: stale)) } }
            for off in [false, true] { events.append(.queryOnceFailedWithResult(QueryRequestID(x), offline: off, lastKnown: .empty)) }
            for y in ids { events.append(.conflictRaised(ConflictID(x), EntityID(y))) }
        }
        events.append(.notice("sync failed"))
        events.append(.invalidInput("connected while closed"))
        for e in events {
            #expect(Self.viaFastPath(e) == Self.viaDescription(e), "\(e)")
        }
        // The failure carrying the last known result hashes as the stale-flag form does, so
        // attaching the result left every trace hash as it was.
        let carried = UserEvent.queryOnceFailedWithResult(QueryRequestID(3), offline: true, lastKnown: .empty)
        #expect(Self.viaFastPath(carried) == Self.viaFastPath(.queryOnceFailed(QueryRequestID(3), offline: true, hasStaleResult: true)))
    }

    /// The length, then the UTF-8 bytes as little-endian words, the last one zero-padded.
    @Test func stringHashIsLengthPrefixedUTF8() {
        for s in ["", "a", "Te", "héllo wörld", String(repeating: "x", count: 100), "emoji 🎉"] {
            var a = StableHasher()
            a.combine(s)
            var b = StableHasher()
            b.combine(UInt64(s.utf8.count))
            let bytes = Array(s.utf8)
            for start in stride(from: 0, to: bytes.count, by: 8) {
                var w: UInt64 = 0
                for (k, x) in bytes[start..<min(start + 8, bytes.count)].enumerated() { w |= UInt64(x) << UInt64(8 * k) }
                b.combine(w)
            }
            #expect(a.value == b.value)
        }
    }
}
