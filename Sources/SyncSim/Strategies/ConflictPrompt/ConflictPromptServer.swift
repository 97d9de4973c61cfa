/// The sideBar backend as seed 003's "Backend Detail" asks for it: conflict-aware mutations
/// (409 on a stale `modified`), idempotency keys, tombstones, and realtime pushes to the lists
/// a client has open.
///
/// | rule | source |
/// |---|---|
/// | every committed transaction gets the next transaction id; each entity it changes gets `modified` = that id | seed 003 "Conflict rules": notes `modified`, websites `updated_at` |
/// | a write whose snapshot differs from the entity's current `modified` is answered 409 and not applied, unless forced | seed 003 "Backend Detail" 1 (`client_updated_at` / If-Match → 409) |
/// | a request's outcome (applied or refused) is remembered under its idempotency key; a retry or duplicate gets the same answer and is never applied twice | seed 003 "Backend Detail" 4 (idempotency keys for creates), applied to every queued write |
/// | deleted entities leave a tombstone: deleting one again succeeds with no effect; updating, linking to or re-creating one is refused | seed 003 "Backend Detail" 5, "Delete ops: … treat as success" |
/// | a transaction is all-or-nothing; updates never upsert (no partial re-creation) | REST update of a missing row = 404 |
/// | after each commit, every registered list whose result changed is pushed to its client | seed 003 "Data Flow": realtime events |
/// | `/tasks/sync`: a batch of task operations, each judged as a write request, in order, stopping at the first conflict (`TaskSyncResponse.conflicts`); the answer carries the tasks changed since `last_sync` and `serverUpdatedSince` (`ConflictPromptTaskSync.swift`) | seed 003 Phase 3 |
public struct ConflictPromptServer: ServerMachine {
    public typealias Up = ConflictPromptUp
    public typealias Down = ConflictPromptDown

    /// A list a client registered: its subscription and the shared result of its query
    /// (`lists[list]`).
    struct Registered: Sendable {
        var sub: CPSubscription
        var list: Int
    }

    /// One distinct query some client has registered, with its result over `data` (kept up
    /// to date by `push` after every commit). Every client's lists share it: the workloads
    /// open the same few queries many times over (each client holds tens of lists over a
    /// handful of queries), and a list's result depends on its query and `data` only, so one
    /// patch per query serves them all, and the snapshots a message carries for equal queries
    /// are one value in one storage (which the client's redraw relies on to draw such lists
    /// once).
    struct SharedList: Sendable {
        var query: Query
        var last: QueryResult
        /// The `modified` of each entry of `last` (parallel to `last.entries`), kept with it:
        /// every snapshot of the list carries it (`CPSnapshot.versions`). Built once per list
        /// and then brought up to date where a commit stamped an entity of it or the patch of
        /// `last` moved entries (`push`, `CPServerVersions`), instead of one lookup per entry for
        /// every snapshot sent; an unchanged list's snapshots share it, so a client tells a
        /// repeated answer by storage (`ConflictPromptClient.same`).
        var versions: [UInt64]
        /// `query.readNamespaces(in: schema)`, kept: `push` asks it of every list after every
        /// commit.
        var reads: NamespaceSet
    }

    struct Remembered: Sendable {
        var writes: [WriteID]
        var outcome: CPOutcome
    }

    public private(set) var data = EntityStore()
    public private(set) var txID: UInt64 = 0
    /// `modified` per entity id (0: never existed), dense by id.
    var modified: [UInt64] = []
    var tombstone: [Bool] = []
    /// Outcomes by idempotency key. Only looked up, never iterated.
    var outcomes: [WriteID: Remembered] = [:]
    /// Per client: the lists it last asked for (realtime interest).
    var registered: [[Registered]]
    /// The distinct queries of `registered`, in order of first registration (`SharedList`).
    var lists: [SharedList] = []
    /// Entities stamped by commits since the last `push`, whose versions in `lists` it sets
    /// (derived, never observable: every commit is followed by a push in the same input).
    var stampedSincePush: [EntityID] = []

    /// The run's data model.
    let schema: Schema

    public init(clients: Int, schema: Schema = .default) {
        registered = Array(repeating: [], count: max(0, clients))
        self.schema = schema
    }

    public func modified(_ e: EntityID) -> UInt64 { Int(e.raw) < modified.count ? modified[Int(e.raw)] : 0 }
    public func isTombstoned(_ e: EntityID) -> Bool { Int(e.raw) < tombstone.count ? tombstone[Int(e.raw)] : false }

    mutating func stamp(_ e: EntityID, _ v: UInt64, deleted: Bool) {
        let i = Int(e.raw)
        if i >= modified.count {
            modified.append(contentsOf: repeatElement(0, count: i - modified.count + 1))
            tombstone.append(contentsOf: repeatElement(false, count: i - tombstone.count + 1))
        }
        modified[i] = v
        if deleted { tombstone[i] = true }
    }

    public mutating func handle(_ input: ServerInput<ConflictPromptUp>, now: Int64, out: inout ServerOutbox<ConflictPromptDown>) {
        switch input {
        case .clientConnected, .clientDisconnected:
            out(.invalidInput("connection events on a datagram transport"))
        case .timerFired(let t):
            out(.invalidInput("the server set no timer \(t)"))
        case .adminWrite(let w):
            let writes = w.id.raw == UInt32.max ? [] : [w.id]
            var changed = NamespaceSet()
            var slots: [EntityID] = []
            switch commit(w.ops, changed: &changed, slots: &slots) {
            case .success(let (ops, touched, extra)):
                install(touched: touched, extra: extra, ops: ops)
                out(.applied(AppliedTransaction(txID: txID, origin: .admin, writes: writes, ops: ops)))
                push(out: &out, changed: changed, slots: slots)
            case .failure(let why):
                out(.refused(origin: .admin, writes: writes, reason: why.message))
            }
        case .received(let c, let m):
            guard c.index >= 0 && c.index < registered.count else {
                out(.invalidInput("\(m.kind) from unknown client \(c)"))
                return
            }
            receive(c, m, out: &out)
        }
    }

    mutating func receive(_ c: ClientID, _ m: ConflictPromptUp, out: inout ServerOutbox<ConflictPromptDown>) {
        switch m {
        case .fetch(let subs):
            register(c, subs)
            var ids: [SubscriptionID] = []
            var snaps: [CPSnapshot] = []
            ids.reserveCapacity(registered[c.index].count)
            snaps.reserveCapacity(registered[c.index].count)
            // One snapshot per shared list (lists of one query answered with one value).
            var made: [CPSnapshot?] = Array(repeating: nil, count: lists.count)
            assert(stampedSincePush.isEmpty, "a commit was not pushed")
            for r in registered[c.index] {
                if made[r.list] == nil {
                    assert(lists[r.list].last == lists[r.list].query.evaluate(data), "a registered list's last result is stale")
                    assert(lists[r.list].versions == versions(of: lists[r.list].last), "a registered list's versions are stale")
                    made[r.list] = CPSnapshot(result: lists[r.list].last, versions: lists[r.list].versions, asOf: txID)
                }
                ids.append(r.sub.id)
                snaps.append(made[r.list]!)
            }
            out(.send(c, .results(ids, snaps, realtime: false)))
        case .query(let r, let q):
            // A registered query's kept result is its result over `data`.
            if let k = lists.firstIndex(where: { $0.query == q }) {
                out(.send(c, .queryResult(r, CPSnapshot(result: lists[k].last, versions: lists[k].versions, asOf: txID))))
            } else {
                out(.send(c, .queryResult(r, snapshot(q))))
            }
        case .write(let r):
            write(c, r, out: &out)
        case .taskSync(let rs, let since):
            taskSync(c, rs, since: since, out: &out)
        }
    }

    mutating func write(_ c: ClientID, _ r: CPWriteRequest, out: inout ServerOutbox<ConflictPromptDown>) {
        var changed = NamespaceSet()
        var slots: [EntityID] = []
        var committed = false
        let outcome = decide(c, r, changed: &changed, slots: &slots, committed: &committed, out: &out)
        out(.send(c, .writeResult(key: r.key, outcome)))
        if committed { push(out: &out, changed: changed, slots: slots) }
    }

    /// The outcome of one write request (remembered, malformed, 409, applied or refused), with
    /// the log effects it causes; `committed` is set when it was applied now, `changed` gets the
    /// namespaces that application changed and `slots` the entities whose records it changed.
    mutating func decide(_ c: ClientID, _ r: CPWriteRequest, changed: inout NamespaceSet, slots: inout [EntityID], committed: inout Bool,
                         out: inout ServerOutbox<ConflictPromptDown>) -> CPOutcome {
        if let prior = outcomes[r.key] {
            if prior.writes != r.writes {
                out(.invalidInput("request \(r.key) replayed with different writes \(r.writes) (first seen with \(prior.writes))"))
            }
            return prior.outcome
        }
        guard !r.writes.isEmpty, !r.ops.isEmpty, r.writes.first == r.key else {
            out(.invalidInput("malformed write request \(r.key)"))
            return .refused("malformed request")
        }
        if !r.force {
            for x in r.expect where x.version != 0 && !isTombstoned(x.entity) && modified(x.entity) != x.version {
                let v = modified(x.entity)
                out(.refused(origin: .client(c), writes: r.writes,
                             reason: "409 conflict: #\(x.entity.raw) modified \(v), client snapshot \(x.version)"))
                return .conflict(x.entity, serverVersion: v, snapshot: x.version, server: data[x.entity])
            }
        }
        let outcome: CPOutcome
        switch commit(r.ops, changed: &changed, slots: &slots) {
        case .success(let (ops, touched, extra)):
            let before = touched.map { modified($0) }
            install(touched: touched, extra: extra, ops: ops)
            let changes = zip(touched, before).map { CPVersionChange($0.0, before: $0.1, after: txID) }
            outcome = .applied(txID: txID, changes: changes)
            committed = true
            out(.applied(AppliedTransaction(txID: txID, origin: .client(c), writes: r.writes, ops: ops)))
        case .failure(let why):
            outcome = .refused(why.message)
            out(.refused(origin: .client(c), writes: r.writes, reason: why.message))
        }
        outcomes[r.key] = Remembered(writes: r.writes, outcome: outcome)
        return outcome
    }

    struct Refusal: Error { var message: String }

    /// Validates and applies the steps, all or nothing: in place, rolled back on the first
    /// refusal. Returns the steps that took effect (a delete of a tombstone is a successful no-op
    /// and is left out), the entities the steps changed (ascending), and entities changed as a
    /// side effect (links cleared by a delete). Versions are stamped by `install`. `changed`
    /// gets the namespaces whose records the steps change; `slots`, once committed, every entity
    /// whose record slot they changed (what `push` patches the lists by).
    mutating func commit(_ ops: [Op], changed: inout NamespaceSet, slots: inout [EntityID]) -> Result<([Op], [EntityID], [EntityID]), Refusal> {
        var undo = EntityStore.UndoLog()
        let result = apply(ops, undo: &undo, changed: &changed)
        if case .failure = result { data.rollBack(undo) } else { slots.append(contentsOf: data.touched(by: undo)) }
        return result
    }

    /// `commit`'s steps, applied to `data` and logged in `undo`.
    mutating func apply(_ ops: [Op], undo: inout EntityStore.UndoLog, changed: inout NamespaceSet) -> Result<([Op], [EntityID], [EntityID]), Refusal> {
        var applied: [Op] = []
        var touched: [EntityID] = []
        var extra: [EntityID] = []
        for op in ops {
            let e = op.entity
            if isTombstoned(e) {
                if op.isDelete { continue }
                return .failure(Refusal(message: "entity \(e.raw) was deleted"))
            }
            switch op {
            case .create:
                if modified(e) != 0 || data.contains(e) { return .failure(Refusal(message: "entity \(e.raw) already exists")) }
            case .delete:
                if !data.contains(e) { return .failure(Refusal(message: "entity \(e.raw) does not exist")) }
                for l in schema.linkIDs {
                    for r in data.referrers(to: e, via: l) where !extra.contains(r) { extra.append(r) }
                }
            case .link(_, _, let t):
                if isTombstoned(t) { return .failure(Refusal(message: "link target \(t.raw) was deleted")) }
            case .update, .unlink:
                break
            }
            changed.formUnion(op.changedNamespaces(in: schema, before: data))
            if let err = data.apply(op, schema: schema, mode: .update, undo: &undo) { return .failure(Refusal(message: err.description)) }
            applied.append(op)
            if !touched.contains(e) { touched.append(e) }
        }
        touched.sort()
        extra = extra.filter { !touched.contains($0) }.sorted()
        return .success((applied, touched, extra))
    }

    @discardableResult
    mutating func install(touched: [EntityID], extra: [EntityID], ops: [Op]) -> UInt64 {
        txID += 1
        for e in touched { stamp(e, txID, deleted: !data.contains(e)) }
        for e in extra { stamp(e, txID, deleted: false) }
        stampedSincePush.append(contentsOf: touched)
        stampedSincePush.append(contentsOf: extra)
        return txID
    }

    func snapshot(_ q: Query) -> CPSnapshot {
        snapshot(of: q.evaluate(data))
    }

    /// A snapshot of `r` with its digest kept (`QueryResult.cacheDigest()`): every message that
    /// carries it is hashed into the trace in one word, not entry by entry, and `last` keeps the
    /// digest through `Query.patchTree`, so a pushed list's digest costs what its patch changed.
    func snapshot(of r: QueryResult) -> CPSnapshot {
        var r = r
        r.cacheDigest()
        return CPSnapshot(result: r, versions: versions(of: r), asOf: txID)
    }

    /// The `modified` of each entry of `r`, looked up one by one.
    func versions(of r: QueryResult) -> [UInt64] { r.entries.map { modified($0.id) } }

    /// Makes `subs` client `c`'s registered lists: a query some list already has shares that
    /// list's result (`SharedList`: it is the query's result over `data`), a new one is
    /// evaluated; lists no client registers any more are dropped.
    mutating func register(_ c: ClientID, _ subs: [CPSubscription]) {
        var regs: [Registered] = []
        regs.reserveCapacity(subs.count)
        for s in subs {
            if let k = lists.firstIndex(where: { $0.query == s.query }) {
                regs.append(Registered(sub: s, list: k))
            } else {
                var r = s.query.evaluate(data)
                r.cacheDigest()
                lists.append(SharedList(query: s.query, last: r, versions: versions(of: r), reads: s.query.readNamespaces(in: schema)))
                regs.append(Registered(sub: s, list: lists.count - 1))
            }
        }
        registered[c.index] = regs
        // Drop the lists nobody registers, renumbering the others in order.
        var used = [Bool](repeating: false, count: lists.count)
        for rs in registered { for r in rs { used[r.list] = true } }
        guard used.contains(false) else { return }
        var renumber = [Int](repeating: -1, count: lists.count)
        var kept: [SharedList] = []
        for k in lists.indices where used[k] {
            renumber[k] = kept.count
            kept.append(lists[k])
        }
        lists = kept
        for i in registered.indices {
            for j in registered[i].indices { registered[i][j].list = renumber[registered[i][j].list] }
        }
    }

    /// Realtime: every registered list whose result changed, per client in id order. Each
    /// distinct query (`lists`) is brought up to date once: lists that read no namespace the
    /// transaction `changed` are not re-evaluated (their result, entity versions included,
    /// cannot have changed: versions are stamped only on changed entities). The others are
    /// brought up to date from their last result by the entities whose records changed
    /// (`slots`): skipped when none can be in the result before or after (`Query.mayChange`),
    /// patched where they are (`Query.patchTree`: also one level of includes), evaluated again
    /// only for the forms a patch cannot follow. Every list's `last` is its query's result over
    /// `data` after each push, which is what makes the patch exact. Every client list of a
    /// changed query is then sent its one snapshot.
    ///
    /// Each list's versions follow its result: realigned with a patched result from the ones
    /// before (`CPServerVersions.realign`), and set for the entities the commits stamped
    /// (`stampedSincePush`) in every list that holds them, pushed or not (an update that
    /// writes a record's values again stamps it and changes no namespace).
    mutating func push(out: inout ServerOutbox<ConflictPromptDown>, changed: NamespaceSet, slots: [EntityID]) {
        var fresh: [CPSnapshot?] = Array(repeating: nil, count: lists.count)
        var any = false
        let stamped = stampedSincePush
        stampedSincePush.removeAll(keepingCapacity: true)
        for k in lists.indices {
            if !changed.isDisjoint(with: lists[k].reads),
               var r = Self.update(lists[k].query, lists[k].last, slots: slots, data: data, schema: schema) {
                r.cacheDigest()
                var v = CPServerVersions.realign(lists[k].versions, from: lists[k].last, to: r, modified: modified)
                CPServerVersions.restamp(&v, of: r, stamped, modified: modified)
                lists[k].last = r
                lists[k].versions = v
                fresh[k] = CPSnapshot(result: r, versions: v, asOf: txID)
                any = true
            } else if !stamped.isEmpty {
                CPServerVersions.restamp(&lists[k].versions, of: lists[k].last, stamped, modified: modified)
            }
            assert(lists[k].versions == versions(of: lists[k].last), "a list's versions are stale after a push")
        }
        guard any else { return }
        for c in registered.indices {
            var ids: [SubscriptionID] = []
            var snaps: [CPSnapshot] = []
            for r in registered[c] {
                guard let s = fresh[r.list] else { continue }
                ids.append(r.sub.id)
                snaps.append(s)
            }
            if !ids.isEmpty { out(.send(ClientID(c), .results(ids, snaps, realtime: true))) }
        }
    }

    /// `q.evaluate(data, unlessEqualTo: last)`, from `last` (the result before a change of the
    /// records in `slots`) where it can be. (Static: a method called from `push` copied the
    /// whole server for every list it brought up to date.)
    static func update(_ q: Query, _ last: QueryResult, slots: [EntityID], data: EntityStore, schema: Schema) -> QueryResult? {
        if !q.mayChange(last, touched: slots, in: data, schema: schema) { return nil }
        var r = last
        // (`r` shares its entries with `last`, which the list keeps: the first change copies them
        // in the specialised loop, `shared`.)
        if let changed = q.patchTree(&r, touched: slots, in: data, shared: true) { return changed ? r : nil }
        return q.evaluate(data, unlessEqualTo: last)
    }
}
