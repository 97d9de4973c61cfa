/// A write the user asked for: the unit every oracle reasons about.
public struct UserWrite: Hashable, Sendable, CustomStringConvertible {
    public var id: WriteID
    public var ops: [Op]
    /// Set when the write is one keystroke of a rapid-typing burst.
    public var burst: UInt32?

    public init(id: WriteID, ops: [Op], burst: UInt32? = nil) {
        self.id = id
        self.ops = ops
        self.burst = burst
    }

    public var description: String { ops.map(\.description).joined(separator: "; ") }
}

/// A one-shot read's handle.
public struct QueryRequestID: Hashable, Sendable, CustomStringConvertible {
    public let raw: UInt32
    public init(_ raw: UInt32) { self.raw = raw }
    public var description: String { "q\(raw)" }
}

/// A conflict a strategy put before the user (seed 003 and seed 004 §5).
public struct ConflictID: Hashable, Sendable, CustomStringConvertible {
    public let raw: UInt32
    public init(_ raw: UInt32) { self.raw = raw }
    public var description: String { "conflict\(raw)" }
}

/// The user's answer to a conflict prompt.
public enum ConflictChoice: String, Hashable, Sendable, Codable, CaseIterable {
    /// Keep my local change: the strategy forces it onto the server.
    case keepLocal
    /// Keep the server's version: the strategy drops my local change.
    case keepServer
}

/// What the user does on a client, as delivered to the client machine.
public enum UserCommand: Hashable, Sendable, CustomStringConvertible {
    case write(UserWrite)
    case subscribe(SubscriptionID, Query)
    case unsubscribe(SubscriptionID)
    case queryOnce(QueryRequestID, Query)
    case resolveConflict(ConflictID, ConflictChoice)
    /// Force sync (seed 004 §3): `keepServer` = force from server (discard local changes),
    /// `keepLocal` = force push local changes over the server.
    case forceSync(ConflictChoice)

    public var description: String {
        switch self {
        case .write(let w): return w.description
        case .subscribe(let s, let q): return "subscribes \(s) to \(q)"
        case .unsubscribe(let s): return "unsubscribes \(s)"
        case .queryOnce(let r, let q): return "queryOnce \(r) \(q)"
        case .resolveConflict(let c, let ch): return "resolves \(c): \(ch.rawValue)"
        case .forceSync(let ch): return ch == .keepServer ? "forces sync from server" : "forces push to server"
        }
    }
}

/// Why a write was refused; the user was told.
public enum RejectReason: Hashable, Sendable, CustomStringConvertible {
    case timeout
    case serverError(String)
    case queueFull
    case conflictDiscarded
    case invalid(String)

    public var description: String {
        switch self {
        case .timeout: return "timeout"
        case .serverError(let s): return "server error: \(s)"
        case .queueFull: return "queue full"
        case .conflictDiscarded: return "discarded by conflict resolution"
        case .invalid(let s): return "invalid: \(s)"
        }
    }
}

/// Something the user can see. The invariants judge strategies by these and by final states.
public enum UserEvent: Hashable, Sendable, CustomStringConvertible {
    /// The write will not reach the server, and the user was told.
    case writeRejected(WriteID, RejectReason)
    /// The server confirmed the write (optional for strategies; informational).
    case writeConfirmed(WriteID)
    /// A subscription delivered a result to the UI (`fromCache`: before any server answer).
    case subscriptionYielded(SubscriptionID, fromCache: Bool)
    case queryOnceResult(QueryRequestID)
    /// A one-shot read failed; `offline` marks the dedicated offline error; a stale last-known
    /// result may be attached.
    case queryOnceFailed(QueryRequestID, offline: Bool, hasStaleResult: Bool)
    /// The strategy asks the user to choose; the simulated user answers after a think time.
    case conflictRaised(ConflictID, EntityID)
    /// Anything else the user is shown (e.g. a sync failure banner).
    case notice(String)
    /// A machine received input it cannot process: reported as a value, never a crash.
    case invalidInput(String)

    public var description: String {
        switch self {
        case .writeRejected(let w, let r): return "is told \(w) was rejected (\(r))"
        case .writeConfirmed(let w): return "sees \(w) confirmed"
        case .subscriptionYielded(let s, let c): return "\(s) yields" + (c ? " (from cache)" : "")
        case .queryOnceResult(let q): return "\(q) returns a result"
        case .queryOnceFailed(let q, let off, let stale):
            return "\(q) fails" + (off ? " (offline)" : "") + (stale ? " with a stale result" : "")
        case .conflictRaised(let c, let e): return "is asked to resolve \(c) on entity \(e.raw)"
        case .notice(let s): return "sees notice: \(s)"
        case .invalidInput(let s): return "reports invalid input: \(s)"
        }
    }
}

extension UserWrite: StableHashable {
    public func stableHash(into h: inout StableHasher) {
        h.combine(id.raw)
        h.combine(ops.count)
        for op in ops { op.stableHash(into: &h) }
        h.combine(burst.map { Int($0) } ?? -1)
    }
}
