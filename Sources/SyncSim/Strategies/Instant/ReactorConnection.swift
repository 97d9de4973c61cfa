/// The connection dimension of InstantDB's Reactor (seed 000 §2.1, §2.1.1; strategy-semantics
/// §9), shared by every client that talks to the InstantDB server (`instant`, `fullEntity`,
/// `sharedDiff`): the device's online flag, the socket status, and reconnect backoff.
///
/// | input | effect |
/// |---|---|
/// | device online | online; if the socket is closed, connect at once |
/// | device offline | offline, status closed, reconnect timer cancelled (no attempt while offline) |
/// | connected | status opened, send `init` |
/// | disconnected | status closed; if online, reconnect after 0, 1, 2 … 10 s |
/// | reconnect timer | if still closed, connect |
/// | `init-ok` | authenticated, backoff reset |
public struct ReactorConnection: Sendable, Hashable {
    /// The socket status (Reactor's STATUS).
    public enum Status: Sendable, Equatable, Hashable {
        case closed
        case connecting
        /// Socket open, `init` sent, waiting for `init-ok`.
        case opened
        case authenticated
    }

    public private(set) var online = false
    public private(set) var status = Status.closed
    var backoffAttempt = 0

    public static let reconnectTimer = TimerID(0)

    public init() {}

    /// True when mutations and queries may be sent now.
    public var canSend: Bool { status == .authenticated && online }

    public mutating func network(_ d: DeviceNetwork, out: inout ClientOutbox<InstantUp>) {
        switch d {
        case .online:
            online = true
            if status == .closed { startSocket(out: &out) }
        case .offline:
            online = false
            status = .closed
            out(.cancelTimer(Self.reconnectTimer))
        }
    }

    public mutating func connected(out: inout ClientOutbox<InstantUp>) {
        guard status == .connecting else { out(.event(.invalidInput("connected while \(status)"))); return }
        status = .opened
        out(.send(.initialize))
    }

    public mutating func disconnected(out: inout ClientOutbox<InstantUp>) {
        status = .closed
        guard online else { return }
        let delay = Int64(min(backoffAttempt, 10)) * 1_000
        backoffAttempt += 1
        out(.setTimer(Self.reconnectTimer, afterMs: delay))
    }

    public mutating func reconnectTimerFired(out: inout ClientOutbox<InstantUp>) {
        if status == .closed { startSocket(out: &out) }
    }

    /// Handles `init-ok`; false (with an invalid-input event) if it came out of turn.
    public mutating func initOk(out: inout ClientOutbox<InstantUp>) -> Bool {
        guard status == .opened else { out(.event(.invalidInput("init-ok while \(status)"))); return false }
        status = .authenticated
        backoffAttempt = 0
        return true
    }

    mutating func startSocket(out: inout ClientOutbox<InstantUp>) {
        guard online else { return }
        status = .connecting
        out(.connect)
    }
}
