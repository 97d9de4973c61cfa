/// InstantDB's server, as far as sync semantics go (strategy-semantics.md, InstantDB §12).
///
/// | rule | source |
/// |---|---|
/// | one global, increasing tx id per committed transaction | seed 000 §4.3; Reactor `transact-ok` |
/// | per (entity, attribute) the last committed write wins; no timestamp comparison | seed 000 §4.3 "Practical implication" |
/// | a transaction is all-or-nothing; update mode on a missing entity or create mode on an existing one rejects it | instaml / server |
/// | `delete-entity` removes the entity and every reference to it; no tombstone | store.ts `deleteEntity` |
/// | no dedup by client event id: a replayed transaction is applied again | Reactor `_flushPendingMessages` + server |
/// | `refresh-ok` only for queries whose result changed, carrying `processed-tx-id` | Reactor `refresh-ok` |
/// | with `instantCombineTransacts` (InstantDB's `combine-transacts?` flag, off by default): queued same-field transacts of a session are combined, the earlier ones acknowledged and never applied (`InstantTransactQueue`) | session.clj `combine-transact`, `matching-steps?` |
public struct InstantServer: ServerMachine {
    public typealias Up = InstantUp
    public typealias Down = InstantDown

    /// A query and its result over `data` (`broadcast`).
    struct QueryAndResult {
        var query: Query
        var result: QueryResult
    }

    struct Subscription {
        var key: InstantQueryKey
        var query: Query
        var last: QueryResult
        /// `query.readNamespaces(in: schema)`, computed once (`broadcast` tests it on every
        /// transaction).
        var reads: NamespaceSet
    }

    public private(set) var data = EntityStore()
    public private(set) var txID: UInt64 = 0
    /// Per client: nil when not connected; the queries it subscribed over this connection.
    var sessions: [[Subscription]?]

    /// The run's data model.
    let schema: Schema
    /// The per-session transact queue when the server combines transacts; nil when it does not
    /// (then each transact commits as it arrives).
    var transactQueue: InstantTransactQueue?

    public init(clients: Int, schema: Schema = .default, combineTransacts: Bool = false) {
        sessions = Array(repeating: nil, count: clients)
        self.schema = schema
        if combineTransacts { transactQueue = InstantTransactQueue(clients: clients) }
    }

    public mutating func handle(_ input: ServerInput<InstantUp>, now: Int64, out: inout ServerOutbox<InstantDown>) {
        switch input {
        case .clientConnected(let c):
            sessions[c.index] = []
        case .clientDisconnected(let c):
            sessions[c.index] = nil
            transactQueue?.sessionClosed(c, out: &out)
        case .timerFired(let t):
            if let (c, next) = transactQueue?.timerFired(t, out: &out) {
                transact(c, next, out: &out)
            }
        case .adminWrite(let w):
            // The admin SDK writes in upsert mode and creates in create mode.
            let steps = w.ops.map { InstantStep($0, upsert: true) }
            var changed = NamespaceSet()
            var touched: [EntityID] = []
            if let e = commit(steps, changed: &changed, touched: &touched) {
                out(.refused(origin: .admin, writes: [w.id], reason: e.description))
            } else {
                txID += 1
                out(.applied(AppliedTransaction(txID: txID, origin: .admin, writes: w.id.raw == UInt32.max ? [] : [w.id], ops: w.ops)))
                broadcast(out: &out, changed: changed, touched: touched)
            }
        case .received(let c, let m):
            guard sessions[c.index] != nil else {
                out(.invalidInput("\(m.kind) from \(c), which has no session"))
                return
            }
            receive(c, m, out: &out)
        }
    }

    mutating func receive(_ c: ClientID, _ m: InstantUp, out: inout ServerOutbox<InstantDown>) {
        switch m {
        case .initialize:
            sessions[c.index] = []
            out(.send(c, .initOk))
        case .addQuery(let k, let q):
            var r = liveResult(of: q) ?? q.evaluate(data)
            // Hashed into the trace now and kept as the subscription's last result, which
            // `Query.patch` keeps the digest of.
            r.cacheDigest()
            sessions[c.index]!.removeAll { $0.key == k }
            sessions[c.index]!.append(Subscription(key: k, query: q, last: r, reads: q.readNamespaces(in: schema)))
            sessions[c.index]!.sort { $0.key < $1.key }
            out(.send(c, .addQueryOk(k, r, processedTxID: txID)))
        case .removeQuery(let k):
            sessions[c.index]!.removeAll { $0.key == k }
        case .transact(let eventID, let ws, let steps):
            let t = InstantTransactQueue.Waiting(eventID: eventID, writes: ws, steps: steps)
            if transactQueue == nil {
                transact(c, t, out: &out)
            } else if let now = transactQueue!.arrived(c, t, out: &out) {
                transact(c, now, out: &out)
            }
        }
    }

    /// Commits a transact (with the earlier events combined into it, if any) and answers every
    /// event it carries: `handle-transact!`/`handle-error!` answer the redundant events first.
    mutating func transact(_ c: ClientID, _ t: InstantTransactQueue.Waiting, out: inout ServerOutbox<InstantDown>) {
        var changed = NamespaceSet()
        var touched: [EntityID] = []
        if let e = commit(t.steps, changed: &changed, touched: &touched) {
            out(.refused(origin: .client(c), writes: t.redundant.flatMap { $0.writes } + t.writes, reason: e.description))
            for r in t.redundant { out(.send(c, .error(eventID: r.eventID, writes: r.writes, message: e.description))) }
            out(.send(c, .error(eventID: t.eventID, writes: t.writes, message: e.description)))
        } else {
            txID += 1
            out(.applied(AppliedTransaction(txID: txID, origin: .client(c), writes: t.writes, ops: t.steps.map(\.op),
                                            superseded: t.redundant.flatMap { $0.writes })))
            for r in t.redundant { out(.send(c, .transactOk(eventID: r.eventID, writes: r.writes, txID: txID))) }
            out(.send(c, .transactOk(eventID: t.eventID, writes: t.writes, txID: txID)))
            broadcast(out: &out, changed: changed, touched: touched)
        }
    }

    /// The result of `q` over `data` if a subscription of any session already holds it: every
    /// transaction brings each subscription's `last` up to the data (`broadcast`), so a query
    /// some client already subscribed to needs no pass over the store (a `queryOnce`'s is not
    /// kept up to date, so it does not count).
    func liveResult(of q: Query) -> QueryResult? {
        for i in sessions.indices where sessions[i] != nil {
            for j in sessions[i]!.indices where !sessions[i]![j].key.isOnce && sessions[i]![j].query == q {
                return sessions[i]![j].last
            }
        }
        return nil
    }

    /// All-or-nothing: applies the steps in place and, if one fails, rolls back the ones before
    /// it; nil when every step took effect. When they all took effect, `changed` gets the
    /// namespaces the steps change and `touched` the entities whose records they may have
    /// changed, each once (ascending, unless a delete removed an entity: see below).
    ///
    /// A step that writes nothing (`InstantServer.effect(of:in:schema:)`: an update whose every value
    /// is already the stored one, a link already in place, an unlink of a link that is not
    /// there, a delete of a missing entity) names no entity and no namespace: `touched` from the
    /// undo log (`EntityStore.touched(by:)`) listed every entity a step named, so a sharedDiff
    /// save, which re-sends its whole collection, made `broadcast` judge and patch every
    /// subscription over the whole collection on every save. Exact: `Query.mayChange` and
    /// `Query.patchTree` need a list holding every entity whose record changed, and the steps
    /// left out changed none. A delete that removes an entity also changes the records linking
    /// to it, which the steps do not name: then the undo log's list is taken, as before.
    mutating func commit(_ steps: [InstantStep], changed: inout NamespaceSet, touched: inout [EntityID]) -> ApplyError? {
        var undo = EntityStore.UndoLog()
        var written: [EntityID] = []
        var removed = false
        // The steps read where they are: `for step in steps` copied each one (a retain and a
        // release of what its op carries) only to test it.
        let failure: ApplyError? = steps.withUnsafeBufferPointer { sb in
            for k in 0..<sb.count {
                switch Self.effect(of: sb, k, in: data, schema: schema) {
                case .doesNothing:
                    // `apply` would neither refuse it nor write: not applied, nor saved in the
                    // undo log.
                    idleSteps &+= 1
                    continue
                case .writesNothing:
                    // Applied all the same: whether it is refused is `apply`'s to say.
                    idleSteps &+= 1
                case .mayWrite:
                    changed.formUnion(sb[k].op.changedNamespaces(in: schema, before: data))
                    if case .delete = sb[k].op { removed = true }
                    written.append(sb[k].op.entity)
                }
                if let e = data.apply(sb[k].op, schema: schema, mode: sb[k].upsert ? .upsert : .update, undo: &undo) {
                    data.rollBack(undo)
                    return e
                }
            }
            return nil
        }
        if let failure { return failure }
        if removed {
            touched = data.touched(by: undo)
        } else {
            written.sort()
            var n = 0
            for k in written.indices where n == 0 || written[n - 1] != written[k] {
                written[n] = written[k]
                n += 1
            }
            written.removeSubrange(n...)
            touched = written
        }
        return nil
    }

    /// How many steps `commit` found to write nothing and left out of `touched` (a test reads it,
    /// so the shortcut cannot stop silently).
    var idleSteps = 0

    /// What applying a step to the server's store does, as far as `commit` needs to know.
    enum StepEffect: Equatable {
        /// It may write (or it is a create, or names an id outside the schema: unsure).
        case mayWrite
        /// It writes nothing if `apply` accepts it (a link already in place, an unlink of a link
        /// that is not there, a delete of a missing entity).
        case writesNothing
        /// `apply` accepts it and writes nothing: an update of a present entity of its
        /// namespace, valid for the schema, with every value already stored
        /// (`EntityRecord.assign` writes only values that differ).
        case doesNothing
    }

    /// `effect(of:_:in:schema:)` of one op.
    static func effect(of op: Op, in data: EntityStore, schema: Schema) -> StepEffect {
        [InstantStep(op, upsert: true)].withUnsafeBufferPointer { effect(of: $0, 0, in: data, schema: schema) }
    }

    /// What applying step `k` of `sb` to `data` does, the step and the record it names read in
    /// place (matching the step where it lies, and reading the record through a pointer
    /// (`OptionalPayload`), copies neither).
    @inline(__always)
    static func effect(of sb: UnsafeBufferPointer<InstantStep>, _ k: Int, in data: EntityStore, schema: Schema) -> StepEffect {
        data.records.withUnsafeBufferPointer { rb in
            switch sb[k].op {
            case .create:
                return .mayWrite
            case .delete(let e, _):
                return data.contains(e) ? .mayWrite : .writesNothing
            case .update(let e, let ns, let a):
                guard data.contains(e) else { return .mayWrite }
                let same = OptionalPayload.read(rb, Int(e.raw)) { HeldAssignments.held(by: $0, ns, a) }
                guard same else { return .mayWrite }
                return EntityStore.validate(a, ns, schema: schema) == nil ? .doesNothing : .writesNothing
            case .link(let e, let l, let t):
                // `setLink` changes nothing when the slot of the link's cardinality holds `t`.
                guard schema.contains(l), data.contains(e) else { return .mayWrite }
                let m = Int(l.raw)
                let there: Bool
                if schema.isMany(l) {
                    there = OptionalPayload.read(rb, Int(e.raw)) { r in
                        r.pointee.manyLinks.withUnsafeBufferPointer { mb in m < mb.count && mb[m].contains(t) }
                    }
                } else {
                    there = OptionalPayload.read(rb, Int(e.raw)) { r in
                        r.pointee.links.withUnsafeBufferPointer { lb in m < lb.count && lb[m] == t }
                    }
                }
                return there ? .writesNothing : .mayWrite
            case .unlink(let e, let l, let t):
                // `apply` clears the link only where the record points at `t`.
                guard schema.contains(l), data.contains(e) else { return .mayWrite }
                return OptionalPayload.read(rb, Int(e.raw)) { r in r.pointee.points(l, at: t) } ? .mayWrite : .writesNothing
            }
        }
    }

    /// Re-evaluates every subscribed query that reads a namespace the transaction `changed`
    /// and that an entity it `touched` can reach (`Query.mayChange`; the others' results cannot
    /// have changed, so the cost of a transaction does not grow with the store when it touches
    /// nothing a query shows); sends `refresh-ok` where the result changed.
    ///
    /// Unchanged results are detected without building them; a changed result is patched
    /// (`Query.patchTree`) or evaluated once per distinct query per transaction (equal queries
    /// over the same data give equal results), and its digest computed once for every client it
    /// is sent to (`QueryResult.cacheDigest()`).
    mutating func broadcast(out: inout ServerOutbox<InstantDown>, changed: NamespaceSet, touched: [EntityID]) {
        // Per distinct query: its result over `data` once built, and the previous results already
        // found equal to it (clients subscribed to the same query usually share one).
        // (Pairs as a struct, not a tuple: an array of tuples is destroyed through the runtime's
        // generic tuple witness, element by element.)
        var evaluated: [QueryAndResult] = []
        var unchanged: [QueryAndResult] = []
        for i in sessions.indices {
            guard sessions[i] != nil else { continue }
            for j in sessions[i]!.indices where !sessions[i]![j].key.isOnce {
                if changed.isDisjoint(with: sessions[i]![j].reads) { continue }
                let q = sessions[i]![j].query
                if !q.mayChange(sessions[i]![j].last, touched: touched, in: data, schema: schema) { continue }
                let last = sessions[i]![j].last
                if unchanged.contains(where: { $0.query == q && $0.result == last }) { continue }
                // One pass over the store per distinct query: the result, or nil when it equals
                // `last`; a query already evaluated compares its result instead.
                var r: QueryResult
                if let k = evaluated.firstIndex(where: { $0.query == q }) {
                    r = evaluated[k].result
                    if r == last {
                        unchanged.append(QueryAndResult(query: q, result: last))
                        continue
                    }
                } else {
                    // With at most one level of includes (and no limit), patch the last result
                    // where the touched entities are (`Query.patchTree`).
                    // (`last` stays in the session and in the clients it was sent to: the
                    // entries are shared, so the patch copies them in its own loop.)
                    var patched = last
                    if let changed = q.patchTree(&patched, touched: touched, in: data, shared: true) {
                        guard changed else {
                            unchanged.append(QueryAndResult(query: q, result: last))
                            continue
                        }
                        r = patched
                    } else {
                        guard let fresh = q.evaluate(data, unlessEqualTo: last) else {
                            unchanged.append(QueryAndResult(query: q, result: last))
                            continue
                        }
                        r = fresh
                    }
                    // Once per result built: every client it is sent to shares the digest.
                    r.cacheDigest()
                    evaluated.append(QueryAndResult(query: q, result: r))
                }
                sessions[i]![j].last = r
                out(.send(ClientID(i), .refreshOk(sessions[i]![j].key, r, processedTxID: txID)))
            }
        }
    }
}
