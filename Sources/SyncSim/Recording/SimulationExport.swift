/// Writes a simulated run as a history (`run --history`, `replay --history`): the simulator is
/// recorded like a real system, through `HistoryRecorder`, so the format is exercised both ways
/// and `syncsim check` of the file must find exactly the run's violations.
///
/// Exactness rule: the file carries what the `Monitor` was fed, at the moments it was fed. The
/// simulator calls in here right before each monitor call; before any line whose oracles read
/// a client's state, `sync` writes what changed since the file last said it — a subscription's
/// result that changed without a yield (`view`), a queue that changed without the client
/// reporting (`queue … silent`). So the replayer's answers to the oracles' reads equal the
/// simulator's at every read. One branch per call site when not exporting.
@usableFromInline
final class SimulationExport {
    let recorder: HistoryRecorder
    /// What the file last said each subscription shows, per client (absent: nothing).
    var views: [[UInt32: QueryResult?]]
    /// What the file last said each client's queue holds, and the count the monitor last got.
    var queues: [[WriteID]]
    var reportedCounts: [Int]
    var seq: [Int64]
    /// Per client: the open user action has no line in the format (`switchTenant`, `logout`),
    /// so its end writes none either.
    var unrecorded: [Bool]

    @usableFromInline init(header: HistoryHeader, sink: @escaping (String) -> Void) {
        recorder = HistoryRecorder(header: header, sink: sink)
        let n = header.clients
        views = Array(repeating: [:], count: n)
        queues = Array(repeating: [], count: n)
        reportedCounts = Array(repeating: 0, count: n)
        seq = Array(repeating: 0, count: n)
        unrecorded = Array(repeating: false, count: n)
    }

    func next(_ c: ClientID) -> Int64 {
        seq[c.index] += 1
        return seq[c.index]
    }

    /// Writes what changed of `c`'s observable state (except subscription `skip`).
    func sync<O: ObservedSystem>(_ c: ClientID, _ o: O, skip: SubscriptionID? = nil) {
        let t = o.virtualTime
        for (s, _) in o.subscriptions(of: c) where s != skip {
            let r = o.shown(c, s)
            if (views[c.index][s.raw] ?? nil) != r {
                views[c.index][s.raw] = .some(r)
                recorder.shows(s, r, client: c, at: t, seq: next(c))
            }
        }
        let p = o.pendingWrites(of: c)
        if p != queues[c.index] {
            queues[c.index] = p
            recorder.queue(p, client: c, at: t, seq: next(c), silent: true)
        }
    }

    @usableFromInline func adminWrite(_ w: UserWrite, at t: Int64) {
        recorder.write(w, client: nil, at: t)
    }

    /// A user action, before `Monitor.beforeCommand`.
    @usableFromInline func command<O: ObservedSystem>(_ c: ClientID, _ cmd: UserCommand, clientTime: Int64, offline: Bool, _ o: O) {
        sync(c, o)
        let t = o.virtualTime
        switch cmd {
        case .write(let w): recorder.write(w, client: c, at: t, clientTime: clientTime, seq: next(c), offline: offline)
        case .subscribe(let s, let q): recorder.subscribe(s, q, client: c, at: t, seq: next(c))
        case .unsubscribe(let s): recorder.unsubscribe(s, client: c, at: t, seq: next(c))
        case .queryOnce(let r, let q): recorder.queryOnce(r, q, client: c, at: t, seq: next(c))
        case .resolveConflict(let id, let ch): recorder.resolveConflict(id, ch, client: c, at: t, seq: next(c))
        case .forceSync(let ch): recorder.forceSync(ch, client: c, at: t, seq: next(c))
        case .syncNow: recorder.syncNow(client: c, at: t, seq: next(c))
        case .dropOldestWrite: recorder.dropOldest(client: c, at: t, seq: next(c))
        case .switchTenant, .logout:
            // The history format has no line for tenants (`tenantIsolation` is not judged from
            // histories, `HistoryCoverage`): the rejections they cause are recorded as told
            // events, and the action itself (and its end) is left out.
            unrecorded[c.index] = true
        }
    }

    /// The end of a user action, before `Monitor.afterCommand`.
    @usableFromInline func done<O: ObservedSystem>(_ c: ClientID, _ o: O) {
        sync(c, o)
        if unrecorded[c.index] {
            unrecorded[c.index] = false
            return
        }
        recorder.actionDone(client: c, at: o.virtualTime, seq: next(c))
    }

    /// Something a user is told, before `Monitor.told`/`observe`.
    @usableFromInline func told<O: ObservedSystem>(_ c: ClientID, _ ev: UserEvent, connected: Bool, _ o: O) {
        let t = o.virtualTime
        if case .subscriptionYielded(let s, _) = ev {
            sync(c, o, skip: s)
            let r = o.shown(c, s)
            var result: QueryResult?? = nil
            if (views[c.index][s.raw] ?? nil) != r {
                views[c.index][s.raw] = .some(r)
                result = .some(r)
            }
            recorder.told(ev, client: c, at: t, seq: next(c), result: result, connected: connected)
        } else {
            sync(c, o)
            recorder.told(ev, client: c, at: t, seq: next(c))
        }
    }

    /// Where the simulator calls `Monitor.pending`: a line only when the monitor learns something.
    @usableFromInline func pending<O: ObservedSystem>(_ c: ClientID, count n: Int, _ o: O) {
        let p = o.pendingWrites(of: c)
        guard n != reportedCounts[c.index] || p != queues[c.index] else { return }
        reportedCounts[c.index] = n
        queues[c.index] = p
        recorder.queue(p, client: c, at: o.virtualTime, seq: next(c))
    }

    /// A commit, with the server's data after it for every entity it touched.
    @usableFromInline func applied(_ tx: AppliedTransaction, data: EntityStore, at t: Int64) {
        var touched: [EntityID] = []
        for op in tx.ops where !touched.contains(op.entity) { touched.append(op.entity) }
        recorder.commit(tx, at: t, after: touched.map { ($0, data[$0]) })
    }

    @usableFromInline func refused(_ origin: Origin, _ writes: [WriteID], reason: String, at t: Int64) {
        recorder.refused(writes, origin: origin, reason: reason, at: t)
    }

    @usableFromInline func device(_ c: ClientID, online: Bool, at t: Int64) { recorder.device(online: online, client: c, at: t, seq: next(c)) }
    @usableFromInline func reachable(_ c: ClientID, _ r: Bool, at t: Int64) { recorder.reachable(r, client: c, at: t, seq: next(c)) }
    @usableFromInline func connect(_ c: ClientID, at t: Int64) { recorder.connectAttempt(client: c, at: t, seq: next(c)) }
    @usableFromInline func request(_ c: ClientID, at t: Int64) { recorder.request(client: c, at: t, seq: next(c)) }
    @usableFromInline func restart(_ c: ClientID, at t: Int64, pendingAtCrash: [WriteID], pendingAfter: [WriteID]) {
        recorder.restart(client: c, at: t, pendingAtCrash: pendingAtCrash, pendingAfter: pendingAfter, seq: next(c))
    }
    @usableFromInline func heal(at t: Int64) { recorder.heal(at: t) }
    @usableFromInline func unsettled(_ why: String, at t: Int64) { recorder.unsettled(why, at: t) }

    /// Before `Monitor.finish`: every client's state, the server's data, the end.
    @usableFromInline func end<O: ObservedSystem>(_ o: O) {
        for i in 0..<o.clientCount { sync(ClientID(i), o) }
        recorder.serverState(o.serverData, at: o.virtualTime)
        recorder.end(at: o.virtualTime, heal: o.history.healTime)
    }
}
