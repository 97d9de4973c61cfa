/// The `reference` server: the authoritative register table, a version counter, the outcome of
/// every write it has seen (the idempotency table), and its own HLC for admin writes.
public struct ReferenceServer: ServerMachine {
    public typealias Up = ReferenceUp
    public typealias Down = ReferenceDown

    var table = ReferenceTable()
    /// Bumped by every applied transaction; entities carry the version they last changed at.
    var version: UInt64 = 0
    var nextTx: UInt64 = 1
    /// Outcome per client write id (looked up, never iterated; `ReferenceOutcomeTable`).
    var outcomes = ReferenceOutcomeTable()
    var clock = HybridLogicalClock(node: HLCTimestamp.serverNode)
    /// The highest timestamp seen or issued: client stamps (of writes and request clocks) and the
    /// stamps of admin writes. Replies carry it (never the server's wall clock at reply time: the
    /// server relays the clocks of events, it does not inject its own reading of time).
    var maxStamp = HLCTimestamp.bottom
    /// The slot of every entity each applied transaction put, with the version it got, in commit
    /// order (versions ascending): a reply sends what changed since the client's version by
    /// reading this log's tail instead of scanning the whole table.
    var changeLog: [(version: UInt64, slot: Int)] = []
    /// Empty between commits: `commit`'s list of the slots a write put, kept for its capacity.
    var scratchTouched: [Int] = []
    /// Clients that have synced at least once: they get pokes.
    var known: [Bool]
    var heardFromClient = false

    /// The run's data model.
    let schema: Schema

    public init(clients: Int, schema: Schema = .default) {
        known = Array(repeating: false, count: max(0, clients))
        self.schema = schema
    }

    public var data: EntityStore { table.store }

    public mutating func handle(_ input: ServerInput<Up>, now: Int64, out: inout ServerOutbox<Down>) {
        switch input {
        case .received(let c, .sync(let request, let base, let clientClock, let mutations)):
            guard c.index >= 0 && c.index < known.count else {
                out(.invalidInput("sync from unknown client \(c)"))
                return
            }
            heardFromClient = true
            known[c.index] = true
            observeClient(clientClock, now: now)
            let before = version
            var results: [ReferenceWriteOutcome] = []
            results.reserveCapacity(mutations.count)
            for m in mutations {
                if let o = outcomes[m.id] {
                    results.append(ReferenceWriteOutcome(write: m.id, outcome: o))
                    continue
                }
                guard m.stamp.node == UInt32(c.index) else {
                    let o = ReferenceOutcome.refused(.invalid("stamp \(m.stamp) is not \(c)'s clock"))
                    outcomes[m.id] = o
                    results.append(ReferenceWriteOutcome(write: m.id, outcome: o))
                    out(.refused(origin: .client(c), writes: [m.id], reason: "stamp is not the sender's clock"))
                    continue
                }
                observeClient(m.stamp, now: now)
                let o = commit(m.ops, stamp: m.stamp, writes: [m.id], origin: .client(c), out: &out)
                outcomes[m.id] = o
                results.append(ReferenceWriteOutcome(write: m.id, outcome: o))
            }
            let from = base <= version ? base : 0
            out(.send(c, .syncReply(request: request, outcomes: results, base: from, version: version,
                                    clock: maxStamp, changes: changes(since: from))))
            if version != before { poke(except: c, out: &out) }
        case .adminWrite(let w):
            // Seed data (before anything happened) predates every clock; later admin writes are
            // stamped by the server's HLC, which follows every client stamp it has seen.
            let seed = now == 0 && !heardFromClient && nextTx == 1
            let stamp = seed ? HLCTimestamp(physical: Int64.min, logical: 1, node: HLCTimestamp.serverNode) : clock.tick(now: now)
            if stamp > maxStamp { maxStamp = stamp }
            let before = version
            _ = commit(w.ops, stamp: stamp, writes: [w.id], origin: .admin, out: &out)
            if version != before { poke(except: nil, out: &out) }
        case .clientConnected, .clientDisconnected, .timerFired:
            break
        }
    }

    mutating func observeClient(_ s: HLCTimestamp, now: Int64) {
        guard !s.isServerOrigin, s.physical != Int64.min else { return }
        if s > maxStamp { maxStamp = s }
        clock.observe(s, now: now)
    }

    mutating func commit(_ ops: [Op], stamp: HLCTimestamp, writes: [WriteID], origin: Origin,
                         out: inout ServerOutbox<Down>) -> ReferenceOutcome {
        // A list kept between commits for its capacity (one made per commit cost an allocation).
        var touched: [Int] = []
        swap(&touched, &scratchTouched)
        defer { touched.removeAll(keepingCapacity: true); swap(&touched, &scratchTouched) }
        switch table.apply(ops, stamp: stamp, version: version + 1, schema: schema, touched: &touched) {
        case .success(let effective):
            version += 1
            for i in touched { changeLog.append((version, i)) }
            let tx = AppliedTransaction(txID: nextTx, origin: origin, writes: writes, ops: effective)
            nextTx += 1
            out(.applied(tx))
            return .applied(version: version)
        case .failure(let why):
            out(.refused(origin: origin, writes: writes, reason: why.description))
            return .refused(why)
        }
    }

    /// `table.changes(since:)` (every entity whose version is above `v`, in id order), from the
    /// change log: an entity's version is the one of the last transaction that put it, so the
    /// entities above `v` are exactly those the log names after `v`. A long tail (a client
    /// starting from nothing) scans the table instead. The tail is found by binary search (the
    /// versions ascend): walking back to it cost the whole log for a client starting from
    /// nothing, and the log grows with the run.
    func changes(since v: UInt64) -> [EntityChange] {
        var k = 0, hi = changeLog.count
        while k < hi { let m = (k + hi) / 2; if changeLog[m].version > v { hi = m } else { k = m + 1 } }
        if changeLog.count - k >= table.states.count { return table.changes(since: v) }
        var slots: [Int] = []
        slots.reserveCapacity(changeLog.count - k)
        for j in k..<changeLog.count { slots.append(changeLog[j].slot) }
        slots.sort()
        var out: [EntityChange] = []
        var last = -1
        for i in slots where i != last {
            last = i
            if let s = table.states[i], s.version > v { out.append(EntityChange(id: EntityID(UInt32(i)), state: s)) }
        }
        return out
    }

    mutating func poke(except: ClientID?, out: inout ServerOutbox<Down>) {
        for i in known.indices where known[i] && ClientID(i) != except {
            out(.send(ClientID(i), .poke(version: version)))
        }
    }
}
