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
    /// Merge both (seed 003 "Open Questions": text content only; seed 004 §5.3's [Merge]): the
    /// strategy defines the merged data. A strategy that offers no merge answers it with a value
    /// (`invalidInput` or a notice), never a crash.
    case merge
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
    /// A plain manual "sync now" (seed 004 §2.2: "Manual 'sync now': user-triggered sync"):
    /// sync at once, nothing forced. A strategy without such a button answers `.invalidInput`.
    case syncNow
    /// Seed 003 "Queue overflow policy": the user-initiated "Drop oldest" of the pending-writes
    /// view, which prunes the oldest queued write (the user then retries their write). A
    /// strategy without a user-visible queue answers it with a value.
    case dropOldestWrite
    /// Seed 000's user change / seed 004's tenant switch, handed only to a strategy whose
    /// `tenancy` is `.oneDatabase` (the simulator has just closed its connection): from now on
    /// the client acts for `tenant`; its cache and queue must no longer show or send anything of
    /// the previous one (clear them, as InstantDB does, or partition them).
    case switchTenant(TenantID)
    /// The user logs out (`.oneDatabase` only): the current tenant's local data is dropped; the
    /// simulator refuses the client's connections and skips its user actions until the next
    /// `switchTenant`.
    case logout

    public var description: String {
        switch self {
        case .write(let w): return w.description
        case .subscribe(let s, let q): return "subscribes \(s) to \(q)"
        case .unsubscribe(let s): return "unsubscribes \(s)"
        case .queryOnce(let r, let q): return "queryOnce \(r) \(q)"
        case .resolveConflict(let c, let ch): return "resolves \(c): \(ch.rawValue)"
        case .forceSync(let ch): return ch == .keepServer ? "forces sync from server" : ch == .keepLocal ? "forces push to server" : "forces a merging sync"
        case .syncNow: return "syncs now"
        case .dropOldestWrite: return "drops the oldest queued write"
        case .switchTenant(let t): return "switches to \(t)"
        case .logout: return "logs out"
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
    /// A one-shot read failed with the last known result attached (seed 000 §4.1: the Swift SDK
    /// attaches it to the offline error; callers must treat it as stale). Told as
    /// `queryOnceFailed` with a stale result is, with the result itself, so the oracles can judge
    /// it (`queryOnceOfflineFails`: it must be a result the client knew). Its text and trace
    /// hash are the flag form's; the story shows the result.
    case queryOnceFailedWithResult(QueryRequestID, offline: Bool, lastKnown: QueryResult)

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
        case .queryOnceFailedWithResult(let q, let off, _):
            return UserEvent.queryOnceFailed(q, offline: off, hasStaleResult: true).description
        }
    }

    /// A failed one-shot read, in either form: the request, whether it is the offline error,
    /// whether a stale result came with it, and that result when the event carries it.
    public var queryOnceFailure: (request: QueryRequestID, offline: Bool, stale: Bool, lastKnown: QueryResult?)? {
        switch self {
        case .queryOnceFailed(let q, let off, let stale): return (q, off, stale, nil)
        case .queryOnceFailedWithResult(let q, let off, let r): return (q, off, true, r)
        default: return nil
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

extension UserEvent {
    /// Feeds the hasher exactly what `h.combine(description)` feeds it (the UTF-8 length, then the
    /// bytes) without formatting a `String` for the common events; the rest fall back to
    /// `description`. The trace hash records every event this way, so it must stay byte-identical.
    @usableFromInline
    func hashDescription(into h: inout StableHasher) {
        var b = DescriptionBytes()
        switch self {
        case .writeRejected(let w, let r):
            switch r {
            case .timeout, .queueFull, .conflictDiscarded:
                b.append("is told w"); b.append(w.raw); b.append(" was rejected (")
                switch r {
                case .timeout: b.append("timeout")
                case .queueFull: b.append("queue full")
                default: b.append("discarded by conflict resolution")
                }
                b.append(")")
            default:
                h.combine(description); return
            }
        case .writeConfirmed(let w): b.append("sees w"); b.append(w.raw); b.append(" confirmed")
        case .subscriptionYielded(let s, let c):
            b.append("sub"); b.append(s.raw); b.append(" yields")
            if c { b.append(" (from cache)") }
        case .queryOnceResult(let q): b.append("q"); b.append(q.raw); b.append(" returns a result")
        case .queryOnceFailed(let q, let off, let stale):
            b.append("q"); b.append(q.raw); b.append(" fails")
            if off { b.append(" (offline)") }
            if stale { b.append(" with a stale result") }
        case .queryOnceFailedWithResult(let q, let off, _):
            b.append("q"); b.append(q.raw); b.append(" fails")
            if off { b.append(" (offline)") }
            b.append(" with a stale result")
        case .conflictRaised(let c, let e):
            b.append("is asked to resolve conflict"); b.append(c.raw); b.append(" on entity "); b.append(e.raw)
        case .notice, .invalidInput:
            h.combine(description); return
        }
        b.hash(into: &h)
    }
}

/// A small fixed buffer of ASCII bytes (the longest common event text is well under its size).
struct DescriptionBytes {
    var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    static let capacity = 128

    @inline(__always) mutating func byte(_ x: UInt8) {
        precondition(count < Self.capacity)
        withUnsafeMutableBytes(of: &bytes) { $0[count] = x }
        count += 1
    }

    @inline(__always) mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { for x in $0 { byte(x) } }
    }

    /// Decimal, as `"\(x)"` prints it.
    mutating func append(_ x: UInt32) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        var v = x
        withUnsafeMutableBytes(of: &digits) { d in
            repeat { d[n] = UInt8(truncatingIfNeeded: v % 10) &+ 48; v /= 10; n += 1 } while v > 0
            while n > 0 { n -= 1; byte(d[n]) }
        }
    }

    /// What `StableHasher.combine(_: String)` feeds for the same text: the length, then the
    /// bytes as little-endian words (the bytes past `count` are zero, as its padding is).
    func hash(into h: inout StableHasher) {
        h.combine(UInt64(count))
        var copy = bytes
        withUnsafeBytes(of: &copy) { raw in
            var i = 0
            while i < count {
                h.combine(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                i += 8
            }
        }
    }
}
