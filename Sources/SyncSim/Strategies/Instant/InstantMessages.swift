/// InstantDB's wire vocabulary (seed 002 §4): `init`, `add-query`, `remove-query`, `transact`
/// up; `init-ok`, `add-query-ok`, `refresh-ok`, `transact-ok`, `error` down.

/// A server-side query handle: subscriptions and one-shot reads share the space.
public struct InstantQueryKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt64
    public static func subscription(_ s: SubscriptionID) -> InstantQueryKey { .init(raw: UInt64(s.raw)) }
    public static func once(_ r: QueryRequestID) -> InstantQueryKey { .init(raw: UInt64(r.raw) | 1 << 32) }
    public var isOnce: Bool { raw >> 32 != 0 }
    public static func < (a: InstantQueryKey, b: InstantQueryKey) -> Bool { a.raw < b.raw }
    public var description: String { isOnce ? "q\(raw & 0xFFFF_FFFF)" : "sub\(raw)" }
}

/// One transaction step and its write mode (instaml: `create`, `update` = update mode,
/// upsert when the entity is in no cached store, `delete-entity`, `add-triple`/`retract-triple`).
public struct InstantStep: Hashable, Sendable, CustomStringConvertible {
    public var op: Op
    /// Update steps only: create the entity if it is missing instead of rejecting the transaction.
    public var upsert: Bool
    public init(_ op: Op, upsert: Bool) { self.op = op; self.upsert = upsert }
    public var description: String {
        if case .update = op, upsert { return op.description + " (upsert)" }
        return op.description
    }
}

public enum InstantUp: WireMessage {
    case initialize
    case addQuery(InstantQueryKey, Query)
    case removeQuery(InstantQueryKey)
    /// `writes`: the user intents the transaction carries: one for `instant`; several or none for
    /// strategies that batch or compute their own steps (a diff-computed delete carries none).
    case transact(eventID: UInt64, writes: [WriteID], steps: [InstantStep])

    public var kind: String {
        switch self {
        case .initialize: return "init"
        case .addQuery: return "add-query"
        case .removeQuery: return "remove-query"
        case .transact: return "transact"
        }
    }

    public var carriedWrites: [WriteID] {
        if case .transact(_, let ws, _) = self { return ws }
        return []
    }

    public var description: String {
        switch self {
        case .initialize: return "init"
        case .addQuery(let k, let q): return "add-query \(k) (\(q))"
        case .removeQuery(let k): return "remove-query \(k)"
        case .transact(_, let ws, let steps): return "transact \(InstantUp.describe(ws)) [\(steps.map(\.description).joined(separator: "; "))]"
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .initialize: h.byte(1)
        case .addQuery(let k, let q): h.byte(2); h.combine(k.raw); q.stableHash(into: &h)
        case .removeQuery(let k): h.byte(3); h.combine(k.raw)
        case .transact(let e, let ws, let steps):
            // One write hashes exactly as before the field became a list (trace hashes of
            // `instant` runs are unchanged); any other count has its own tag.
            if ws.count == 1 { h.byte(4); h.combine(e); h.combine(ws[0].raw) } else {
                h.byte(6); h.combine(e); h.combine(ws.count)
                for w in ws { h.combine(w.raw) }
            }
            h.combine(steps.count)
            // Read where they are: `for s in steps` copied each step (a retain and a release of
            // what its op carries), and a sharedDiff save carries its whole collection.
            steps.withUnsafeBufferPointer { sb in
                for k in 0..<sb.count { sb[k].op.stableHash(into: &h); h.combine(sb[k].upsert) }
            }
        }
    }

    /// A transaction carrying exactly one user write (the `instant` case).
    public static func transact(eventID: UInt64, write: WriteID, steps: [InstantStep]) -> InstantUp {
        .transact(eventID: eventID, writes: [write], steps: steps)
    }

    /// `w3`, `w3+w4`, or `(no user write)`.
    static func describe(_ ws: [WriteID]) -> String {
        ws.isEmpty ? "(no user write)" : ws.map(\.description).joined(separator: "+")
    }
}

public enum InstantDown: WireMessage {
    /// One-write spellings (the `instant` case).
    public static func transactOk(eventID: UInt64, write: WriteID, txID: UInt64) -> InstantDown {
        .transactOk(eventID: eventID, writes: [write], txID: txID)
    }
    public static func error(eventID: UInt64, write: WriteID, message: String) -> InstantDown {
        .error(eventID: eventID, writes: [write], message: message)
    }

    case initOk
    case addQueryOk(InstantQueryKey, QueryResult, processedTxID: UInt64)
    case refreshOk(InstantQueryKey, QueryResult, processedTxID: UInt64)
    case transactOk(eventID: UInt64, writes: [WriteID], txID: UInt64)
    case error(eventID: UInt64, writes: [WriteID], message: String)

    public var kind: String {
        switch self {
        case .initOk: return "init-ok"
        case .addQueryOk: return "add-query-ok"
        case .refreshOk: return "refresh-ok"
        case .transactOk: return "transact-ok"
        case .error: return "error"
        }
    }

    public var description: String {
        switch self {
        case .initOk: return "init-ok"
        case .addQueryOk(let k, let r, let tx): return "add-query-ok \(k) processed-tx-id \(tx): \(r.summary)"
        case .refreshOk(let k, let r, let tx): return "refresh-ok \(k) processed-tx-id \(tx): \(r.summary)"
        case .transactOk(_, let ws, let tx): return "transact-ok \(InstantUp.describe(ws)) tx-id \(tx)"
        case .error(_, let ws, let m): return "error \(InstantUp.describe(ws)): \(m)"
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .initOk: h.byte(1)
        case .addQueryOk(let k, let r, let tx): h.byte(2); h.combine(k.raw); r.stableHash(into: &h); h.combine(tx)
        case .refreshOk(let k, let r, let tx): h.byte(3); h.combine(k.raw); r.stableHash(into: &h); h.combine(tx)
        case .transactOk(let e, let ws, let tx):
            if ws.count == 1 { h.byte(4); h.combine(e); h.combine(ws[0].raw) } else {
                h.byte(6); h.combine(e); h.combine(ws.count); for w in ws { h.combine(w.raw) }
            }
            h.combine(tx)
        case .error(let e, let ws, let m):
            if ws.count == 1 { h.byte(5); h.combine(e); h.combine(ws[0].raw) } else {
                h.byte(7); h.combine(e); h.combine(ws.count); for w in ws { h.combine(w.raw) }
            }
            h.combine(m)
        }
    }
}
