/// The `reference` strategy's wire vocabulary. One request kind up (`sync`: push the pending
/// queue, pull what changed), two down (`sync-reply`, and `poke`: "something changed, pull").
/// Every message is self-contained and idempotent, so the datagram network may drop, duplicate
/// or reorder any of them.

/// A queued user write: its id (the idempotency key), its HLC stamp (fixed when the user made it,
/// reused on every retry) and its steps.
public struct ReferenceMutation: Hashable, Sendable, CustomStringConvertible, StableHashable {
    public var id: WriteID
    public var stamp: HLCTimestamp
    public var ops: [Op]

    public var description: String { "\(id)@\(stamp)" }

    public func stableHash(into h: inout StableHasher) {
        h.combine(id.raw); stamp.stableHash(into: &h); h.combine(ops.count)
        for op in ops { op.stableHash(into: &h) }
    }
}

/// What the server did with one write. Remembered per WriteID, so a duplicate gets the same answer.
public enum ReferenceOutcome: Hashable, Sendable, StableHashable {
    /// Applied; its effects are in the server's data from `version` on.
    case applied(version: UInt64)
    case refused(ReferenceRefusal)

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .applied(let v): h.byte(1); h.combine(v)
        case .refused(let r): h.byte(2); h.combine(r.description)
        }
    }
}

public struct ReferenceWriteOutcome: Hashable, Sendable, StableHashable {
    public var write: WriteID
    public var outcome: ReferenceOutcome
    public func stableHash(into h: inout StableHasher) { h.combine(write.raw); outcome.stableHash(into: &h) }
}

public enum ReferenceUp: WireMessage {
    /// `request` = incarnation << 32 | sequence number. `base` is the version of the client's
    /// replica; `clock` the client's HLC (lets the server's clock follow causality).
    case sync(request: UInt64, base: UInt64, clock: HLCTimestamp, mutations: [ReferenceMutation])

    public var kind: String { "sync" }

    public var carriedWrites: [WriteID] {
        switch self { case .sync(_, _, _, let m): return m.map(\.id) }
    }

    public var description: String {
        switch self {
        case .sync(let r, let b, _, let m):
            let ws = m.isEmpty ? "" : " push [" + m.map(\.description).joined(separator: ", ") + "]"
            return "sync #\(r & 0xFFFF_FFFF) from v\(b)" + ws
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .sync(let r, let b, let c, let m):
            h.byte(1); h.combine(r); h.combine(b); c.stableHash(into: &h); h.combine(m.count)
            // Hashed where they lie (`for x in m` copied each element out first).
            m.withUnsafeBufferPointer { p in for k in p.indices { p[k].stableHash(into: &h) } }
        }
    }
}

public enum ReferenceDown: WireMessage {
    /// The answer to `sync`: an outcome for each pushed write, and every entity that changed
    /// between `base` and `version` (complete: the client's replica becomes the server's data at
    /// `version`). `clock` is the highest client-originated stamp the server has seen.
    case syncReply(request: UInt64, outcomes: [ReferenceWriteOutcome], base: UInt64, version: UInt64,
                   clock: HLCTimestamp, changes: [EntityChange])
    /// The server's data reached `version`; pull if you are behind.
    case poke(version: UInt64)

    public var kind: String {
        switch self {
        case .syncReply: return "sync-reply"
        case .poke: return "poke"
        }
    }

    public var description: String {
        switch self {
        case .syncReply(let r, let o, let b, let v, _, let ch):
            var s = "sync-reply #\(r & 0xFFFF_FFFF) v\(b)→v\(v)"
            if !o.isEmpty {
                s += " [" + o.map { x -> String in
                    switch x.outcome {
                    case .applied(let v): return "\(x.write) applied@v\(v)"
                    case .refused(let why): return "\(x.write) refused: \(why)"
                    }
                }.joined(separator: ", ") + "]"
            }
            if !ch.isEmpty {
                s += " changes: " + ch.map { c in
                    c.state.record(in: Schema.describing).map { "\(EntityRef(c.id, c.state.namespace))\($0.summary)" } ?? "\(EntityRef(c.id, c.state.namespace)) deleted"
                }.joined(separator: " ")
            }
            return s
        case .poke(let v): return "poke v\(v)"
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .syncReply(let r, let o, let b, let v, let c, let ch):
            h.byte(1); h.combine(r); h.combine(o.count)
            o.withUnsafeBufferPointer { p in for k in p.indices { p[k].stableHash(into: &h) } }
            h.combine(b); h.combine(v); c.stableHash(into: &h); h.combine(ch.count)
            // Changes hashed where they lie: `for x in ch` copied each change out first (a retain
            // and release of every register array it owns, per change, per reply sent).
            ch.withUnsafeBufferPointer { p in for k in p.indices { p[k].stableHash(into: &h) } }
        case .poke(let v): h.byte(2); h.combine(v)
        }
    }
}
