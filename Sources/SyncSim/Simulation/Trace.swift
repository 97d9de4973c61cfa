/// The trace: every event the simulator delivers, with its virtual time. A run is identified by
/// the `StableHasher` hash (fed a word at a time) of the canonical encoding of its trace; the
/// rendered lines (kept only when asked: replays, reports) are the story a person reads.
public enum TraceMode: Sendable {
    /// Hash only: what fuzzing needs, and fast.
    case hashOnly
    /// Hash and rendered lines.
    case full
}

/// What one trace line is about; the sequence diagram draws lanes and arrows from these.
public enum TraceKind: String, Sendable, Codable {
    case action, admin, network, send, deliver, lose, connect, timer, event, applied, refused, heal, violation
}

/// One rendered line of the story.
public struct TraceLine: Sendable, Hashable, Codable {
    public var time: Int64
    public var kind: TraceKind
    /// The client lane involved (nil: server only).
    public var client: Int?
    /// For messages: a run-unique id, to pair `send` with `deliver`/`lose`.
    public var message: UInt32?
    /// For messages: true when client → server.
    public var upward: Bool?
    /// Short label (arrow text).
    public var label: String
    /// The full sentence.
    public var text: String
}

/// Records the trace: hashes every event; keeps lines in `.full` mode.
@usableFromInline
struct TraceRecorder {
    @usableFromInline let mode: TraceMode
    @usableFromInline var hasher = StableHasher()
    @usableFromInline var lines: [TraceLine] = []
    @usableFromInline var count = 0

    @usableFromInline init(mode: TraceMode) { self.mode = mode }

    @inlinable var keepsLines: Bool { mode == .full }

    @inlinable @inline(__always)
    mutating func begin(_ time: Int64, _ code: UInt8) {
        count &+= 1
        hasher.combine(time)
        hasher.byte(code)
    }

    @usableFromInline
    mutating func line(_ time: Int64, _ kind: TraceKind, client: ClientID?, message: UInt32? = nil,
                       upward: Bool? = nil, label: String, _ text: String) {
        lines.append(TraceLine(time: time, kind: kind, client: client?.index, message: message,
                               upward: upward, label: label, text: text))
    }
}
