import SyncSim

/// Client → server. One WebSocket-like connection; the server answers subscriptions with whole
/// query results and acknowledges each pushed write by its id (which makes pushes idempotent).
public enum NotesUp: WireMessage {
    case subscribe(SubscriptionID, Query)
    case unsubscribe(SubscriptionID)
    case push(WriteID, [Op])
    case query(QueryRequestID, Query)

    public var kind: String {
        switch self {
        case .subscribe: return "subscribe"
        case .unsubscribe: return "unsubscribe"
        case .push: return "push"
        case .query: return "query"
        }
    }

    public var carriedWrites: [WriteID] { if case .push(let w, _) = self { return [w] } else { return [] } }

    public var description: String {
        switch self {
        case .subscribe(let s, let q): return "subscribe \(s) \(q)"
        case .unsubscribe(let s): return "unsubscribe \(s)"
        case .push(let w, let ops): return "push \(w): \(ops.map(\.description).joined(separator: "; "))"
        case .query(let r, let q): return "query \(r) \(q)"
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .subscribe(let s, let q): h.byte(1); h.combine(s.raw); q.stableHash(into: &h)
        case .unsubscribe(let s): h.byte(2); h.combine(s.raw)
        case .push(let w, let ops): h.byte(3); h.combine(w.raw); h.combine(ops.count); for o in ops { o.stableHash(into: &h) }
        case .query(let r, let q): h.byte(4); h.combine(r.raw); q.stableHash(into: &h)
        }
    }
}

/// Server → client.
public enum NotesDown: WireMessage {
    case result(SubscriptionID, QueryResult)
    case ack(WriteID)
    case reject(WriteID, String)
    case queryResult(QueryRequestID, QueryResult)

    public var kind: String {
        switch self {
        case .result: return "result"
        case .ack: return "ack"
        case .reject: return "reject"
        case .queryResult: return "queryResult"
        }
    }

    public var description: String {
        switch self {
        case .result(let s, let r): return "result \(s): \(r.summary)"
        case .ack(let w): return "ack \(w)"
        case .reject(let w, let why): return "reject \(w): \(why)"
        case .queryResult(let q, let r): return "queryResult \(q): \(r.summary)"
        }
    }

    public func stableHash(into h: inout StableHasher) {
        switch self {
        case .result(let s, let r): h.byte(1); h.combine(s.raw); r.stableHash(into: &h)
        case .ack(let w): h.byte(2); h.combine(w.raw)
        case .reject(let w, let why): h.byte(3); h.combine(w.raw); h.combine(why)
        case .queryResult(let q, let r): h.byte(4); h.combine(q.raw); r.stableHash(into: &h)
        }
    }
}
