/// Feeds a recorded history, line by line, to the same `Monitor` that judges simulations.
///
/// The replayer is the recorded system's stand-in for `Simulator<S>`: it answers the oracles'
/// reads (`ObservedSystem`) from what the recording said last — the last result each
/// subscription yielded or was seen to show, the last pending queue, the device's last network
/// report, the server's data after each commit — and calls the monitor at the points the
/// simulator does (before and after each user action, on each thing a user is told, on each
/// commit and refusal, at the end). Memory is what the oracles keep (intents, the server's log,
/// what users were told) plus the current views: the file itself is never held.
///
/// **Time and order.** The file's order is the order of judgement: server lines in commit order
/// (the server's order is authoritative for everything "last writer" and "older" mean), each
/// client's lines in that device's order (checked with `seq` when present). `t` values are
/// only compared where the oracles compare times (a client's own writes, feedback delays, HLC
/// bounds); they need not be synchronised across devices, and may go backwards between lines of
/// different devices. Device clocks belong in `clientTime`.
struct HistoryReplayer {
    /// The oracles' view of the recorded system (kept apart from `monitor`, so the monitor can be
    /// handed it while being mutated).
    struct State: ObservedSystem {
        var virtualTime: Int64 = 0
        var history = History()
        let clientCount: Int
        let queueCap: Int
        let persistence: Bool
        let arbitration: Arbitration
        let skews: [Int64]
        let schema: Schema
        var subs: [[(SubscriptionID, Query)]]
        /// What each subscription shows, per client: only looked up, never iterated.
        var views: [[UInt32: QueryResult?]]
        var pending: [[WriteID]]
        var offline: [Bool]
        var unreachable: [Bool]
        var serverData: EntityStore

        func skew(of c: ClientID) -> Int64 { c.index < skews.count ? skews[c.index] : 0 }
        func subscriptions(of c: ClientID) -> [(SubscriptionID, Query)] { subs[c.index] }
        func shown(_ c: ClientID, _ s: SubscriptionID) -> QueryResult? { views[c.index][s.raw] ?? nil }
        func pendingWrites(of c: ClientID) -> [WriteID] { pending[c.index] }
        func pendingWriteCount(of c: ClientID) -> Int { pending[c.index].count }
        func isOffline(_ c: ClientID) -> Bool { offline[c.index] }
        func isUnreachable(_ c: ClientID) -> Bool { !offline[c.index] && unreachable[c.index] }
    }

    /// Which kinds of facts the history had: an oracle whose inputs were never recorded is
    /// listed as not run instead of judging silence as an answer.
    struct Seen {
        var views = false
        var queue = false
        var network = false
        var heal = false
        var end = false
        var serverState = false
        var commits = 0
        var intents = 0
        var told = 0
        var lines = 0
    }

    var state: State
    var monitor: Monitor
    var seen = Seen()
    let header: HistoryHeader
    let arbitrationDeclared: Bool
    /// The user action being handled (between its line and `done`), and the line it started on.
    var open: (client: ClientID, command: UserCommand, line: Int)?
    var lastSeq: [Int64?]
    var finished = false
    /// Optional story lines, for `check --trace` (nil: not kept).
    var story: [TraceLine]?

    init(header: HistoryHeader, arbitration: Arbitration?, keepStory: Bool) {
        self.header = header
        let n = header.clients
        let arb = arbitration ?? header.arbitration
        arbitrationDeclared = arb != nil
        state = State(clientCount: n, queueCap: header.queueCap ?? Int.max, persistence: header.persistence,
                      arbitration: arb ?? .serverArrival, skews: header.skews, schema: header.schema,
                      subs: Array(repeating: [], count: n), views: Array(repeating: [:], count: n),
                      pending: Array(repeating: [], count: n), offline: Array(repeating: false, count: n),
                      unreachable: Array(repeating: false, count: n), serverData: header.initial)
        monitor = Monitor(clients: n, schema: header.schema)
        monitor.noteInitialData(header.initial)
        lastSeq = Array(repeating: nil, count: n)
        story = keepStory ? [] : nil
    }

    typealias F = HistoryFields

    static let eventKinds = ["write", "subscribe", "unsubscribe", "queryOnce", "resolve", "forceSync", "syncNow", "dropOldest", "done",
                             "confirmed", "rejected", "yield", "queryResult", "queryFailed", "conflict", "notice", "invalidInput",
                             "view", "queue", "net", "connect", "request", "restart",
                             "commit", "refuse", "server", "heal", "unsettled", "end"]

    /// Judges one line (already parsed). Throws `HistoryFields.Failure` for what the line gets wrong.
    mutating func consume(_ node: JSONNode, line: Int) throws {
        let o = try F(node, path: "")
        let kind = try o.string("e")
        guard !finished else { throw o.fail("e", "a line after the 'end' line; 'end' must be the last line") }
        seen.lines += 1
        let t = try o.time()
        state.virtualTime = t
        let schema = header.schema
        let n = header.clients
        func client() throws -> ClientID {
            let c = try o.client("client", clients: n)
            if let s = try o.optionalInt("seq", HistoryLimits.txIDs) {
                if let last = lastSeq[c.index], s <= last {
                    throw o.fail("seq", "\(c)'s sequence number \(s) does not follow its previous \(last): each device's lines must be in its own order")
                }
                lastSeq[c.index] = s
            }
            return c
        }
        switch kind {
        case "write":
            try o.only(["e", "t", "client", "seq", "id", "clientTime", "offline", "burst", "ops"])
            let origin = try o.origin("client", clients: n)
            let id = try o.writeID("id")
            if state.history.intent(id) != nil { throw o.fail("id", "write \(id) was already made earlier in the history; write ids must be unique") }
            let ops = try HistoryCodec.ops(try o.required("ops"), "ops", schema)
            let burst = try o.optionalInt("burst", HistoryLimits.smallIDs).map { UInt32($0) }
            let clientTime = try o.optionalInt("clientTime", HistoryLimits.clientTimes) ?? t
            let offline = try o.bool("offline", default: false)
            // (The client and its sequence number are checked before anything changes; an error
            // ends the check, so where it is found changes nothing else.)
            let who: Origin
            switch origin {
            case .admin: who = .admin
            case .client: who = .client(try client())
            }
            made(UserWrite(id: id, ops: ops, burst: burst), by: who, at: t, clientTime: clientTime, offline: offline, line: line)
        case "subscribe":
            try o.only(["e", "t", "client", "seq", "sub", "query"])
            let c = try client()
            let s = SubscriptionID(try o.smallID("sub"))
            let q = try HistoryCodec.query(try o.required("query"), "query", schema)
            closeAction()
            guard !state.subs[c.index].contains(where: { $0.0 == s }) else { throw o.fail("sub", "\(c) already has \(s) open") }
            guard state.subs[c.index].count < HistoryLimits.maxOpenSubscriptions else {
                throw o.fail("sub", "more than \(HistoryLimits.maxOpenSubscriptions) subscriptions open on \(c)")
            }
            state.subs[c.index].append((s, q))
            state.subs[c.index].sort { $0.0 < $1.0 }
            note(t, .action, c, "\(c) subscribes \(s) to \(q)")
            begin(c, .subscribe(s, q), line: line)
        case "unsubscribe":
            try o.only(["e", "t", "client", "seq", "sub"])
            let c = try client()
            let s = SubscriptionID(try o.smallID("sub"))
            closeAction()
            state.subs[c.index].removeAll { $0.0 == s }
            note(t, .action, c, "\(c) unsubscribes \(s)")
            begin(c, .unsubscribe(s), line: line)
        case "queryOnce":
            try o.only(["e", "t", "client", "seq", "req", "query"])
            let c = try client()
            let r = QueryRequestID(try o.smallID("req"))
            let q = try HistoryCodec.query(try o.required("query"), "query", schema)
            closeAction()
            note(t, .action, c, "\(c) queryOnce \(r) \(q)")
            begin(c, .queryOnce(r, q), line: line)
        case "resolve":
            try o.only(["e", "t", "client", "seq", "conflict", "choice"])
            let c = try client()
            let id = ConflictID(try o.smallID("conflict"))
            let ch = try HistoryCodec.choice(o)
            closeAction()
            note(t, .action, c, "\(c) resolves \(id): \(ch.rawValue)")
            begin(c, .resolveConflict(id, ch), line: line)
        case "forceSync":
            try o.only(["e", "t", "client", "seq", "choice"])
            let c = try client()
            let ch = try HistoryCodec.choice(o)
            closeAction()
            note(t, .action, c, "\(c) \(UserCommand.forceSync(ch))")
            begin(c, .forceSync(ch), line: line)
        case "syncNow":
            try o.only(["e", "t", "client", "seq"])
            let c = try client()
            closeAction()
            note(t, .action, c, "\(c) \(UserCommand.syncNow)")
            begin(c, .syncNow, line: line)
        case "dropOldest":
            try o.only(["e", "t", "client", "seq"])
            let c = try client()
            closeAction()
            note(t, .action, c, "\(c) \(UserCommand.dropOldestWrite)")
            begin(c, .dropOldestWrite, line: line)
        case "done":
            try o.only(["e", "t", "client", "seq"])
            let c = try client()
            guard open?.client == c else {
                throw o.fail("client", open.map { "the open action is \($0.client)'s (line \($0.line)), not \(c)'s" } ?? "no user action of \(c) is open ('done' closes the action a write, subscribe, unsubscribe, queryOnce, resolve, forceSync, syncNow or dropOldest line opened)")
            }
            closeAction()
        case "confirmed", "rejected", "yield", "queryResult", "queryFailed", "conflict", "notice", "invalidInput":
            try told(kind, o, try client(), t)
        case "view":
            try o.only(["e", "t", "client", "seq", "sub", "result"])
            let c = try client()
            let s = try o.smallID("sub")
            let r = try HistoryCodec.result(try o.required("result"), "result", schema)
            try remember(r, c, s, o)
        case "queue":
            try o.only(["e", "t", "client", "seq", "writes", "silent"])
            let c = try client()
            let ws = try o.writeIDs("writes")
            let silent = try o.bool("silent", default: false)
            queued(ws, c, silent: silent, at: t)
        case "net":
            try o.only(["e", "t", "client", "seq", "device", "reachable"])
            let c = try client()
            seen.network = true
            if let d = o.node("device") {
                let s = try F.string(d, "device")
                guard s == "online" || s == "offline" else { throw F.fail(d, "device", "expected \"online\" or \"offline\"") }
                state.offline[c.index] = s == "offline"
                note(t, .network, c, "\(c) goes \(s)")
            }
            if o.has("reachable") {
                let r = try o.bool("reachable")
                state.unreachable[c.index] = !r
                note(t, .network, c, r ? "the server is reachable from \(c) again" : "the server becomes unreachable from \(c)")
            }
            if !o.has("device") && !o.has("reachable") { throw o.fail(nil, "a 'net' line needs \"device\" (\"online\"/\"offline\") or \"reachable\" (true/false)") }
        case "connect":
            try o.only(["e", "t", "client", "seq"])
            let c = try client()
            if state.offline[c.index] {
                state.history.recordConnectWhileOffline(c, at: t)
                monitor.connectWhileOffline(c, at: t)
            }
        case "request":
            try o.only(["e", "t", "client", "seq"])
            let c = try client()
            if state.offline[c.index] { monitor.requestWhileOffline(c, at: t) }
        case "restart":
            try o.only(["e", "t", "client", "seq", "pendingAtCrash", "pendingAfter"])
            let c = try client()
            let before = try o.writeIDs("pendingAtCrash")
            let after = try o.writeIDs("pendingAfter")
            state.history.recordRestart(c, at: t, pendingAtCrash: before, pendingAfter: after)
            note(t, .network, c, "\(c) crashes and relaunches")
        case "commit":
            try o.only(["e", "t", "tx", "origin", "writes", "ops", "after", "superseded"])
            let tx = AppliedTransaction(txID: UInt64(try o.int("tx", HistoryLimits.txIDs)), origin: try o.origin("origin", clients: n),
                                        writes: try o.writeIDs("writes"), ops: try HistoryCodec.ops(try o.required("ops"), "ops", schema),
                                        superseded: o.has("superseded") ? try o.writeIDs("superseded") : [])
            committed(tx, after: try o.node("after").map { try HistoryCodec.records($0, "after", schema) }, at: t)
        case "refuse":
            try o.only(["e", "t", "origin", "writes", "reason"])
            let origin = try o.origin("origin", clients: n)
            let ws = try o.writeIDs("writes")
            let why = try o.optionalString("reason") ?? ""
            note(t, .refused, nil, "server refuses \(ws.map(\.description).joined(separator: ", ")) from \(origin): \(why)")
            monitor.refused(origin, ws)
        case "server":
            try o.only(["e", "t", "data"])
            var d = EntityStore()
            for (e, r) in try HistoryCodec.records(try o.required("data"), "data", schema) { d[e] = r }
            state.serverData = d
            seen.serverState = true
        case "heal":
            try o.only(["e", "t"])
            state.history.setHealTime(t)
            seen.heal = true
            note(t, .heal, nil, "heal: every client online and reachable")
        case "unsettled":
            try o.only(["e", "t", "why"])
            monitor.liveness(at: t, try o.optionalString("why") ?? "the system did not settle")
        case "end":
            try o.only(["e", "t", "heal"])
            if let h = try o.optionalInt("heal", HistoryLimits.times) {
                state.history.setHealTime(h)
                seen.heal = true
            }
            seen.end = true
            finish()
        default:
            throw o.fail("e", "unknown event '\(JSONText.clipped(kind))'\(suggestion(kind, Self.eventKinds)); expected one of: \(Self.eventKinds.joined(separator: ", "))")
        }
    }

    /// Something the user was told: recorded, then shown to the oracles as the simulator shows them.
    mutating func told(_ kind: String, _ o: F, _ c: ClientID, _ t: Int64) throws {
        let ev: UserEvent
        switch kind {
        case "confirmed":
            try o.only(["e", "t", "client", "seq", "write"])
            ev = .writeConfirmed(try o.writeID("write"))
        case "rejected":
            try o.only(["e", "t", "client", "seq", "write", "reason", "detail"])
            ev = .writeRejected(try o.writeID("write"), try HistoryCodec.reason(o))
        case "yield":
            try o.only(["e", "t", "client", "seq", "sub", "fromCache", "connected", "result"])
            let s = try o.smallID("sub")
            if let r = o.node("result") { try remember(try HistoryCodec.result(r, "result", header.schema), c, s, o) }
            ev = .subscriptionYielded(SubscriptionID(s), fromCache: try o.bool("fromCache", default: false))
        case "queryResult":
            try o.only(["e", "t", "client", "seq", "req"])
            ev = .queryOnceResult(QueryRequestID(try o.smallID("req")))
        case "queryFailed":
            try o.only(["e", "t", "client", "seq", "req", "offline", "stale", "result"])
            let r = QueryRequestID(try o.smallID("req"))
            let offline = try o.bool("offline")
            if let n = o.node("result") {
                // The last known result itself: stale by definition, and a result, not "nothing".
                guard try o.bool("stale", default: true) else { throw o.fail("stale", "a failure that carries a last known result is stale: drop 'stale' or set it to true") }
                guard let last = try HistoryCodec.result(n, "result", header.schema) else { throw o.fail("result", "a last known result is a result, not null: drop 'result' when there is none") }
                ev = .queryOnceFailedWithResult(r, offline: offline, lastKnown: last)
            } else {
                ev = .queryOnceFailed(r, offline: offline, hasStaleResult: try o.bool("stale", default: false))
            }
        case "conflict":
            try o.only(["e", "t", "client", "seq", "conflict", "entity"])
            ev = .conflictRaised(ConflictID(try o.smallID("conflict")), try o.entity("entity"))
        case "notice":
            try o.only(["e", "t", "client", "seq", "text"])
            ev = .notice(try o.string("text"))
        default:
            try o.only(["e", "t", "client", "seq", "text"])
            ev = .invalidInput(try o.string("text"))
        }
        let connected = try o.bool("connected", default: !state.offline[c.index] && !state.unreachable[c.index])
        told(ev, c, connected: connected, at: t)
    }

    // MARK: - Effects of a line, once it is read (shared by `consume` and `apply`)

    /// The user `origin` made write `w`: recorded, and for a client, its user action opens.
    mutating func made(_ w: UserWrite, by origin: Origin, at t: Int64, clientTime: Int64, offline: Bool, line: Int) {
        closeAction()
        seen.intents += 1
        switch origin {
        case .admin:
            state.history.recordIntent(w, origin: .admin, time: t, clientTime: clientTime, whileDisconnected: false)
            monitor.intent(w)
            note(t, .admin, nil, "admin writes \(w) (\(w.id))")
        case .client(let c):
            state.history.recordIntent(w, origin: .client(c), time: t, clientTime: clientTime, whileDisconnected: offline)
            note(t, .action, c, "\(c) \(w) (\(w.id))")
            begin(c, .write(w), line: line)
        }
    }

    /// User `c` was told `ev`: recorded, then shown to the oracles as the simulator shows them.
    mutating func told(_ ev: UserEvent, _ c: ClientID, connected: Bool, at t: Int64) {
        seen.told += 1
        state.history.recordTold(ev, to: c, at: t)
        var query: Query?
        if case .subscriptionYielded(let s, let fromCache) = ev {
            if !fromCache { query = state.subs[c.index].first { $0.0 == s }?.1 }
        } else if story != nil {
            note(t, .event, c, "\(c) \(ev)")
            if case .queryOnceFailedWithResult(_, _, let last) = ev { note(t, .event, c, "\(c)'s last known result: \(last.lastKnownText)") }
        }
        monitor.told(c, ev, connected: connected, query: query)
        switch ev {
        case .subscriptionYielded, .writeRejected, .writeConfirmed: monitor.observe(c, ev, state)
        default: break
        }
    }

    /// `c`'s queue of pending writes is now `ws`.
    mutating func queued(_ ws: [WriteID], _ c: ClientID, silent: Bool, at t: Int64) {
        state.pending[c.index] = ws
        seen.queue = true
        if !silent { monitor.pending(c, count: ws.count, at: t) }
    }

    /// The server committed `tx`; `after` is what its entities hold afterwards, when recorded
    /// (else the operations are applied to the server's data as recorded so far).
    mutating func committed(_ tx: AppliedTransaction, after: [(EntityID, EntityRecord)]?, at t: Int64) {
        if let recs = after {
            for op in tx.ops { state.serverData[op.entity] = nil }
            for (e, r) in recs { state.serverData[e] = r }
        } else {
            for op in tx.ops { _ = state.serverData.apply(op, schema: header.schema, mode: .upsert) }
        }
        seen.commits += 1
        state.history.recordApplied(tx, at: t)
        if story != nil {
            let ws = tx.writes.isEmpty ? "" : " [" + tx.writes.map(\.description).joined(separator: ", ") + "]"
            note(t, .applied, nil, "server applies tx \(tx.txID) from \(tx.origin)\(ws)\(tx.supersededText): " + tx.ops.map(\.description).joined(separator: "; "))
        }
        monitor.applied(tx, data: state.serverData, at: t)
    }

    /// What subscription `s` of `c` shows now. The table is bounded: a history naming millions
    /// of subscriptions is refused, not allowed to exhaust memory.
    mutating func remember(_ r: QueryResult?, _ c: ClientID, _ s: UInt32, _ o: F) throws {
        if state.views[c.index][s] == nil && state.views[c.index].count >= HistoryLimits.maxOpenSubscriptions {
            throw o.fail("sub", "more than \(HistoryLimits.maxOpenSubscriptions) distinct subscriptions shown on \(c)")
        }
        state.views[c.index][s] = .some(r)
        seen.views = true
    }

    mutating func begin(_ c: ClientID, _ cmd: UserCommand, line: Int) {
        open = (c, cmd, line)
        monitor.beforeCommand(c, cmd, state)
    }

    /// Ends the open user action, if any: the oracles judge what the app showed during it.
    mutating func closeAction() {
        guard let a = open else { return }
        open = nil
        monitor.afterCommand(a.client, a.command, state)
    }

    /// The end of the history: closes the open action and runs the end-of-run oracles.
    mutating func finish() {
        guard !finished else { return }
        closeAction()
        finished = true
        monitor.finish(state)
    }

    mutating func note(_ t: Int64, _ kind: TraceKind, _ c: ClientID?, _ text: @autoclosure () -> String) {
        guard story != nil else { return }
        story!.append(TraceLine(time: t, kind: kind, client: c?.index, message: nil, upward: nil, label: kind.rawValue, text: text()))
    }
}
