import Foundation   // memcmp

/// The oracles of what a client showed its user: `neverRevertOwnWrite`, `monotonicReads`,
/// `noPhantomWrite`, and the confirmation half of `toldOutcomeIsTrue`. They run when the user is
/// told something (a yield, a rejection, a confirmation), on the client's observable state right
/// after the input that told it (`result(of:)`, `pendingWrites`), against the users' intents and
/// the versions the server's data took (`FieldVersions`).
extension Monitor {
    /// A user event that some view oracle judges. Called by the simulator for yields, rejections
    /// and confirmations only (other events cost nothing here).
    @usableFromInline mutating func observe<O: ObservedSystem>(_ c: ClientID, _ ev: UserEvent, _ sim: O) {
        let t = sim.virtualTime
        switch ev {
        case .writeConfirmed(let w):
            if feedbackAt[w] == nil { feedbackAt[w] = t }
            noteTold(w)
            if Self.get(firstApplied, w) == nil && !isSuperseded(w, sim.history) {
                let op = sim.history.intent(w)?.write.ops.first
                var v = Violation(.toldOutcomeIsTrue, at: t, client: c, entity: op?.entity,
                                  "\(c) was told \(w) was confirmed, but the server has not applied it")
                v.culprit = op.map { Self.culprit(.client(c), $0) + " told confirmed, not applied" }
                report(v)
            }
        case .writeRejected(let w, _):
            if feedbackAt[w] == nil { feedbackAt[w] = t }
            toldRejected.insert(w)
            noteTold(w)
            checkPhantom(c, w, sim, at: t)
        case .subscriptionYielded(let s, _):
            checkYield(c, s, sim, at: t)
            if tenants.active { checkTenantYield(c, s, sim, at: t) }
        default: break
        }
    }

    /// Marks `w`'s outcome as told in the dense `toldOutcome` table (`wasTold`).
    mutating func noteTold(_ w: WriteID) {
        toldEvents &+= 1
        let i = Int(w.raw)
        guard i < Self.denseLimit else { return }
        if i >= toldOutcome.count { toldOutcome.append(contentsOf: repeatElement(false, count: i - toldOutcome.count + 1)) }
        toldOutcome[i] = true
    }

    /// The value intent `i` assigns to `key`, if it does.
    static func value(of it: History.Intent, _ e: EntityID, _ f: FieldID) -> FieldValue? {
        value(in: it.write.ops, e, f)
    }

    /// The value the steps `ops` (one intent's) assign to `key`, if they do: `value(of:)` for a
    /// caller that reads the steps in place instead of passing a copy of the whole intent. The
    /// steps are read where they lie too (a `for op in ops` copied each one, per writer asked).
    static func value(in ops: [Op], _ e: EntityID, _ f: FieldID) -> FieldValue? {
        ops.withUnsafeBufferPointer { b -> FieldValue? in
            var v: FieldValue?
            for k in 0..<b.count {
                switch b[k] {
                case .create(let x, _, let a) where x == e, .update(let x, _, let a) where x == e:
                    for y in a where y.field == f { v = y.value }
                default: break
                }
            }
            return v
        }
    }

    /// The value entry `i` of `r` shows for field `f`, read in place (binding the entry or its
    /// record copied it: a retain and a release of each of its arrays).
    @inline(__always)
    static func shownValue(_ r: QueryResult, _ i: Int, _ f: FieldID) -> FieldValue? {
        r.entries.withUnsafeBufferPointer { $0[i].record[f] }
    }

    /// noPhantomWrite: right after telling the user `w` failed, no subscription shows its effect.
    ///
    /// The intents are read where they lie (`h.intents[j]` copied an intent, steps and all, for
    /// every writer of a register asked about), and so are the steps and the entries shown.
    mutating func checkPhantom<O: ObservedSystem>(_ c: ClientID, _ w: WriteID, _ sim: O, at t: Int64) {
        let h = sim.history
        guard let wp = h.intentPosition(w) else { return }
        let rejected = toldRejected
        h.intents.withUnsafeBufferPointer { ip -> Void in
            guard ip[wp].origin == .client(c) else { return }
            func ownOther(_ j: Int32) -> Bool {
                precondition(Int(j) >= 0 && Int(j) < ip.count)
                let o = ip.baseAddress! + Int(j)
                return o.pointee.origin == .client(c) && o.pointee.write.id != w && !rejected.contains(o.pointee.write.id)
            }
            let ops = ip[wp].write.ops
            let subs = sim.subscriptions(of: c)
            for si in subs.indices {
                let s = subs[si].0
                guard let r = sim.shown(c, s) else { continue }
                for k in ops.indices {
                    let e = ops[k].entity
                    guard let ri = r.index(of: e) else { continue }
                    switch ops[k] {
                    case .create(_, let ns, let a), .update(_, let ns, let a):
                        if case .create = ops[k], !serverHad[Self.entityKey(e)], !initialData.contains(e),
                           !touchers[Self.entityKey(e)].contains(where: ownOther) {
                            report(Violation(.noPhantomWrite, at: t, client: c, entity: e,
                                             "\(c) was told \(w) failed, but \(s) still shows \(EntityRef(e, ns)), which only \(w) created"))
                            return
                        }
                        for x in a where Self.shownValue(r, ri, x.field) == x.value {
                            let key = Self.key(e, x.field)
                            if versions.range(of: x.value, key, initial: initialData[e]?[x.field]) != nil { continue }
                            let explained = writersOf.withValue(key) { ws in
                                ws.contains { j in ownOther(j) && Self.value(in: ip[Int(j)].write.ops, e, x.field) == x.value }
                            }
                            if explained { continue }
                            report(Violation(.noPhantomWrite, at: t, client: c, entity: e,
                                             "\(c) was told \(w) failed, but \(s) still shows \(EntityRef(e, ns)).\(x.field.name) = \(x.value), which only \(w) wrote"))
                            return
                        }
                    default: break
                    }
                }
            }
        }
    }

    /// neverRevertOwnWrite and monotonicReads, on one yield.
    ///
    /// Both are judged incrementally (`YieldMemo`), from what this subscription showed at its
    /// previous yield: the entries that are new or differ since then (a merge walk of the two
    /// sorted lists, against the monitor's own copy of the last entries, `ShownEntries`; an unchanged entry is found equal by comparing its record, whose arrays
    /// are usually shared, so it costs a few comparisons, not a walk of its values) are the only
    /// ones whose verdict can have changed, besides those listed below. The verdicts are exactly a
    /// full re-check's, at a cost that follows what changed instead of the result's size.
    ///
    /// monotonicReads: an entry shown unchanged since this subscription's last yield gives the
    /// same verdict as then unless the client's floor of one of its keys rose since (another yield
    /// showed a newer version), its check reported a violation then (reported again, as a full
    /// re-check would), or one of its values was not yet a server version then (it may be one
    /// now). Only those entries and the changed ones are checked, in entry order, with the same
    /// per-entry code. Why it is exact: a value's oldest version never changes once it exists and
    /// floors only rise, so an unchanged entry whose floors did not rise can neither raise a floor
    /// nor newly violate.
    ///
    /// neverRevertOwnWrite: see `checkOwnWrites` (the open writes found fine at the last yield
    /// are checked again only on the entities whose entries changed).
    mutating func checkYield<O: ObservedSystem>(_ c: ClientID, _ s: SubscriptionID, _ sim: O, at t: Int64) {
        let refreshing = refreshingCache
        refreshingCache = nil
        guard let r = sim.shown(c, s) else { return }
        let entries = r.entries
        let m = memoIndex(c, s)
        // Changed or new entries since this subscription's last yield, ascending: a merge walk
        // (both lists ascend by id). Without a memo everything is checked.
        var changed: [EntityID] = []
        swap(&changed, &scratchChanged)   // its capacity, kept between yields
        defer { if !changed.isEmpty { changed.removeAll(keepingCapacity: true) }; swap(&changed, &scratchChanged) }
        // The memo's copy, taken out to be brought up to date in place (`ShownEntries`).
        var shown = ShownEntries()
        if let m {
            swap(&shown, &yieldMemos[c.index][m].shown)
            shown.sync(to: entries, changed: &changed)
        } else {
            shown = ShownEntries(copying: entries)
        }
        var ownFine = intentCount
        if !openWrites[c.index].isEmpty {
            ownFine = checkOwnWrites(c, s, r, sim, at: t, fineBelow: m.map { yieldMemos[c.index][$0].ownFine } ?? 0, changed: changed)
        }
        if let p = refreshing, p.client == c.index {
            // What the cache holds: the roots shown, except those the client's own writes still
            // open (pending) create or update, which it may show only as an overlay on the
            // server's result (a cache of server results need not contain them).
            // (Kept as the roots and the open writes, filtered only when read: rare, where a
            // yield is frequent and its roots and the queue may be long.)
            cachedRoots[p.client][p.index].refill(roots: r.roots, open: openWrites[c.index])
        }
        // The entities to check again at the next yield: built in a reused buffer (the memo's
        // previous list becomes the next spare), so a yield allocates nothing here.
        var recheck: [EntityID] = []
        swap(&recheck, &scratchRecheck)
        entries.withUnsafeBufferPointer { b in
            let base = b.baseAddress
            if let m {
                var ids: [EntityID] = []
                swap(&ids, &yieldMemos[c.index][m].recheck)
                let seen = yieldMemos[c.index][m].raisedSeen
                let raised = floorRaises[c.index].count
                if ids.isEmpty && seen == raised {
                    // Only the changed entries (ascending already).
                    var last: EntityID?
                    for id in changed where id != last {
                        last = id
                        guard let i = r.index(of: id) else { continue }
                        if !checkMonotonic(c, s, base! + i, at: t) { recheck.append(id) }
                    }
                } else {
                    if seen < raised {
                        for k in floorRaises[c.index][seen...] { ids.append(EntityID(UInt32(truncatingIfNeeded: k >> 8))) }
                    }
                    ids.append(contentsOf: changed)
                    ids.sort()
                    var last: EntityID?
                    for id in ids where id != last {
                        last = id
                        guard let i = r.index(of: id) else { continue }
                        if !checkMonotonic(c, s, base! + i, at: t) { recheck.append(id) }
                    }
                }
                if !ids.isEmpty { ids.removeAll(keepingCapacity: true) }
                swap(&ids, &scratchRecheck)
                // The memo brought up to date where it lies (a new memo assigned over it copied
                // its lists and destroyed the old one's: a dozen reference counts per yield).
                swap(&shown, &yieldMemos[c.index][m].shown)
                swap(&recheck, &yieldMemos[c.index][m].recheck)
                yieldMemos[c.index][m].raisedSeen = floorRaises[c.index].count
                yieldMemos[c.index][m].ownFine = ownFine
            } else {
                for i in 0..<b.count where !checkMonotonic(c, s, base! + i, at: t) { recheck.append(b[i].id) }
                yieldMemos[c.index].append(YieldMemo(subscription: s, shown: shown, raisedSeen: floorRaises[c.index].count,
                                                     recheck: recheck, ownFine: ownFine))
            }
        }
    }

    /// The place of subscription `s`'s memo among client `c`'s, read by subscription id alone (a
    /// search through `firstIndex` handed each memo it passed to the closure as a copy).
    func memoIndex(_ c: ClientID, _ s: SubscriptionID) -> Int? {
        yieldMemos[c.index].withUnsafeBufferPointer { b in
            for k in 0..<b.count where b[k].subscription == s { return k }
            return nil
        }
    }

    /// monotonicReads on one entry shown (every field except the client's own keys). Returns
    /// false when the entry must be checked again at the next yield even if unchanged: it broke
    /// the invariant, or shows a value the server's data has not held (yet).
    ///
    /// The entry is read where it lies (`entry` points into the result the caller holds): passed
    /// as a value it was copied per call, three retains and three releases of its record's arrays.
    ///
    /// An entity whose last check for this client (by any subscription) found these very
    /// values settled is passed without a look at its versions (`settledShows`): the check
    /// would come out as it did then and change nothing. Why that is exact: this entity's
    /// floors are written only by its own checks, so none moved since the last one, which left
    /// each floor at or above its value's oldest version and at or below its newest; a value's
    /// oldest version never changes once it exists and its newest only grows; and a key only
    /// ever becomes the client's own (then skipped). So no comparison can report or raise.
    mutating func checkMonotonic(_ c: ClientID, _ s: SubscriptionID, _ entry: UnsafePointer<QueryResult.Entry>, at t: Int64) -> Bool {
        let e = entry.pointee.id
        let ek = Self.entityKey(e)
        if usesSettledShows {
            // (`==` of two arrays with one buffer is told without reading it.)
            let same = settledShows[c.index].withValue(ek) { m in m.settled && m.values == entry.pointee.record.values }
            if same { settledShowHits &+= 1; return true }
        }
        // Most entities a long run shows were created during it: only those in the initial data
        // pay for a copy of their initial record (presence is read in place).
        let initial = initialData.contains(e) ? initialData[e] : nil
        var settled = true
        let values = entry.pointee.record.values
        for fi in values.indices {
            guard let v = values[fi] else { continue }
            let f = FieldID(UInt8(fi))
            let k = Self.key(e, f)
            if ownKeys[c.index][k] { continue }
            guard let range = versions.range(of: v, k, initial: initial?[f]) else { settled = false; continue }
            let floor = floors[c.index][k]
            if floor != Self.noFloor {
                if range.newest < floor {
                    settled = false
                    report(Violation(.monotonicReads, at: t, client: c, entity: e,
                                     "\(s) shows \(EntityRef(e, entry.pointee.record.namespace)).\(f.name) = \(v), older than a value \(c) already showed (server version \(range.newest) < \(floor))"))
                    continue
                }
                if range.oldest > floor {
                    floors[c.index][k] = range.oldest
                    floorRaises[c.index].append(k)
                }
            } else {
                floors[c.index][k] = range.oldest
                hasFloors[c.index] = true
                floorRaises[c.index].append(k)
            }
        }
        settledShows[c.index].modify(ek) { m in
            m.settled = settled
            m.values = settled ? values : []
        }
        return settled
    }

    /// What `checkMonotonic` last found for one entity a client showed (`settledShows`).
    struct SettledShow: Sendable {
        /// The values it checked, if it found them settled (kept: their storage tells the
        /// same values at once).
        var values: [FieldValue?] = []
        /// Whether it found them settled (every value a server version, none older than the
        /// client's floor).
        var settled = false
    }

    /// Whether intent `x` may legitimately show over `w` (made later, applied later, or ranked
    /// above it by the declared arbitration).
    func mayFollow(_ x: History.Intent, _ xi: Int32, _ w: History.Intent, _ wi: Int32, arbitration: Arbitration, maxSkew: Int64) -> Bool {
        mayFollow(IntentStamp(x), xi, IntentStamp(w), wi, arbitration: arbitration, maxSkew: maxSkew)
    }

    /// `mayFollow` on the few fields of the two intents it reads.
    func mayFollow(_ x: IntentStamp, _ xi: Int32, _ w: IntentStamp, _ wi: Int32, arbitration: Arbitration, maxSkew: Int64) -> Bool {
        if x.time > w.time || (x.time == w.time && (x.origin != w.origin || xi > wi)) { return true }
        if let fw = Self.get(firstApplied, w.write), let lx = Self.get(lastApplied, x.write), lx > fw { return true }
        switch arbitration {
        case .serverArrival: return false
        case .clientTimestamp, .recordTimestamp: return x.clientTime >= w.clientTime
        case .hybridLogicalClock: return x.time + maxSkew >= w.clientTime
        }
    }

    /// neverRevertOwnWrite: each open write of `c` is shown, or superseded by one that may follow it.
    ///
    /// Runs on every yield of a client with open writes, so each open write must cost little:
    /// "told" is a dense table by write id (`toldOutcome`), "still queued" a stamp per write id
    /// set from the pending queue once per call (not a scan of it per open write; the queue is
    /// read only when some open write's outcome was not told), and intents and records are read
    /// in place (binding one copies its arrays: a retain and a release each; intents are lent
    /// through `withIntents`, compared through `IntentStamp`).
    ///
    /// Incremental: the open writes before intent `fineBelow` were all found fine at this
    /// subscription's previous yield, so only their steps on entities in `changed` (the entries
    /// new or different since then, ascending) are checked again, and only the writes with such
    /// a step are visited (found through `openTouch`, by entity, not by a walk of every open
    /// write: a long offline queue made each yield cost its length). Exact because "fine" only
    /// stays fine while the entry shown is the same: a step on an entity the result lacks, a
    /// value shown equal to the one written, a delete that may follow the write, or a writer of
    /// the value shown that may follow it; writers and deletes only accrue, and whether one
    /// intent may follow another only turns from false to true (an intent's first application
    /// never moves and the other's last one only moves later). Open writes only leave the list or
    /// join it at its end (with a larger intent index), so the first violation in list order is
    /// the one a full check reports. Returns the new bound: every open write fine (the next
    /// intent's index), or the first one that was not.
    mutating func checkOwnWrites<O: ObservedSystem>(_ c: ClientID, _ s: SubscriptionID, _ r: QueryResult, _ sim: O,
                                                  at t: Int64, fineBelow: Int32, changed: [EntityID]) -> Int32 {
        // A write leaves the open set once its outcome is known: told, or out of the queue (one
        // pass for both: which of them closes a write does not matter).
        guard !openWrites[c.index].isEmpty else { return intentCount }
        let told = toldOutcome, feedback = feedbackAt
        func isTold(_ o: OpenWrite) -> Bool {
            let k = Int(o.write.raw)
            return k < Self.denseLimit ? k < told.count && told[k] : feedback[o.write] != nil
        }
        // The queue is read (and stamped) only when some open write's outcome was not told: a
        // told write closes whatever the queue holds, and a strategy may build the list afresh
        // per read (`instant` does).
        let steps = sim.steps(of: c)
        if skipsUnchangedQueue, let m = closedAgainst[c.index], m.told == toldEvents, m.open == openWrites[c.index].count {
            // Every write open now was open, untold and queued at the last pass, no outcome was
            // told since and none joined (the list only grows by intents, and only the passes
            // here shorten it): only a change of the queue can close one. The same machine
            // (another yield of one input): the same queue, not even read. The same stamp: none.
            if steps == nil || m.steps != steps {
                let pending = sim.pendingWrites(of: c)
                let stamp = stampPending(c, pending)
                if stamp != m.stamp {
                    closeUnqueued(c, pending, stamp: stamp) { _ in false }
                } else {
                    openWriteSkips.unchangedQueue &+= 1
                }
                closedAgainst[c.index] = (toldEvents, stamp, openWrites[c.index].count, steps)
            } else {
                openWriteSkips.unchangedMachine &+= 1
            }
        } else if openWrites[c.index].contains(where: { !isTold($0) }) {
            let pending = sim.pendingWrites(of: c)
            let stamp = stampPending(c, pending)
            closeUnqueued(c, pending, stamp: stamp, told: isTold)
            closedAgainst[c.index] = (toldEvents, stamp, openWrites[c.index].count, steps)
        } else {
            closeOpenWrites(c) { _ in true }
            closedAgainst[c.index] = nil
        }
        guard !openWrites[c.index].isEmpty else { return intentCount }
        // Constant for a run: read once (a strategy's `info` builds its whole description).
        if runRules == nil { runRules = (sim.arbitration, max(0, (0..<sim.clientCount).map { sim.skew(of: ClientID($0)) }.max() ?? 0)) }
        let (arbitration, maxSkew) = runRules!
        func isChanged(_ e: EntityID) -> Bool {
            var lo = 0, hi = changed.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if changed[mid] == e { return true }
                if changed[mid] < e { lo = mid + 1 } else { hi = mid }
            }
            return false
        }
        let open = openWrites[c.index]
        // The known writes (made before `fineBelow`) whose steps may need a look: those with a
        // step on a changed entity (`openTouch`), ascending, as the open list orders them.
        var known: [Int32] = []
        swap(&known, &scratchKnown)   // its capacity, kept between yields
        defer { if !known.isEmpty { known.removeAll(keepingCapacity: true) }; swap(&known, &scratchKnown) }
        if !changed.isEmpty && !open.isEmpty && open[0].intent < fineBelow {
            let isOpen = openIntent
            var last: EntityID?
            for e in changed where e != last {
                last = e
                openTouch[c.index].modify(Self.entityKey(e)) { list in
                    // Writes no longer open never return: dropped here, once each.
                    // (Asked first: `removeAll(where:)` rewrites the list even when it keeps all.)
                    let closed = { (i: Int32) in Int(i) >= isOpen.count || !isOpen[Int(i)] }
                    if list.contains(where: closed) { list.removeAll(where: closed) }
                    for i in list where i < fineBelow { known.append(i) }
                }
            }
            if known.count > 1 {
                known.sort()
                var u = 1
                for k in 1..<known.count where known[k] != known[u - 1] { known[u] = known[k]; u += 1 }
                known.removeSubrange(u...)
            }
        }
        // The unknown writes: every open write from `fineBelow` on (the list ascends by intent:
        // a binary search for the first).
        var start = 0
        var hi = open.count
        while start < hi {
            let mid = (start + hi) / 2
            if open[mid].intent < fineBelow { start = mid + 1 } else { hi = mid }
        }
        return sim.withIntents { intents -> Int32 in
            /// One open write's steps (only those on changed entities if it is known); the
            /// bound to return if one broke the invariant.
            func check(_ wi: Int32, known: Bool) -> Int32? {
                // Read in place: `intents[i]` passed on or bound copied the whole intent.
                let wp = intents.baseAddress! + Int(wi)
                precondition(Int(wi) < intents.count)
                let ws = IntentStamp(wp)
                // The steps by index (a `for op in` copied each one) and the value shown read in
                // place (`shownValue`).
                let ops = wp.pointee.write.ops
                for oi in ops.indices {
                    let entity = ops[oi].entity
                    if known && !isChanged(entity) { continue }
                    guard let a = ops[oi].assignmentsIfWrite, let ri = r.index(of: entity) else { continue }
                    // A delete that may follow the write ends what it promised for the entity: whatever
                    // the record shows afterwards (an entity re-created by a later update) is not a revert.
                    // (Pure, so asked only when some value differs.)
                    var deleted: Bool?
                    for x in a {
                        guard let shown = Self.shownValue(r, ri, x.field), shown != x.value else { continue }
                        if deleted == nil {
                            deleted = superseded(entity, by: deleters[Self.entityKey(entity)], ws, wi, arbitration: arbitration, maxSkew: maxSkew, intents)
                        }
                        if deleted! { break }
                        let k = Self.key(entity, x.field)
                        // Newest writers first: the one that explains a value shown is usually recent.
                        let explained = writersOf.withValue(k) { writers in
                            writers.reversed().contains { j in
                                guard j != wi else { return false }
                                precondition(Int(j) < intents.count)
                                let jp = intents.baseAddress! + Int(j)
                                return Self.value(in: jp.pointee.write.ops, entity, x.field) == shown
                                    && mayFollow(IntentStamp(jp), j, ws, wi, arbitration: arbitration, maxSkew: maxSkew)
                            }
                        }
                        if !explained {
                            let w = intents[Int(wi)]
                            let op = ops[oi]
                            var v = Violation(.neverRevertOwnWrite, at: t, client: c, entity: entity,
                                              "\(c)'s \(w.write.id) set \(EntityRef(entity, r.entries[ri].record.namespace)).\(x.field.name) = \(x.value) and is still pending, but \(s) shows \(shown), which no write that may follow it wrote")
                            v.culprit = Self.culprit(w.origin, op) + " reverted"
                            report(v)
                            return wi
                        }
                    }
                }
                return nil
            }
            for wi in known { if let b = check(wi, known: true) { return b } }
            for o in open[start...] { if let b = check(o.intent, known: false) { return b } }
            return intentCount
        }
    }

    /// Stamps client `c`'s pending writes in `pendingStamps` (a write is pending iff its stamp is
    /// the one returned) and returns the stamp. The stamping is skipped when `pending` is the
    /// very list stamped last, for this client, with no other client's stamped since: the same
    /// storage (the monitor keeps the list it stamped, so a list with that storage cannot have
    /// changed since) holds the same writes, whose stamps still stand. A client's yields come
    /// in runs (one refresh yields each subscription it changed) over one unchanged queue, and
    /// a strategy that keeps its list (`pushPull`) then pays for the queue once per run, not
    /// once per yield.
    ///
    /// A list with other storage but the same writes in the same order (a strategy that builds
    /// the list afresh per read, `instant`) is told by its contents, a word per write: the
    /// writes holding the current stamp are exactly those of the list stamped last, so they are
    /// exactly this list's, whichever client's it was.
    mutating func stampPending(_ c: ClientID, _ pending: [WriteID]) -> UInt64 {
        if pending.count == stampedPending.count && stampedClient >= 0 {
            let same = pending.withUnsafeBufferPointer { a in
                stampedPending.withUnsafeBufferPointer { b in
                    if a.baseAddress == b.baseAddress { return true }
                    for k in 0..<a.count where a[k] != b[k] { return false }
                    return true
                }
            }
            if same { stampedClient = c.index; return pendingStamp }
        }
        pendingStamp &+= 1
        let stamp = pendingStamp
        for w in pending {
            let i = Int(w.raw)
            guard i < Self.denseLimit else { continue }
            if i >= pendingStamps.count { pendingStamps.append(contentsOf: repeatElement(0, count: i - pendingStamps.count + 1)) }
            pendingStamps[i] = stamp
        }
        stampedPending = pending
        stampedClient = c.index
        return stamp
    }

    /// Closes client `c`'s open writes that are no longer in its queue `pending` (stamped with
    /// `stamp` by `stampPending`), and those `told` says were told: the one test both passes of
    /// `checkOwnWrites` make (a write id above the dense tables is looked up in the list itself).
    @inline(__always)
    mutating func closeUnqueued(_ c: ClientID, _ pending: [WriteID], stamp: UInt64, told: (OpenWrite) -> Bool) {
        let stamps = pendingStamps
        closeOpenWrites(c) { o in
            if told(o) { return true }
            let k = Int(o.write.raw)
            if k < Self.denseLimit { return k >= stamps.count || stamps[k] != stamp }
            return !pending.contains(o.write)
        }
    }

    /// How often `checkOwnWrites` left its pass over the open writes out (`closedAgainst`): the
    /// queue not even read (the machine took no input since), or read and found the same (the
    /// same stamp). Counted only for the tests that assert the shortcut is taken: a shortcut
    /// that silently stopped applying would pass every verdict test.
    struct OpenWriteSkips: Sendable {
        var unchangedMachine: UInt64 = 0
        var unchangedQueue: UInt64 = 0
    }

    /// Removes from client `c`'s open writes those `closed` says are closed, and marks them so in
    /// `openIntent` (which `openTouch` reads).
    mutating func closeOpenWrites(_ c: ClientID, _ closed: (OpenWrite) -> Bool) {
        var open: [OpenWrite] = []
        swap(&open, &openWrites[c.index])
        var kept = 0
        for k in open.indices {
            let o = open[k]
            if closed(o) {
                openIntent[Int(o.intent)] = false
            } else {
                open[kept] = o
                kept += 1
            }
        }
        open.removeSubrange(kept...)
        swap(&open, &openWrites[c.index])
    }

    /// The key of an entity in `openTouch` (its tables have one slot per entity).
    @inline(__always) static func entityKey(_ e: EntityID) -> UInt64 { UInt64(e.raw) << 8 }

    /// Write ids below this are kept in dense tables (the limit `Monitor.set` uses).
    static var denseLimit: Int { 1 << 24 }
}

extension Monitor {
    func superseded(_ e: EntityID, by deletes: [Int32], _ w: IntentStamp, _ wi: Int32, arbitration: Arbitration,
                    maxSkew: Int64, _ intents: UnsafeBufferPointer<History.Intent>) -> Bool {
        deletes.contains { j in
            guard j != wi else { return false }
            precondition(Int(j) < intents.count)
            return mayFollow(IntentStamp(intents.baseAddress! + Int(j)), j, w, wi, arbitration: arbitration, maxSkew: maxSkew)
        }
    }

    /// What `mayFollow` reads of an intent (its time, origin, clock and write id), taken by
    /// value: passing the intent itself copied it whole (its steps included) per comparison.
    struct IntentStamp {
        var time: Int64
        var origin: Origin
        var clientTime: Int64
        var write: WriteID

        init(_ it: History.Intent) {
            (time, origin, clientTime, write) = (it.time, it.origin, it.clientTime, it.write.id)
        }

        /// Read where the intent lies.
        init(_ p: UnsafePointer<History.Intent>) {
            (time, origin, clientTime, write) = (p.pointee.time, p.pointee.origin, p.pointee.clientTime, p.pointee.write.id)
        }
    }
}

extension Op {
    /// The assignments of a create or an update; nil for deletes and links.
    var assignmentsIfWrite: [FieldAssignment]? {
        switch self {
        case .create(_, _, let a), .update(_, _, let a): return a
        default: return nil
        }
    }
}

extension Monitor {
    /// The roots a client's cache holds for one query (`cachedRoots`): those of the last
    /// connected yield, less the entities the client's open writes created or updated then.
    struct CachedRoots: Sendable {
        var roots: [EntityID] = []
        /// The client's open writes then.
        var open: [OpenWrite] = []
        /// Holds `roots` and `open` as copies in its own buffers, reused from refresh to refresh:
        /// holding the client's arrays themselves made its next in-place change of its roots (or
        /// the monitor's next change of its open list) copy them.
        /// Lists already equal (the usual case: most refreshes show the same roots over the
        /// same queue) are left as they are, told by a compare in place, cheaper than a refill.
        /// The roots (plain ids, no padding) are compared as bytes, with one `memcmp`: a long
        /// run's connected yield shows hundreds of roots, and the loop over them cost about
        /// 1,700 instructions per yield in instant's 3,000-action run. (Bytes that differ where
        /// the ids are equal could only cost a refill, never leave a wrong list.)
        mutating func refill(roots newRoots: [EntityID], open newOpen: [OpenWrite]) {
            let sameRoots = roots.count == newRoots.count && roots.withUnsafeBytes { a in
                newRoots.withUnsafeBytes { b in
                    a.count == 0 || a.baseAddress == b.baseAddress || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
                }
            }
            if !sameRoots {
                roots.removeAll(keepingCapacity: true)
                roots.append(contentsOf: newRoots)
            }
            let sameOpen = open.count == newOpen.count && open.withUnsafeBufferPointer { a in
                newOpen.withUnsafeBufferPointer { b in
                    for k in 0..<a.count where a[k].intent != b[k].intent || a[k].write != b[k].write { return false }
                    return true
                }
            }
            if !sameOpen {
                open.removeAll(keepingCapacity: true)
                open.append(contentsOf: newOpen)
            }
        }

        /// The roots held.
        func value(_ h: History) -> [EntityID] {
            guard !open.isEmpty else { return roots }
            var touched: [EntityID] = []
            for o in open {
                for op in h.intents[Int(o.intent)].write.ops where op.assignmentsIfWrite != nil { touched.append(op.entity) }
            }
            return roots.filter { !touched.contains($0) }
        }
    }

    /// A write of a client whose outcome its user was not told yet and that is still queued
    /// (`checkOwnWrites`): its position in `History.intents` and its id (read without the intent).
    struct OpenWrite: Sendable {
        var intent: Int32
        var write: WriteID
    }

    /// Whether `r` has `e` as a root: found by binary search (roots ascend), and only when
    /// that misses, by a scan, so the answer never depends on the order being kept.
    static func hasRoot(_ r: QueryResult, _ e: EntityID) -> Bool {
        let roots = r.roots
        var lo = 0, hi = roots.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if roots[mid] == e { return true }
            if roots[mid] < e { lo = mid + 1 } else { hi = mid }
        }
        return roots.contains(e)
    }

    /// What monotonicReads last checked for one subscription of a client (`checkYield`).
    struct YieldMemo: Sendable {
        var subscription: SubscriptionID
        /// The entries as of that yield (the monitor's own copy: `ShownEntries`).
        var shown: ShownEntries
        /// How many of the client's floor raises (`floorRaises`) it had seen.
        var raisedSeen: Int
        /// Entities to check again even if unchanged, ascending.
        var recheck: [EntityID]
        /// neverRevertOwnWrite: the client's open writes made before this intent were all fine
        /// then (`checkOwnWrites`).
        var ownFine: Int32
    }
}
