/// The oracles of what a session promises about writes and messages: `toldOutcomeIsTrue`,
/// `clientWriteOrder`, `timelyFeedback`, `linkIntegrity`, `noRequestWhileOffline`. Each reads
/// the users' intents, the server's log (and its refusals), what users were told and when a
/// client's pending queue emptied; none asks the strategy what it meant.
extension Monitor {
    /// How long after heal (or after the write, if later) a write may wait for an outcome the
    /// user sees. Twice the longest wait the modelled systems impose after a reconnect (InstantDB's
    /// 10 s reconnect cap) rounded up: long enough for every honest retry, short enough that a
    /// write parked on a long timer (a 30 s poll, a timeout scaled by the queue length) is late.
    static let feedbackBoundMs: Int64 = 20_000

    static func set(_ a: inout [Int32], _ w: WriteID, _ v: Int32) {
        let i = Int(w.raw)
        guard i < 1 << 24 else { return }   // the initial data's id (UInt32.max) is never judged
        if i >= a.count { a.append(contentsOf: repeatElement(-1, count: i - a.count + 1)) }
        a[i] = v
    }

    static func get(_ a: [Int32], _ w: WriteID) -> Int32? {
        let i = Int(w.raw)
        return i < a.count && a[i] >= 0 ? a[i] : nil
    }

    /// Each transaction: versions of the fields it assigned, positions of the writes it carries.
    ///
    /// The steps and the data's records are read in place (a `for op in tx.ops` copied each
    /// step, and `data[e]` each record: a retain and a release per array they own), and so are
    /// the assignments and the values the data holds (`OptionalPayload`): a sharedDiff save
    /// resends its whole collection, so this runs for every field of every record of it (3.1
    /// million times in a 3,000-action run), and the copy of each assignment and value, with
    /// the closure that compared it, was most of the cost.
    mutating func noteVersions(_ tx: AppliedTransaction, index: Int32, data: EntityStore) {
        for w in tx.writes {
            if Self.get(firstApplied, w) == nil { Self.set(&firstApplied, w, index) }
            Self.set(&lastApplied, w, index)
        }
        tx.ops.withUnsafeBufferPointer { ob in
            data.records.withUnsafeBufferPointer { rb in
                for k in 0..<ob.count {
                    switch ob[k] {
                    case .create(let e, _, let a), .update(let e, _, let a):
                        // (Read first: the setter checks the table's uniqueness at every step.)
                        if !serverHad[Self.entityKey(e)] { serverHad[Self.entityKey(e)] = true }
                        let i = Int(e.raw)
                        guard i < rb.count, rb[i]?.namespace != nil else { continue }
                        OptionalPayload.read(rb, i) { rec in
                            rec.pointee.values.withUnsafeBufferPointer { vb in
                                a.withUnsafeBufferPointer { ab in
                                    for m in 0..<ab.count {
                                        let f = ab[m].field
                                        let fi = Int(f.raw)
                                        // (`rb[i]?[f]`: the same value, or none past the values.)
                                        guard fi < vb.count, vb[fi] != nil else { continue }
                                        OptionalPayload.read(vb, fi) { v in versions.note(Self.key(e, f), v, tx: index) }
                                    }
                                }
                            }
                        }
                    default: break
                    }
                }
            }
        }
    }

    /// The server's data before the run (called once, after the simulator seeded it).
    @usableFromInline mutating func noteInitialData(_ data: EntityStore) { initialData = data }

    /// The server refused a transaction. Only a write's first refusal counts (a duplicate request
    /// answered again says nothing about order).
    @usableFromInline mutating func refused(_ origin: Origin, _ writes: [WriteID]) {
        let fresh = writes.filter { refusedOnce.insert($0).inserted }
        if !fresh.isEmpty { refusals.append((appliedCount, origin, fresh)) }
    }

    /// A client's pending-queue size after it handled an input.
    @usableFromInline mutating func pending(_ c: ClientID, count n: Int, at t: Int64) {
        if n == 0 && lastPending[c.index] > 0 { emptiedAt[c.index].append(t) }
        lastPending[c.index] = n
    }

    /// A client handed the network a message while its device reported offline.
    @usableFromInline mutating func requestWhileOffline(_ c: ClientID, at t: Int64) {
        report(Violation(.noRequestWhileOffline, at: t, client: c, "\(c) sent a request while its device was offline"))
    }

    /// A write told rejected never took effect; (confirmations are judged when told, `observe`).
    mutating func finishToldOutcome(_ h: History, at t: Int64) {
        for told in h.told {
            guard case .writeRejected(let w, let why) = told.event, let i = Self.get(firstApplied, w) else { continue }
            let tx = h.applied[Int(i)]
            var v = Violation(.toldOutcomeIsTrue, at: max(told.time, tx.time), client: told.client,
                              entity: h.intent(w)?.write.ops.first?.entity,
                              "\(told.client) was told \(w) was rejected (\(why)) at t=\(told.time)ms, but the server applied it in tx \(tx.tx.txID) at t=\(tx.time)ms")
            v.culprit = (h.intent(w)?.write.ops.first).map { Self.culprit(.client(told.client), $0) } .map { "\($0) told \(Self.kind(of: why)), applied" }
            report(v)
        }
    }

    /// Session order from the server's log and its refusals.
    mutating func finishClientWriteOrder(_ h: History, at t: Int64) {
        // A session is a client in one tenant (`Monitor+Tenants.swift`): writes parked in one
        // tenant's database while the user works in another are not ordered against its writes.
        let perClient = tenants.active ? ScheduleLimits.maxTenant + 1 : 1
        var latest: [(write: WriteID, at: Int32)?] = Array(repeating: nil, count: clientCount * perClient)
        var reported = Array(repeating: false, count: clientCount)
        for (i, it) in h.intents.enumerated() {
            guard case .client(let c) = it.origin, !reported[c.index], let f = Self.get(firstApplied, it.write.id) else { continue }
            let session = c.index * perClient + (perClient == 1 ? 0 : tenant(ofIntent: Int32(i)).index)
            if let prev = latest[session], f < prev.at {
                reported[c.index] = true
                report(Violation(.clientWriteOrder, at: h.applied[Int(f)].time, client: c, entity: it.write.ops.first?.entity,
                                 "the server applied \(c)'s \(it.write.id) (tx \(h.applied[Int(f)].tx.txID)) before \(prev.write) (tx \(h.applied[Int(prev.at)].tx.txID)), which \(c)'s user made first"))
            } else {
                latest[session] = (it.write.id, f)
            }
        }
        // Each client's intents (in `h.intents` order), as what a refusal weighs of them: a
        // refusal is weighed against its own client's writes only, so it reads that list instead
        // of every intent. Only their ids, times, first applications and sessions are kept (a
        // few words each): the walk per refused write read and copied each intent whole, and a
        // long run refuses writes by the thousand (conflictPrompt: 380 million instructions at
        // 3,000 actions). The intent itself is read, in place, only for a create check or a text.
        var byClient: [[ClientIntent]] = Array(repeating: [], count: clientCount)
        if !refusals.isEmpty {
            h.intents.withUnsafeBufferPointer { ip in
                for i in 0..<ip.count {
                    guard case .client(let c) = ip[i].origin, c.index < clientCount else { continue }
                    let w = ip[i].write.id
                    let session: TenantID? = tenants.active ? Self.get(intentOfWrite, w).map { tenant(ofIntent: $0) } : nil
                    byClient[c.index].append(ClientIntent(position: Int32(i), write: w, time: ip[i].time,
                                                          firstApplied: Self.get(firstApplied, w) ?? -1, session: session))
                }
            }
        }
        // Each client's list indexed, so a refusal nothing explains skips the walk below
        // (`RefusalOrderIndex`; not with tenants, whose sessions split a client's writes). Only
        // for a client with `indexMinimumRefusals` refused writes or more: building the index
        // costs about what a few walks do, and a short run refuses a handful.
        var indexes: [RefusalOrderIndex?] = Array(repeating: nil, count: clientCount)
        if !refusals.isEmpty && !tenants.active {
            var refused = Array(repeating: 0, count: clientCount)
            for r in refusals { if case .client(let c) = r.origin, c.index < clientCount { refused[c.index] += r.writes.count } }
            h.intents.withUnsafeBufferPointer { ip in
                for c in 0..<clientCount where !byClient[c].isEmpty && refused[c] >= Self.indexMinimumRefusals {
                    let list = byClient[c]
                    indexes[c] = RefusalOrderIndex(list) { p in
                        ip[Int(list[p].position)].write.ops.compactMap { if case .create(let e, _, _) = $0 { return e } else { return nil } }
                    }
                }
            }
        }
        for r in refusals {
            guard case .client(let c) = r.origin, !reported[c.index] else { continue }
            for w in r.writes {
                guard let it = h.intent(w), it.origin == r.origin, Self.get(firstApplied, w).map({ $0 >= r.at }) ?? true else { continue }
                let touched = Set(it.write.ops.flatMap { op -> [EntityID] in
                    if case .link(let a, _, let b) = op { return [a, b] }
                    if case .unlink(let a, _, let b) = op { return [a, b] }
                    return [op.entity]
                })
                if let index = indexes[c.index] {
                    let explained = h.intents.withUnsafeBufferPointer { ip in
                        index.mayExplain(write: w, time: it.time, refusedAt: r.at, touched: touched,
                                         later: { $0.write.raw > w.raw },
                                         createsTouched: { o in
                                             ip[Int(o.position)].write.ops.contains(where: { if case .create(let e, _, _) = $0 { return touched.contains(e) } else { return false } })
                                         })
                    }
                    if !explained { continue }
                }
                var why: String?
                let session = tenants.active ? Self.get(intentOfWrite, w).map { tenant(ofIntent: $0) } : nil
                h.intents.withUnsafeBufferPointer { ip in
                    byClient[c.index].withUnsafeBufferPointer { ob in
                        for k in 0..<ob.count {
                            // (Every intent listed for `c` has `r.origin`, `.client(c)`.)
                            let o = ob[k]
                            guard o.write != w else { continue }
                            if let session, o.session != session { continue }
                            guard o.firstApplied >= 0 else { continue }
                            let f = o.firstApplied
                            if o.time > it.time || (o.time == it.time && o.write.raw > w.raw) {
                                if f < r.at { why = "after applying \(ip[Int(o.position)].write), which \(c)'s user made later"; break }
                            } else if f >= r.at, ip[Int(o.position)].write.ops.contains(where: { if case .create(let e, _, _) = $0 { return touched.contains(e) } else { return false } }) {
                                why = "before applying \(ip[Int(o.position)].write), which \(c)'s user made first and creates an entity it touches"; break
                            }
                        }
                    }
                }
                if let why {
                    reported[c.index] = true
                    report(Violation(.clientWriteOrder, at: t, client: c, entity: it.write.ops.first?.entity,
                                     "the server refused \(c)'s \(w) (\(it.write)) \(why)"))
                    break
                }
            }
        }
    }

    /// Every write that took effect or was refused reached a visible outcome without its client's
    /// feedback stalling for more than the bound.
    ///
    /// The bound is on *stalls*, not on the total wait: a client draining a queue of 250 offline
    /// writes one request at a time (conflictPrompt's serial REST replay) may take longer than
    /// 20 s after heal while confirming a write every few hundred milliseconds, and that is
    /// timely; a write parked behind a 30 s timer while nothing else happens is not. So a write
    /// is late when, between heal (or the write, if later) and its outcome (or the end of the
    /// run), some gap of more than `feedbackBoundMs` passes in which the client's user saw no
    /// outcome of any of its writes. (Found by the stress schedules' long offline bursts: with a
    /// flat 20 s deadline conflictPrompt and pushPull were flagged for draining long queues.)
    mutating func finishTimelyFeedback(_ h: History, at t: Int64) {
        // When the user saw an outcome, per client (sorted): outcomes of its writes and the
        // moments its pending queue emptied.
        var progress: [[Int64]] = Array(repeating: [], count: emptiedAt.count)
        var outcome: [(intent: Int, seen: Int64?)] = []
        for (i, it) in h.intents.enumerated() {
            guard case .client(let c) = it.origin, c.index < progress.count else { continue }
            let w = it.write.id
            var seen = feedbackAt[w]
            if let k = Self.get(emptiedBefore, w), Int(k) < emptiedAt[c.index].count {
                let e = emptiedAt[c.index][Int(k)]
                seen = min(seen ?? e, e)
            }
            if let s = seen { progress[c.index].append(s) }
            guard Self.get(firstApplied, w) != nil || toldRejected.contains(w) else { continue }
            outcome.append((i, seen))
        }
        for c in progress.indices {
            progress[c] += emptiedAt[c]
            progress[c].sort()
        }
        for (i, seen) in outcome {
            let it = h.intents[i]
            guard case .client(let c) = it.origin else { continue }
            let start = max(it.time, h.healTime)
            let end = seen ?? t
            guard end - start > Self.feedbackBoundMs else { continue }
            // The longest silence in [start, end]: gaps between the client's outcomes in between.
            var last = start
            var stall: (from: Int64, to: Int64)? = nil
            for p in progress[c.index] where p > start && p <= end {
                if p - last > Self.feedbackBoundMs { stall = (last, p); break }
                last = p
            }
            if stall == nil && end - last > Self.feedbackBoundMs { stall = (last, end) }
            guard let stall else { continue }
            report(Violation(.timelyFeedback, at: end, client: c, entity: it.write.ops.first?.entity,
                             "\(c)'s \(it.write.id) (\(it.write)) " + (seen.map { "reached a visible outcome only at t=\($0)ms" } ?? "never reached a visible outcome")
                             + "; from t=\(stall.from)ms to t=\(stall.to)ms (over \(Self.feedbackBoundMs / 1000) s" + (it.time > h.healTime ? "" : ", after heal at t=\(h.healTime)ms")
                             + ") \(c)'s user saw no outcome of any write"))
        }
    }

    /// No link on the server targets an entity the server does not have.
    mutating func finishLinkIntegrity(_ data: EntityStore, at t: Int64) {
        for (id, rec) in data.entities {
            for l in schema.links(of: rec.namespace) {
                for target in rec.targets(l) where !data.contains(target) {
                    let gone = deletedOnServer.contains(target) ? "deleted" : "never created"
                    report(Violation(.linkIntegrity, at: t, entity: id,
                                     "\(EntityRef(id, rec.namespace)).\(schema.name(of: l)) links to \(EntityRef(target, schema.target(of: l))), which the server does not have (\(gone))"))
                }
            }
        }
    }
}

extension Monitor {
    /// The fewest refused writes of one client for which `finishClientWriteOrder` indexes its
    /// intents (`RefusalOrderIndex`) rather than walking them for each refusal.
    static let indexMinimumRefusals = 8

    /// What `finishClientWriteOrder` weighs of one of a client's intents against a refusal:
    /// its position in `History.intents`, its write id, when it was made, the log position of
    /// its write's first application (-1: never) and its session's tenant (nil: tenants off,
    /// or a write id the monitor was not told of).
    struct ClientIntent: Sendable {
        var position: Int32
        var write: WriteID
        var time: Int64
        var firstApplied: Int32
        var session: TenantID?
    }

    /// A rejection's kind without its free text (culprits compare kinds, not messages).
    static func kind(of why: RejectReason) -> String {
        switch why {
        case .timeout: return "timeout"
        case .serverError: return "server error"
        case .queueFull: return "queue full"
        case .conflictDiscarded: return "conflict discarded"
        case .invalid: return "invalid"
        }
    }
}
