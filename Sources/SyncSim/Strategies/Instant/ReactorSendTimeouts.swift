/// The send timeouts of Reactor's pending mutations (Reactor.js `_sendMutation`, `_trySend`),
/// shared by every client that talks to the InstantDB server (`instant`, `fullEntity`,
/// `sharedDiff`).
///
/// | rule | source |
/// |---|---|
/// | each send sets a timer of max(base, min(inFlight + 1, stored + 1) × base), computed before the send counts as in flight; base is `sendTimeoutMs` (6 s) | `_sendMutation` |
/// | inFlight: transacts sent on this connection without an answer; sending `init` clears it | `_inFlightMutationEventIds`, `_trySend` |
/// | stored: every stored mutation, confirmed ones included | `_pendingMutations().size` |
/// | a re-send sets a new timer and leaves the earlier ones running (no handle is kept) | `_sendMutation` |
///
/// Once a mutation has its answer its timers are cancelled here; Reactor leaves them running and
/// their firing finds the mutation confirmed or gone, so the outcomes are the same.
struct ReactorSendTimeouts: Sendable, Hashable {
    /// (timer, event id), in the order they were set.
    private(set) var timers: [Pending] = []
    /// Event ids sent on this connection and not answered yet.
    private(set) var inFlight: [UInt64] = []

    struct Pending: Sendable, Hashable {
        var timer: TimerID
        var eventID: UInt64
    }

    /// `init` was sent: a new connection has nothing in flight.
    mutating func connectionStarted() { inFlight.removeAll() }

    /// A transact for `eventID` is being sent with `stored` mutations stored: the timer to set.
    mutating func sending(_ eventID: UInt64, stored: Int, baseMs: Int64, timer: TimerID) -> Int64 {
        let ms = max(baseMs, Int64(min(inFlight.count + 1, stored + 1)) * baseMs)
        if !inFlight.contains(eventID) { inFlight.append(eventID) }
        timers.append(Pending(timer: timer, eventID: eventID))
        return ms
    }

    /// The mutation has its answer (ok, error, or its timeout rejected it): nothing more to wait for.
    mutating func answered(_ eventID: UInt64, out: inout ClientOutbox<InstantUp>) {
        if let i = inFlight.firstIndex(of: eventID) { inFlight.remove(at: i) }
        // One pass that cancels this event's timers in the order they were set and closes the
        // gaps as it goes: removing each one where it lies would move the rest of the list once
        // per removal (the list holds every re-send's timer still running).
        guard let first = timers.firstIndex(where: { $0.eventID == eventID }) else { return }
        out(.cancelTimer(timers[first].timer))
        var kept = first
        for r in (first + 1)..<timers.count {
            let p = timers[r]
            if p.eventID == eventID {
                out(.cancelTimer(p.timer))
            } else {
                timers[kept] = p
                kept += 1
            }
        }
        timers.removeLast(timers.count - kept)
    }

    /// A timer fired: the event id it was set for, if it is one of ours.
    mutating func fired(_ t: TimerID) -> UInt64? {
        guard let i = timers.firstIndex(where: { $0.timer == t }) else { return nil }
        return timers.remove(at: i).eventID
    }
}
