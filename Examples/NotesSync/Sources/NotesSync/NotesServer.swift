import SyncSim

/// The notes server: applies each pushed write atomically in arrival order (so each field is
/// last-writer-wins by server arrival), remembers every write's outcome by id (a re-sent push is
/// answered again, never applied twice), and sends every subscriber a fresh result whenever its
/// answer changes. Deleted ids are remembered (tombstones): a later create, update or link of one
/// is refused, so nothing resurrects, not even a create that was queued offline before the delete.
public struct NotesServer: ServerMachine {
    public typealias Up = NotesUp
    public typealias Down = NotesDown

    struct Subscription {
        var id: SubscriptionID
        var query: Query
        var last: QueryResult
    }

    let schema: Schema
    public private(set) var data = EntityStore()
    var txID: UInt64 = 0
    /// Outcome per write id: nil = applied, a text = refused. Only looked up, never iterated.
    var outcomes: [WriteID: String?] = [:]
    /// Per client: the subscriptions of its current connection.
    var sessions: [[Subscription]]
    /// Ids whose deletion was applied. Only looked up, never iterated.
    var tombstones: Set<EntityID> = []

    public init(clients: Int, schema: Schema) {
        self.schema = schema
        sessions = Array(repeating: [], count: max(0, clients))
    }

    public mutating func handle(_ input: ServerInput<NotesUp>, now: Int64, out: inout ServerOutbox<NotesDown>) {
        switch input {
        case .clientConnected(let c), .clientDisconnected(let c):
            guard c.index < sessions.count else { return out(.invalidInput("unknown client \(c)")) }
            sessions[c.index] = []
        case .received(let c, .subscribe(let s, let q)):
            guard c.index < sessions.count else { return out(.invalidInput("unknown client \(c)")) }
            let r = q.evaluate(data)
            sessions[c.index].removeAll { $0.id == s }
            sessions[c.index].append(Subscription(id: s, query: q, last: r))
            out(.send(c, .result(s, r)))
        case .received(let c, .unsubscribe(let s)):
            guard c.index < sessions.count else { return out(.invalidInput("unknown client \(c)")) }
            sessions[c.index].removeAll { $0.id == s }
        case .received(let c, .query(let r, let q)):
            out(.send(c, .queryResult(r, q.evaluate(data))))
        case .received(let c, .push(let w, let ops)):
            if let known = outcomes[w] {
                out(.send(c, known.map { .reject(w, $0) } ?? .ack(w)))
                return
            }
            switch commit(ops) {
            case .success(let next):
                data = next
                txID += 1
                outcomes[w] = .some(nil)
                for op in ops where op.isDelete { tombstones.insert(op.entity) }
                out(.applied(AppliedTransaction(txID: txID, origin: .client(c), writes: [w], ops: ops)))
                broadcast(&out)
                out(.send(c, .ack(w)))
            case .failure(let refusal):
                let why = refusal.reason
                outcomes[w] = .some(why)
                out(.refused(origin: .client(c), writes: [w], reason: why))
                out(.send(c, .reject(w, why)))
            }
        case .adminWrite(let w):
            // The back office edits through the same rules: an update of a deleted note fails.
            guard case .success(let next) = commit(w.ops) else { return }
            data = next
            txID += 1
            for op in w.ops where op.isDelete { tombstones.insert(op.entity) }
            out(.applied(AppliedTransaction(txID: txID, origin: .admin, writes: [w.id], ops: w.ops)))
            broadcast(&out)
        case .timerFired:
            break
        }
    }

    /// All or nothing: applied to a copy, kept only if every step applies. A step that touches
    /// a tombstoned id (other than deleting it again) is refused.
    func commit(_ ops: [Op]) -> Result<EntityStore, Refusal> {
        var s = data
        for op in ops {
            if !op.isDelete, tombstones.contains(op.entity) { return .failure(Refusal("entity \(op.entity.raw) was deleted")) }
            if case .link(_, _, let t) = op, tombstones.contains(t) { return .failure(Refusal("link target \(t.raw) was deleted")) }
            if let e = s.apply(op, schema: schema, mode: .update) { return .failure(Refusal(e.description)) }
        }
        return .success(s)
    }

    mutating func broadcast(_ out: inout ServerOutbox<NotesDown>) {
        for c in sessions.indices {
            for i in sessions[c].indices {
                let r = sessions[c][i].query.evaluate(data)
                if r != sessions[c][i].last {
                    sessions[c][i].last = r
                    out(.send(ClientID(c), .result(sessions[c][i].id, r)))
                }
            }
        }
    }
}

/// Why the server refused a write (sent to the client, which tells the user).
struct Refusal: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
