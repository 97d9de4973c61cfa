import Foundation

/// Appends the events of a real (or simulated) sync system to a history in SyncSim's format,
/// one JSON line per call, so `syncsim check` can judge it with the same oracles as a simulation.
///
/// Call it where the facts happen: in the app when the user writes, subscribes or is told
/// something and when the write queue changes; in the server when it commits or refuses a
/// transaction. The format is the contract — a JavaScript or Kotlin app writes the same lines
/// itself (see the RecordingHistories article); this class only saves a Swift app from spelling
/// them. Thread-safe: calls from several threads are serialised, each line written whole.
///
/// ```swift
/// let rec = try HistoryRecorder(header: HistoryHeader(clients: 2, queueCap: 200), appendingTo: "staging.jsonl")
/// rec.write(UserWrite(id: WriteID(7), ops: [.update(EntityID(3), todos, [FieldAssignment(title, "milk")])]),
///           client: ClientID(0), at: nowMs, seq: 41)
/// rec.actionDone(client: ClientID(0), at: nowMs)
/// rec.commit(AppliedTransaction(txID: 90, origin: .client(ClientID(0)), writes: [WriteID(7)], ops: ops), at: serverNowMs)
/// ```
///
/// Times are milliseconds on one clock where possible (the collector's); device clocks go in
/// `clientTime`. The file's order is the order the oracles judge in: write the server's lines in
/// commit order and each device's lines in its own order (`seq`, a per-device counter, lets the
/// checker prove it).
public final class HistoryRecorder: @unchecked Sendable {
    public let header: HistoryHeader
    private let sink: (String) -> Void
    private let lock = NSLock()
    private var file: FileHandle?

    /// Records into `sink`, one line (without its newline) per call; the header line first.
    public init(header: HistoryHeader, sink: @escaping (String) -> Void) {
        self.header = header
        self.sink = sink
        sink(header.line())
    }

    /// Records into a new file at `path` (replaced if it exists), writing each line as it comes.
    public convenience init(header: HistoryHeader, appendingTo path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
            throw ReportFileError(path: path, message: "cannot create the history file")
        }
        self.init(header: header, sink: { line in h.write(Data((line + "\n").utf8)) })
        file = h
    }

    deinit { try? file?.close() }

    var schema: Schema { header.schema }

    func emit(_ line: String) {
        lock.lock()
        sink(line)
        lock.unlock()
    }

    private func head(_ kind: String, _ t: Int64, client: ClientID?, seq: Int64?) -> String {
        var s = "{\"e\":\"\(kind)\",\"t\":\(t)"
        if let client { s += ",\"client\":\"\(client)\"" }
        if let seq { s += ",\"seq\":\(seq)" }
        return s
    }

    // MARK: - What users did (clients)

    /// A user's write (`client` nil: a server-side/admin write). `clientTime`: the device's clock
    /// when it was made (what a client timestamp says; default `t`). `offline`: the device was
    /// offline or the server unreachable. Opens a user action: the events the app showed while
    /// handling it follow, then `actionDone`.
    public func write(_ w: UserWrite, client: ClientID?, at t: Int64, clientTime: Int64? = nil, seq: Int64? = nil, offline: Bool = false) {
        var s = head("write", t, client: nil, seq: seq)
        s += ",\"client\":" + (client.map { "\"\($0)\"" } ?? "\"admin\"")
        s += ",\"id\":\(w.id.raw)"
        if let clientTime, clientTime != t { s += ",\"clientTime\":\(clientTime)" }
        if offline { s += ",\"offline\":true" }
        if let b = w.burst { s += ",\"burst\":\(b)" }
        s += ",\"ops\":"
        HistoryCodec.ops(w.ops, schema, into: &s)
        emit(s + "}")
    }

    /// The user opened subscription `s` (a screen showing query `q`).
    public func subscribe(_ s: SubscriptionID, _ q: Query, client: ClientID, at t: Int64, seq: Int64? = nil) {
        var l = head("subscribe", t, client: client, seq: seq) + ",\"sub\":\(s.raw),\"query\":"
        HistoryCodec.query(q, schema, into: &l)
        emit(l + "}")
    }

    public func unsubscribe(_ s: SubscriptionID, client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("unsubscribe", t, client: client, seq: seq) + ",\"sub\":\(s.raw)}")
    }

    /// A one-shot query (`queryOnceOfflineFails` judges what it returns while offline).
    public func queryOnce(_ r: QueryRequestID, _ q: Query, client: ClientID, at t: Int64, seq: Int64? = nil) {
        var l = head("queryOnce", t, client: client, seq: seq) + ",\"req\":\(r.raw),\"query\":"
        HistoryCodec.query(q, schema, into: &l)
        emit(l + "}")
    }

    public func resolveConflict(_ id: ConflictID, _ choice: ConflictChoice, client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("resolve", t, client: client, seq: seq) + ",\"conflict\":\(id.raw),\"choice\":\"\(choice.rawValue)\"}")
    }

    public func forceSync(_ choice: ConflictChoice, client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("forceSync", t, client: client, seq: seq) + ",\"choice\":\"\(choice.rawValue)\"}")
    }

    /// The user asked for a plain sync ("sync now", seed 004 §2.2).
    public func syncNow(client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("syncNow", t, client: client, seq: seq) + "}")
    }

    /// The user dropped the oldest queued write (seed 003's "Drop oldest" on a full queue); the
    /// rejections it causes follow as `rejected` lines.
    public func dropOldest(client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("dropOldest", t, client: client, seq: seq) + "}")
    }

    /// The app finished handling the user action opened last (what it showed meanwhile was
    /// recorded in between). Optional: the next action, of any client, closes it too.
    public func actionDone(client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("done", t, client: client, seq: seq) + "}")
    }

    // MARK: - What users were shown (clients)

    /// Something the app told the user. For a subscription yield, `result` is what the screen
    /// shows now (`.some(nil)`: nothing; nil: the same as last time) and `connected` whether the
    /// app was connected to the server (a result seen while connected is what a persistent
    /// client may show from cache later).
    public func told(_ ev: UserEvent, client: ClientID, at t: Int64, seq: Int64? = nil,
                     result: QueryResult?? = nil, connected: Bool? = nil) {
        var l: String
        switch ev {
        case .writeConfirmed(let w): l = head("confirmed", t, client: client, seq: seq) + ",\"write\":\(w.raw)"
        case .writeRejected(let w, let r):
            l = head("rejected", t, client: client, seq: seq) + ",\"write\":\(w.raw)"
            let (name, detail) = HistoryCodec.reason(r)
            l += ",\"reason\":\"\(name)\""
            if let detail { l += ",\"detail\":"; HistoryCodec.string(detail, into: &l) }
        case .subscriptionYielded(let s, let fromCache):
            l = head("yield", t, client: client, seq: seq) + ",\"sub\":\(s.raw)"
            if fromCache { l += ",\"fromCache\":true" }
            if let connected { l += ",\"connected\":\(connected)" }
            if let result { l += ",\"result\":"; HistoryCodec.result(result, schema, into: &l) }
        case .queryOnceResult(let r): l = head("queryResult", t, client: client, seq: seq) + ",\"req\":\(r.raw)"
        case .queryOnceFailed(let r, let offline, let stale):
            l = head("queryFailed", t, client: client, seq: seq) + ",\"req\":\(r.raw),\"offline\":\(offline),\"stale\":\(stale)"
        case .conflictRaised(let c, let e): l = head("conflict", t, client: client, seq: seq) + ",\"conflict\":\(c.raw),\"entity\":\(e.raw)"
        case .notice(let s): l = head("notice", t, client: client, seq: seq) + ",\"text\":"; HistoryCodec.string(s, into: &l)
        case .invalidInput(let s): l = head("invalidInput", t, client: client, seq: seq) + ",\"text\":"; HistoryCodec.string(s, into: &l)
        case .queryOnceFailedWithResult(let r, let offline, let last):
            // The last known result rides on the failure: `stale` is then true by definition.
            l = head("queryFailed", t, client: client, seq: seq) + ",\"req\":\(r.raw),\"offline\":\(offline),\"stale\":true,\"result\":"
            HistoryCodec.result(last, schema, into: &l)
        }
        emit(l + "}")
    }

    /// What subscription `s` shows changed without the app telling the user (a snapshot of the
    /// screen; the simulator writes one when a client's result changes silently).
    public func shows(_ s: SubscriptionID, _ result: QueryResult?, client: ClientID, at t: Int64, seq: Int64? = nil) {
        var l = head("view", t, client: client, seq: seq) + ",\"sub\":\(s.raw),\"result\":"
        HistoryCodec.result(result, schema, into: &l)
        emit(l + "}")
    }

    /// The client's pending (unacknowledged) writes now, in queue order: record it whenever the
    /// queue changes. `silent`: the client changed it without reporting (a simulator detail;
    /// such a line updates what the queue holds but is not a moment it emptied).
    public func queue(_ writes: [WriteID], client: ClientID, at t: Int64, seq: Int64? = nil, silent: Bool = false) {
        emit(head("queue", t, client: client, seq: seq) + ",\"writes\":" + HistoryCodec.ids(writes, \.raw) + (silent ? ",\"silent\":true}" : "}"))
    }

    // MARK: - The network (clients)

    /// The device reported going online or offline.
    public func device(online: Bool, client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("net", t, client: client, seq: seq) + ",\"device\":\"\(online ? "online" : "offline")\"}")
    }

    /// The server became reachable or unreachable from the client (the device still online).
    public func reachable(_ r: Bool, client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("net", t, client: client, seq: seq) + ",\"reachable\":\(r)}")
    }

    /// The client tried to open a connection.
    public func connectAttempt(client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("connect", t, client: client, seq: seq) + "}")
    }

    /// The client sent a request to the server.
    public func request(client: ClientID, at t: Int64, seq: Int64? = nil) {
        emit(head("request", t, client: client, seq: seq) + "}")
    }

    /// The app crashed or was killed and relaunched, with its pending writes either side.
    public func restart(client: ClientID, at t: Int64, pendingAtCrash: [WriteID], pendingAfter: [WriteID], seq: Int64? = nil) {
        emit(head("restart", t, client: client, seq: seq) + ",\"pendingAtCrash\":" + HistoryCodec.ids(pendingAtCrash, \.raw)
             + ",\"pendingAfter\":" + HistoryCodec.ids(pendingAfter, \.raw) + "}")
    }

    // MARK: - The server

    /// The server committed a transaction: its id, origin, the user writes it carries and the
    /// operations as applied; `superseded` (written only when non-empty) lists writes it
    /// acknowledged without applying them, replaced by a later write it carries (a server that
    /// combines queued transacts). `after`: each touched entity's record right after the commit
    /// (nil for one that no longer exists); give it when some operations may not take effect
    /// (a timestamp rule that keeps a newer value), else the checker applies `ops` itself.
    public func commit(_ tx: AppliedTransaction, at t: Int64, after: [(EntityID, EntityRecord?)]? = nil) {
        var l = "{\"e\":\"commit\",\"t\":\(t),\"tx\":\(tx.txID),\"origin\":" + Self.origin(tx.origin)
        l += ",\"writes\":" + HistoryCodec.ids(tx.writes, \.raw) + ",\"ops\":"
        HistoryCodec.ops(tx.ops, schema, into: &l)
        if !tx.superseded.isEmpty { l += ",\"superseded\":" + HistoryCodec.ids(tx.superseded, \.raw) }
        if let after {
            let present = after.compactMap { e, r in r.map { (e, $0) } }
            l += ",\"after\":"
            HistoryCodec.records(present, schema, into: &l)
        }
        emit(l + "}")
    }

    /// The server refused the writes of a request (first refusals are what `clientWriteOrder` reads).
    public func refused(_ writes: [WriteID], origin: Origin, reason: String, at t: Int64) {
        var l = "{\"e\":\"refuse\",\"t\":\(t),\"origin\":" + Self.origin(origin)
        l += ",\"writes\":" + HistoryCodec.ids(writes, \.raw) + ",\"reason\":"
        HistoryCodec.string(reason, into: &l)
        emit(l + "}")
    }

    /// `"A"`, or `"admin"` for the server-side writer.
    static func origin(_ o: Origin) -> String {
        if case .client(let c) = o { return "\"\(c)\"" }
        return "\"admin\""
    }

    /// The server's whole data now (write one at the end: the final-state oracles read it).
    public func serverState(_ data: EntityStore, at t: Int64) {
        var l = "{\"e\":\"server\",\"t\":\(t),\"data\":"
        HistoryCodec.records(data.entities, schema, into: &l)
        emit(l + "}")
    }

    // MARK: - The run

    /// From now on the network is healthy (every device online, the server reachable):
    /// `timelyFeedback` measures waits from here. Without one, it is not judged.
    public func heal(at t: Int64) { emit("{\"e\":\"heal\",\"t\":\(t)}") }

    /// The system did not settle (a liveness failure the recorder saw; reported as `liveness`).
    public func unsettled(_ why: String, at t: Int64) {
        var l = "{\"e\":\"unsettled\",\"t\":\(t),\"why\":"
        HistoryCodec.string(why, into: &l)
        emit(l + "}")
    }

    /// The end of the recording: the final-state oracles judge the state at this line.
    /// `heal`: when the network became healthy, if not recorded by a `heal` line.
    public func end(at t: Int64, heal: Int64? = nil) {
        emit("{\"e\":\"end\",\"t\":\(t)" + (heal.map { ",\"heal\":\($0)" } ?? "") + "}")
    }
}
