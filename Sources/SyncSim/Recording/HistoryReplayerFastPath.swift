/// The replayer's fast path: applies a line decoded by `HistoryLineDecoder` with exactly the
/// effects `consume` has for the same line.
///
/// Why it can refuse: `consume` interleaves reading with checks against what came before (a
/// repeated write id, a sequence number going back, a `done` with no open action). Here every
/// such check runs first, before anything changes; if one fails the method returns false with
/// the replayer untouched, and the caller hands the line to `consume`, which finds the same
/// problem and reports it precisely. The effects themselves are the shared methods `made`,
/// `told`, `queued` and `committed`, so the two paths cannot drift apart in what they do.
extension HistoryReplayer {
    /// Applies `ev` (from line number `line`); false, with nothing changed, when the exact path
    /// must judge the line instead.
    mutating func apply(_ ev: HistoryEvent, line: Int) -> Bool {
        typealias K = HistoryEvent.Key
        guard !finished, ev.has(.e), ev.has(.t) else { return false }
        // The client of a device's line, and its sequence number, checked (not yet recorded).
        var c = ClientID(0)
        func device() -> Bool {
            guard case .client(let x) = ev.client, ev.has(.client) else { return false }
            c = ClientID(x)
            if let s = ev.seq, let last = lastSeq[x], s <= last { return false }
            return true
        }
        switch ev.kind {
        case .write:
            guard ev.only([.e, .t, .client, .seq, .id, .clientTime, .offline, .burst, .ops]), ev.has(.client), ev.has(.id), ev.has(.ops),
                  state.history.intent(WriteID(UInt32(ev.id))) == nil else { return false }
            let origin: Origin
            if ev.client == .admin { origin = .admin } else {
                guard device() else { return false }
                origin = .client(c)
            }
            start(ev)
            if case .client = origin { sequence(ev, c) }
            made(UserWrite(id: WriteID(UInt32(ev.id)), ops: ev.ops, burst: ev.burst.map { UInt32($0) }), by: origin, at: ev.t,
                 clientTime: ev.clientTime ?? ev.t, offline: ev.offline, line: line)
        case .yield:
            guard ev.only([.e, .t, .client, .seq, .sub, .fromCache, .connected, .result]), ev.has(.sub), device() else { return false }
            if let r = ev.result {
                guard roomToShow(c, UInt32(ev.sub)) else { return false }
                start(ev)
                sequence(ev, c)
                show(r, c, UInt32(ev.sub))
            } else {
                start(ev)
                sequence(ev, c)
            }
            told(.subscriptionYielded(SubscriptionID(UInt32(ev.sub)), fromCache: ev.fromCache), c,
                 connected: ev.has(.connected) ? ev.connected : !state.offline[c.index] && !state.unreachable[c.index], at: ev.t)
        case .view:
            guard ev.only([.e, .t, .client, .seq, .sub, .result]), ev.has(.sub), let r = ev.result, device(),
                  roomToShow(c, UInt32(ev.sub)) else { return false }
            start(ev)
            sequence(ev, c)
            show(r, c, UInt32(ev.sub))
        case .queue:
            guard ev.only([.e, .t, .client, .seq, .writes, .silent]), ev.has(.writes), device() else { return false }
            start(ev)
            sequence(ev, c)
            queued(ev.writes, c, silent: ev.silent, at: ev.t)
        case .done:
            guard ev.only([.e, .t, .client, .seq]), device(), open?.client == c else { return false }
            start(ev)
            sequence(ev, c)
            closeAction()
        case .commit:
            guard ev.only([.e, .t, .tx, .origin, .writes, .ops, .after]), ev.has(.tx), ev.has(.origin), ev.has(.writes), ev.has(.ops) else { return false }
            let origin: Origin
            switch ev.origin {
            case .admin: origin = .admin
            case .client(let x): origin = .client(ClientID(x))
            }
            start(ev)
            committed(AppliedTransaction(txID: UInt64(ev.tx), origin: origin, writes: ev.writes, ops: ev.ops), after: ev.after, at: ev.t)
        case .confirmed:
            guard ev.only([.e, .t, .client, .seq, .write]), ev.has(.write), device() else { return false }
            start(ev)
            sequence(ev, c)
            told(.writeConfirmed(WriteID(UInt32(ev.write))), c, connected: !state.offline[c.index] && !state.unreachable[c.index], at: ev.t)
        }
        return true
    }

    /// What every line does first (`consume`'s opening).
    private mutating func start(_ ev: HistoryEvent) {
        seen.lines += 1
        state.virtualTime = ev.t
    }

    /// Records a device line's sequence number (already checked to follow the previous one).
    private mutating func sequence(_ ev: HistoryEvent, _ c: ClientID) {
        if let s = ev.seq { lastSeq[c.index] = s }
    }

    /// Whether subscription `s` of `c` may be shown without exceeding the table's bound (`remember`).
    private func roomToShow(_ c: ClientID, _ s: UInt32) -> Bool {
        state.views[c.index][s] != nil || state.views[c.index].count < HistoryLimits.maxOpenSubscriptions
    }

    private mutating func show(_ r: QueryResult?, _ c: ClientID, _ s: UInt32) {
        state.views[c.index][s] = .some(r)
        seen.views = true
    }
}
