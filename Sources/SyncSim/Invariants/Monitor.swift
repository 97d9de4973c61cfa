/// The invariant checker: independent oracles fed by the simulator as events happen, and final
/// checks at the end of a run. Oracles read the users' intents, the server's transaction log,
/// what users were told and the observable states; they never ask a strategy what it meant.
///
/// Each built-in's definition is the doc comment of its `InvariantID` member, and its one-line
/// summary is in `InvariantCatalog.swift`. Users' invariants (`CustomInvariant`) are not judged
/// here: they run once the run is over, on its public record (`Simulator.judgeCustom`).
///
/// `@usableFromInline` for the `@inlinable` simulator; its methods stay compiled here. `Sendable`
/// is spelled out because it is no longer inferred for a `@usableFromInline` type.
@usableFromInline
struct Monitor: Sendable {
    @usableFromInline private(set) var violations: [Violation] = []
    let clientCount: Int
    /// Entities someone asked to delete so far (user or admin).
    var deleteIntents = Set<EntityID>()
    /// Entities whose deletion the server applied (flags by entity id: asked about every step
    /// of every applied transaction once one deletion applied).
    var deletedOnServer = EntityFlags()
    var ghostReported = Set<EntityID>()
    var resurrectionReported = Set<EntityID>()
    /// How many transactions each write appeared in (a dense table by write id: read for every
    /// write of every applied transaction).
    var applications = WriteTable<Int32>()
    /// Server rows per entity, from the log (`Monitor+Rows.swift`).
    var rowLedger = RowLedger()
    /// Writes a transaction names as superseded: the transaction's index in the server's log
    /// (`Monitor+Supersession.swift`).
    var supersededIn: [WriteID: Int32] = [:]
    /// Queries each client has seen a server-backed result for while connected (the cache a
    /// persistent client may show offline), per client.
    var cachedQueries: [[Query]]
    /// Per client, parallel to `cachedQueries`: the roots of the last result a connected yield
    /// showed for that query (what the cache holds, `checkCachedYieldIsCache`).
    var cachedRoots: [[CachedRoots]]
    /// The cache entry (client, index in `cachedQueries`) the yield being told refreshes; its
    /// result is read in `checkYield`, which the simulator calls right after `told`.
    var refreshingCache: (client: Int, index: Int)?
    /// Offline yields that lacked cached roots, judged at the end (`finishCachedRoots`).
    var uncachedRoots: [UncachedRoots] = []
    /// Per client: entities a transaction of that client deleted on the server.
    var deletedByClient: [Set<EntityID>]
    // Per-command capture.
    var capturing = false
    var toldDuringCommand: [UserEvent] = []
    /// Per subscription, the first step of the write being handled that changes a child or a
    /// link of the tree shown before it (`Monitor+WriteCapture.swift`).
    var nestedBefore: [NestedChange] = []
    var nestedLinksBefore: [NestedLinkChange] = []
    /// The pending writes before a write command, captured only when their number reaches the
    /// queue cap (the only case `checkQueueCap` reads them); `beforePendingCount` always.
    var beforePending: [WriteID] = []
    var beforePendingCount = 0

    /// The run's data model (which fields each entity has).
    let schema: Schema

    // State of the session oracles (`Monitor+Session.swift`, `Monitor+Views.swift`).
    /// The server's data before anything happened (the initial data): version -1 of each field.
    var initialData = EntityStore()
    /// Transactions seen so far: the index in `History.applied` of the next one.
    var appliedCount: Int32 = 0
    /// Index in the server's log of each write's first and last application, by write id
    /// (dense); -1 = never applied.
    var firstApplied: [Int32] = []
    var lastApplied: [Int32] = []
    /// The values the server's data took for each (entity, field), in order.
    var versions = FieldVersions()
    /// Entities the server's data ever held (besides the initial data), by `entityKey`: a flat
    /// table, not a hashed set (written for every step of every applied transaction).
    var serverHad = KeyTable<Bool>(stride: 1, blank: false)
    /// Intents seen so far (the index of the next one in `History.intents`).
    var intentCount: Int32 = 0
    /// Intents (indices in `History.intents`) that assign each (entity, field), in order; a key
    /// none assigns reads as empty. (Dense tables, `KeyTable`: written at every intent and read
    /// at most yields, where a hash per access was a visible cost.)
    var writersOf: KeyTable<[Int32]>
    /// Intents that create or update each entity, in order (by `entityKey`).
    var touchers = KeyTable<[Int32]>(stride: 1, blank: [])
    /// Intents that delete each entity, in order (by `entityKey`).
    var deleters = KeyTable<[Int32]>(stride: 1, blank: [])
    /// Position in `History.intents` of each write id (dense); -1 = none.
    var intentOfWrite: [Int32] = []
    /// (entity, field) keys each client's own user wrote (monotonicReads leaves them alone).
    var ownKeys: [KeyTable<Bool>]
    /// Per client: for each key, the oldest version its earlier yields certainly showed
    /// (`Monitor.noFloor`: none yet).
    var floors: [KeyTable<Int32>]
    /// Per client: whether any floor was set yet.
    var hasFloors: [Bool]
    /// Per client: its writes whose outcome is not known yet (indices in `History.intents`).
    var openWrites: [[OpenWrite]]
    /// By intent index: whether it is in its client's `openWrites` now.
    var openIntent: [Bool] = []
    /// Per client, by entity: its writes that create or update the entity and were open when
    /// last looked at, ascending (`checkOwnWrites` drops the closed ones as it reads a list).
    var openTouch: [KeyTable<[Int32]>]
    /// `checkOwnWrites`'s list of known writes to visit, kept between calls for its capacity.
    var scratchKnown: [Int32] = []
    /// Writes the user was told were rejected, so far.
    var toldRejected = Set<WriteID>()
    /// When the user was first told each write's outcome (rejected or confirmed).
    var feedbackAt = WriteTable<Int64>()
    /// By write id (dense): whether the user was told its outcome (`feedbackAt` has it), read
    /// on every yield by `checkOwnWrites` without hashing.
    var toldOutcome: [Bool] = []
    /// By write id (dense): the `pendingStamp` of the last `checkOwnWrites` call whose client
    /// queue held it (a set of the queue without building one per call).
    var pendingStamps: [UInt64] = []
    var pendingStamp: UInt64 = 0
    /// The pending list `stampPending` stamped last (kept, so its storage stays its own) and
    /// whose client's it was (-1: none yet).
    var stampedPending: [WriteID] = []
    var stampedClient = -1
    /// How many outcomes (confirmations, rejections) users were told so far.
    var toldEvents: UInt64 = 0
    /// Per client: what `checkOwnWrites` last closed the open writes against (the told count,
    /// the queue's stamp, how many stayed open, the machine's `steps`); nil before, or after a
    /// pass that read no queue. While the first three stand, no open write can have closed,
    /// and the pass is skipped; with the same steps too, the queue is not even read.
    var closedAgainst: [(told: UInt64, stamp: UInt64, open: Int, steps: UInt64?)?]
    /// Off: every pass over the open writes is made in full (the reference the tests compare with).
    var skipsUnchangedQueue = true
    /// How often that shortcut was taken (`OpenWriteSkips`; read by tests only).
    var openWriteSkips = OpenWriteSkips()
    /// Per client: its pending-queue size at the last look, and when the queue became empty.
    var lastPending: [Int]
    var emptiedAt: [[Int64]]
    /// Per write id: how many times its client's queue had emptied when the write was made.
    var emptiedBefore: [Int32] = []
    /// The first refusal of each write by the server: the log position at that moment.
    var refusals: [(at: Int32, origin: Origin, writes: [WriteID])] = []
    var refusedOnce = Set<WriteID>()
    /// Per intent: the server log's length when it was made; per (intent, key): the writer's
    /// floor then (`Monitor+Causality.swift`).
    var logAtIntent: [Int32] = []
    /// Per intent, where its (key, floor) pairs begin in `floorItems` (`floorAtIntent(_:_:)`).
    var floorStart: [Int32] = []
    var floorItems: [(key: UInt64, floor: Int32)] = []
    /// Per client, one per subscription that yielded (a client has a few: a list beats
    /// hashing, and the memo is updated in place): what `checkYield` last checked.
    var yieldMemos: [[YieldMemo]]
    /// `checkYield`'s list of changed entries, kept between calls for its capacity.
    var scratchChanged: [EntityID] = []
    /// `checkYield`'s spare list of entities to check again (capacity kept between yields).
    var scratchRecheck: [EntityID] = []
    /// Per client: the keys whose floor rose, in order (`checkYield` re-checks them).
    var floorRaises: [[UInt64]]
    /// Per client, by entity (`entityKey`): what `checkMonotonic` last found of the values it
    /// was shown (`SettledShow`), so an entry shown again with the same values is passed without
    /// a look at its versions (a new subscription's first yield, a view refilled after a
    /// restart: each showed the whole result, checked value by value, so the cost of one
    /// yield grew with the store).
    var settledShows: [KeyTable<SettledShow>]
    /// Off: every entry is checked in full (the reference the tests compare with).
    var usesSettledShows = true
    /// How often `checkMonotonic` passed an entry through `settledShows` (read by tests only: a
    /// shortcut that silently stopped applying would pass every verdict test).
    var settledShowHits: UInt64 = 0
    /// The run's arbitration and largest clock skew, read once (`checkOwnWrites`).
    var runRules: (Arbitration, Int64)?
    /// Per client: its keep-local choices (`.recordTimestamp` forcing, `Monitor+RecordOrder.swift`).
    var keepLocalChoices: [[KeepLocalChoice]]
    /// Who was in which tenant (`Monitor+Tenants.swift`); inert unless the run has tenant actions.
    var tenants = TenantLedger()

    @usableFromInline init(clients: Int, schema: Schema) {
        clientCount = clients
        self.schema = schema
        cachedQueries = Array(repeating: [], count: clients)
        cachedRoots = Array(repeating: [], count: clients)
        deletedByClient = Array(repeating: [], count: clients)
        ownKeys = Array(repeating: KeyTable(stride: schema.fieldCount, blank: false), count: clients)
        floors = Array(repeating: KeyTable(stride: schema.fieldCount, blank: Self.noFloor), count: clients)
        hasFloors = Array(repeating: false, count: clients)
        versions = FieldVersions(stride: schema.fieldCount)
        writersOf = KeyTable(stride: schema.fieldCount, blank: [])
        openWrites = Array(repeating: [], count: clients)
        openTouch = Array(repeating: KeyTable(stride: 1, blank: []), count: clients)
        lastPending = Array(repeating: 0, count: clients)
        emptiedAt = Array(repeating: [], count: clients)
        keepLocalChoices = Array(repeating: [], count: clients)
        yieldMemos = Array(repeating: [], count: clients)
        closedAgainst = Array(repeating: nil, count: clients)
        floorRaises = Array(repeating: [], count: clients)
        settledShows = Array(repeating: KeyTable(stride: 1, blank: SettledShow()), count: clients)
    }

    /// Reports at most `perInvariantLimit` violations of one invariant per run: the first ones
    /// tell the story; thousands of repeats only bury it (the count is kept in `suppressed`).
    static let perInvariantLimit = 20
    var reported: [InvariantID: Int] = [:]
    private(set) var suppressed = 0

    mutating func report(_ v: Violation) {
        let n = (reported[v.invariant] ?? 0) + 1
        reported[v.invariant] = n
        if n <= Self.perInvariantLimit { violations.append(v) } else { suppressed += 1 }
    }

    /// Whether a violation of `inv` reported now would only be counted (`perInvariantLimit` of
    /// them are kept already): callers that build long texts check it first.
    func atLimit(_ inv: InvariantID) -> Bool { (reported[inv] ?? 0) >= Self.perInvariantLimit }

    /// What `report` does with a violation of `inv` past the limit, without the violation.
    mutating func countSuppressed(_ inv: InvariantID) {
        reported[inv, default: 0] += 1
        suppressed += 1
    }

    @usableFromInline mutating func liveness(at time: Int64, _ why: String) {
        report(Violation(.liveness, at: time, why))
    }

    // MARK: - During the run

    /// A write someone asked for (`client` nil: the admin writer), in the order of
    /// `History.intents`.
    @usableFromInline mutating func intent(_ w: UserWrite, client: ClientID? = nil) {
        let i = intentCount
        intentCount += 1
        Self.set(&intentOfWrite, w.id, i)
        noteObserved(intent: i, w, client: client)
        if tenants.active { noteTenant(ofIntent: i, w, client: client) }
        for op in w.ops {
            switch op {
            case .delete:
                deleteIntents.insert(op.entity)
                deleters.modify(Self.entityKey(op.entity)) { $0.append(i) }
            case .create(let e, _, let a), .update(let e, _, let a):
                touchers.modify(Self.entityKey(e)) { $0.append(i) }
                for x in a {
                    let k = Self.key(e, x.field)
                    writersOf.modify(k) { $0.append(i) }
                    if let c = client { ownKeys[c.index][k] = true }
                }
            case .link, .unlink: break
            }
        }
        if let c = client {
            Self.set(&emptiedBefore, w.id, Int32(emptiedAt[c.index].count))
            openWrites[c.index].append(OpenWrite(intent: i, write: w.id))
            if Int(i) >= openIntent.count { openIntent.append(contentsOf: repeatElement(false, count: Int(i) + 1 - openIntent.count)) }
            openIntent[Int(i)] = true
            for op in w.ops where op.assignmentsIfWrite != nil {
                openTouch[c.index].modify(Self.entityKey(op.entity)) { l in if l.last != i { l.append(i) } }
            }
        }
    }

    /// A client's floor for a key it has not shown yet (versions are -1 or more).
    static var noFloor: Int32 { Int32.min }

    /// The key of one (entity, field) in the oracles' tables.
    @inline(__always) static func key(_ e: EntityID, _ f: FieldID) -> UInt64 { UInt64(e.raw) << 8 | UInt64(f.raw) }

    @usableFromInline mutating func connectWhileOffline(_ c: ClientID, at time: Int64) {
        report(Violation(.noReconnectWhileOffline, at: time, client: c,
                         "\(c) tried to connect while its device was offline"))
    }

    @usableFromInline mutating func told(_ c: ClientID, _ ev: UserEvent, connected: Bool, query: Query?) {
        if capturing { toldDuringCommand.append(ev) }
        if case .subscriptionYielded(_, false) = ev, connected, let q = query {
            // Compared in place (`firstIndex(of:)` copied each cached query it compared).
            let found: Int? = cachedQueries[c.index].withUnsafeBufferPointer { b in
                for k in 0..<b.count where b[k] == q { return k }
                return nil
            }
            if let i = found {
                refreshingCache = (c.index, i)
            } else {
                cachedQueries[c.index].append(q)
                cachedRoots[c.index].append(CachedRoots())
                refreshingCache = (c.index, cachedQueries[c.index].count - 1)
            }
        }
    }

    @usableFromInline mutating func applied(_ tx: AppliedTransaction, data: EntityStore, at time: Int64) {
        let index = appliedCount
        appliedCount += 1
        noteVersions(tx, index: index, data: data)
        noteRows(tx, at: time)
        if !tx.superseded.isEmpty { noteSuperseded(tx, index: index) }
        for w in tx.writes {
            let n = (applications[w] ?? 0) + 1   // (a write applied 2^31 times would need more events than a run has)
            applications[w] = n
            if n == 2 {
                var v = Violation(.noDuplicateApplication, at: time,
                                  "\(w) took effect on the server twice (tx \(tx.txID) from \(tx.origin) applied it again)")
                // The culprit: who applied it again, and the kind of the transaction's first step.
                v.culprit = (tx.ops.first.map { Self.culprit(tx.origin, $0) } ?? (tx.origin == .admin ? "admin" : "client")) + " applied again"
                report(v)
            }
        }
        // The steps are read where they lie (a `for op in tx.ops` copied each one, its arrays
        // retained); a step that is not a delete needs a look only once some deletion applied.
        let ops = tx.ops
        for k in ops.indices {
            let e = ops[k].entity
            let isDelete = ops[k].isDelete
            if !isDelete && deletedOnServer.isEmpty { continue }
            // (Asked before the step is copied: most steps of a long run are not resurrections.)
            if !isDelete && !(deletedOnServer.contains(e) && data.contains(e) && !resurrectionReported.contains(e)) { continue }
            let op = ops[k]
            if isDelete {
                // Attributed to the transaction's own intents: a delete someone asked for once
                // does not excuse a later delete of the same entity by a transaction that
                // carries no such intent (a stale diff, a replayed snapshot).
                let asked = tx.writes.contains { w in
                    guard let i = Self.get(intentOfWrite, w) else { return false }
                    return deleters[Self.entityKey(e)].contains(i)
                }
                if !asked && !ghostReported.contains(e) {
                    ghostReported.insert(e)
                    var v = Violation(.noGhostDeletion, at: time, entity: e,
                                      "the server deleted \(EntityRef(e, op.namespace(in: schema))) (tx \(tx.txID) from \(tx.origin)) but nobody asked to delete it")
                    v.culprit = Self.culprit(tx.origin, op)
                    report(v)
                }
                deletedOnServer.insert(e)
                if case .client(let c) = tx.origin, c.index < deletedByClient.count { deletedByClient[c.index].insert(e) }
            } else {
                resurrectionReported.insert(e)
                var v = Violation(.noResurrection, at: time, entity: e,
                                  "\(EntityRef(e, op.namespace(in: schema))) exists again after its deletion was applied (tx \(tx.txID) from \(tx.origin): \(op))")
                v.culprit = Self.culprit(tx.origin, op)
                report(v)
            }
        }
    }

    @usableFromInline mutating func beforeCommand<O: ObservedSystem>(_ c: ClientID, _ cmd: UserCommand, _ sim: O) {
        capturing = true
        if !toldDuringCommand.isEmpty { toldDuringCommand.removeAll(keepingCapacity: true) }
        noteForcing(c, cmd)
        if case .write(let w) = cmd {
            intent(w, client: c)
            beforePendingCount = sim.pendingWriteCount(of: c)
            beforePending = beforePendingCount >= sim.queueCap ? sim.pendingWrites(of: c) : []
            captureNested(c, w, sim)
        }
    }

    @usableFromInline mutating func afterCommand<O: ObservedSystem>(_ c: ClientID, _ cmd: UserCommand, _ sim: O) {
        capturing = false
        let t = sim.virtualTime
        switch cmd {
        case .write(let w):
            let rejectedNow = toldDuringCommand.contains { if case .writeRejected(w.id, _) = $0 { return true } else { return false } }
            checkReadYourWrites(c, w, sim, sim.subscriptions(of: c), rejectedNow: rejectedNow, at: t)
            checkNested(c, w, rejectedNow: rejectedNow, at: t)
            if schema.linkCount > 0 { checkNestedLinks(c, rejectedNow: rejectedNow, at: t) }
            checkQueueCap(c, w, sim, cap: sim.queueCap, rejectedNow: rejectedNow, at: t)
        case .queryOnce(let r, let q):
            checkQueryOnceFresh(c, r, unreachable: sim.isUnreachable(c), at: t)
            for ev in toldDuringCommand {
                if let f = ev.queryOnceFailure, f.request == r, let last = f.lastKnown { checkLastKnownResult(c, r, q, last, sim.history, at: t) }
            }
            guard sim.isOffline(c) else { break }
            let failed = toldDuringCommand.contains { $0.queryOnceFailure.map { $0.request == r && $0.offline } ?? false }
            let answered = toldDuringCommand.contains { if case .queryOnceResult(r) = $0 { return true } else { return false } }
            if !failed || answered {
                report(Violation(.queryOnceOfflineFails, at: t, client: c,
                                 answered ? "\(r) returned a result while \(c) was offline (it must fail: the data may be stale)"
                                          : "\(r) did not fail at once with the offline error while \(c) was offline"))
            }
        case .subscribe(let s, let q):
            guard sim.isOffline(c), sim.persistence, cachedQueries[c.index].contains(q) else { break }
            let yielded = toldDuringCommand.contains { if case .subscriptionYielded(s, _) = $0 { return true } else { return false } }
            if !yielded {
                report(Violation(.cachedSubscriptionOffline, at: t, client: c,
                                 "\(s) (\(q)) yielded nothing while \(c) was offline, though a result for it was cached"))
            } else {
                checkCachedYieldShows(c, s, q, shown: sim.shown(c, s), at: t)
                if let r = sim.shown(c, s), let i = cachedQueries[c.index].firstIndex(of: q) {
                    checkCachedYieldIsCache(c, s, q, r, cached: cachedRoots[c.index][i].value(sim.history), sim.history, at: t)
                }
            }
        default: break
        }
    }

    /// Right after a local write, every subscription that has yielded shows it.
    mutating func checkReadYourWrites<O: ObservedSystem>(_ c: ClientID, _ w: UserWrite, _ sim: O,
                                                       _ subs: [(SubscriptionID, Query)], rejectedNow: Bool, at t: Int64) {
        if rejectedNow { return }
        // By index: a `for (s, q) in subs` copied every query (its arrays retained and released)
        // though only a create the result lacks reads it.
        // The steps and the entries shown are read in place (`for op in w.ops` and
        // `r.record(e)` copied each step and record, per subscription per write).
        let ops = w.ops
        for si in subs.indices {
            let s = subs[si].0
            guard let r = sim.shown(c, s) else { continue }
            for k in ops.indices {
                let e = ops[k].entity
                switch ops[k] {
                case .create(_, _, let a), .update(_, _, let a):
                    if let ri = r.index(of: e) {
                        for x in a where Self.shownValue(r, ri, x.field) != x.value {
                            let op = ops[k]
                            report(Violation(.readYourWrites, at: t, client: c, entity: e,
                                             "right after \(c) wrote \(EntityRef(e, op.namespace(in: schema))).\(x.field.name) = \(x.value) (\(w.id)), \(s) shows \(Self.shownValue(r, ri, x.field).map(\.description) ?? "nothing")"))
                            return
                        }
                    } else if case .create(_, let ns, let a) = ops[k] {
                        let q = subs[si].1
                        if q.condition == nil, q.limit == nil, q.filter == nil || a.contains(q.filter!), ns == q.namespace {
                            report(Violation(.readYourWrites, at: t, client: c, entity: e,
                                             "right after \(c) created \(EntityRef(e, ns)) (\(w.id)), \(s) (\(q)) does not show it"))
                            return
                        }
                    }
                case .delete:
                    if Self.hasRoot(r, e) {
                        report(Violation(.readYourWrites, at: t, client: c, entity: e,
                                         "right after \(c) deleted \(EntityRef(e, ops[k].namespace(in: schema))) (\(w.id)), \(s) still shows it"))
                        return
                    }
                case .link, .unlink: break
                }
            }
        }
    }

    /// A local write to a child in a subscription's result tree must make that subscription yield.
    /// A write refused on the spot (e.g. at a full queue) changed nothing, so nothing must yield.
    /// (Which step changes a child of which tree was found before the write: `captureNested`.)
    mutating func checkNested(_ c: ClientID, _ w: UserWrite, rejectedNow: Bool, at t: Int64) {
        if rejectedNow { return }
        for x in nestedBefore {
            let s = x.subscription
            let yielded = toldDuringCommand.contains { if case .subscriptionYielded(s, _) = $0 { return true } else { return false } }
            if !yielded {
                report(Violation(.nestedSubscriptionReyields, at: t, client: c, entity: x.entity,
                                 "\(c) changed \(EntityRef(x.entity, x.namespace)), a child in \(s)'s result tree, and \(s) did not yield"))
                return
            }
        }
    }

    /// At the cap, a new write is refused with a visible error or accepted; nothing queued vanishes.
    mutating func checkQueueCap<O: ObservedSystem>(_ c: ClientID, _ w: UserWrite, _ sim: O, cap: Int, rejectedNow: Bool, at t: Int64) {
        guard beforePendingCount >= cap else { return }
        let after = Set(sim.pendingWrites(of: c))
        if !after.contains(w.id) && !rejectedNow && applications[w.id] == nil {
            report(Violation(.queueCapNoSilentDrop, at: t, client: c,
                             "with \(beforePendingCount) writes queued (cap \(cap)), \(w.id) was neither queued nor refused with an error"))
            return
        }
        for p in beforePending where !after.contains(p) && applications[p] == nil {
            let told = toldDuringCommand.contains { if case .writeRejected(p, _) = $0 { return true } else { return false } }
            if !told {
                report(Violation(.queueCapNoSilentDrop, at: t, client: c,
                                 "queued write \(p) disappeared without being applied or rejected when \(w.id) arrived at the cap"))
                return
            }
        }
    }

    // MARK: - At the end

    @usableFromInline mutating func finish<O: ObservedSystem>(_ sim: O) {
        let h = sim.history
        let t = sim.virtualTime
        // Every tenant's data (one store with tenants off): entity ids are unique across tenants.
        let data = sim.everyTenantsData
        let rejected = h.rejectedWrites
        finishConvergence(sim, rejected: rejected, at: t)
        // noLostAcknowledgedWrite: every accepted client write is applied, rejected, or still pending.
        var pendingNow = Set<WriteID>()
        for i in 0..<sim.clientCount { pendingNow.formUnion(sim.pendingWrites(of: ClientID(i))) }
        // With tenants: writes waiting in a tenant's local database the client is not in now.
        if tenants.active { for i in 0..<sim.clientCount { pendingNow.formUnion(sim.parkedWrites(of: ClientID(i))) } }
        for it in h.intents {
            guard case .client(let c) = it.origin else { continue }
            let w = it.write.id
            if applications[w] == nil && !rejected.contains(w) && !pendingNow.contains(w) && !isSuperseded(w, h) {
                // Dropped with the user's local data at a logout or user change: withdrawn by the
                // user (seed 000, seed 004 §4.1), not lost (`History.TenantChange.discarded`).
                if tenants.active, h.discardedByTenantChange(w, client: c) != nil { continue }
                // Past the limit a report is only counted: skip building its text (a long run
                // without persistence loses thousands of writes at restarts).
                if atLimit(.noLostAcknowledgedWrite) { countSuppressed(.noLostAcknowledgedWrite); continue }
                let restart = h.restarts.first { $0.client == c && $0.pendingAtCrash.contains(w) && !$0.pendingAfter.contains(w) }
                var why = restart.map { " (a restart at t=\($0.time)ms lost it from the queue" +  (sim.persistence ? ")" : "; persistence is off)") } ?? ""
                if restart == nil, tenants.active, let ch = h.tenantChanges.first(where: { $0.client == c && $0.pendingBefore.contains(w) && !$0.pendingAfter.contains(w) }) {
                    why = " (a switch of tenant at t=\(ch.time)ms closed its database and lost it from the queue" + (sim.persistence ? ")" : "; persistence is off)")
                }
                var v = Violation(.noLostAcknowledgedWrite, at: t, client: c, entity: it.write.ops.first?.entity,
                                  "\(c)'s write \(w) (\(it.write)) was never applied and the user was never told it failed\(why)")
                v.culprit = it.write.ops.first.map { Self.culprit(it.origin, $0) + (restart == nil ? " lost" : " lost at restart") }
                report(v)
            }
        }
        if sim.arbitration == .recordTimestamp {
            // disjointFieldMerge is still judged per register (a full-row overwrite of a
            // concurrent edit of another column is what it names); lwwConvergence per record.
            finishFieldOrder(sim, data: data, rejected: rejected, lww: false, at: t)
            finishLinkOrder(sim, data: data, lww: false, at: t)
            let rw = recordWinners(h)
            finishRecordFields(h, data: data, rw, at: t)
            finishLinkOrder(sim, data: data, records: rw, at: t)
        } else {
            finishFieldOrder(sim, data: data, rejected: rejected, at: t)
            finishLinkOrder(sim, data: data, at: t)
        }
        let maxSkew = max(0, (0..<sim.clientCount).map { sim.skew(of: ClientID($0)) }.max() ?? 0)
        finishTyping(h, data: data, rejected: rejected, arbitration: sim.arbitration, maxSkew: maxSkew, at: t)
        finishToldOutcome(h, at: t)
        finishClientWriteOrder(h, at: t)
        finishTimelyFeedback(h, at: t)
        finishLinkIntegrity(data, at: t)
        finishCachedRoots()
    }

    mutating func finishConvergence<O: ObservedSystem>(_ sim: O, rejected: Set<WriteID>, at t: Int64) {
        for i in 0..<sim.clientCount {
            let c = ClientID(i)
            // Its tenant's server (with tenants off, the server); a logged-out client has none.
            guard let data = sim.serverData(seenBy: c) else { continue }
            for (s, q) in sim.subscriptions(of: c) {
                let expected = q.evaluate(data)
                guard let r = sim.shown(c, s) else {
                    report(Violation(.convergence, at: t, client: c, "\(s) (\(q)) never yielded a result"))
                    continue
                }
                if r != expected {
                    report(Violation(.convergence, at: t, client: c, entity: Self.firstDifference(r, expected),
                                     "\(s) (\(q)) shows \(Self.describeDifference(r, expected))"))
                }
            }
            let stuck = sim.pendingWrites(of: c).filter { !rejected.contains($0) }
            if !stuck.isEmpty {
                report(Violation(.convergence, at: t, client: c,
                                 "\(stuck.count) write(s) still pending after heal: \(stuck.prefix(5).map(\.description).joined(separator: ", "))"))
            }
        }
    }

    static func firstDifference(_ a: QueryResult, _ b: QueryResult) -> EntityID? {
        let ids = Set(a.entries.map(\.id)).union(b.entries.map(\.id)).sorted()
        return ids.first { a.record($0) != b.record($0) }
    }

    static func describeDifference(_ a: QueryResult, _ b: QueryResult) -> String {
        guard let e = firstDifference(a, b) else { return "a different tree shape than the server" }
        let x = a.record(e), y = b.record(e)
        let ns = (x ?? y)!.namespace
        let ref = EntityRef(e, ns)
        switch (x, y) {
        case (nil, _?): return "no \(ref), which the server has"
        case (_?, nil): return "\(ref), which the server does not have"
        case (let x?, let y?): return "\(ref)\(x.summary) but the server has \(y.summary)"
        default: return "a difference"
        }
    }

    /// lwwConvergence and disjointFieldMerge: the final value of each (entity, field) must be the
    /// value of the winning write under the strategy's declared arbitration.
    /// `lww` false: only disjointFieldMerge is reported (`.recordTimestamp` judges lww per record).
    mutating func finishFieldOrder<O: ObservedSystem>(_ sim: O, data: EntityStore, rejected: Set<WriteID>, lww: Bool = true, at t: Int64) {
        let h = sim.history
        let arbitration = sim.arbitration
        // Position of the last transaction that carried each write, and the last transaction that
        // assigned each (entity, field), with whether one of its intents targeted that field.
        // (Dense tables over write ids and (entity, field) keys: this runs over the whole log, and
        // a hash per step was most of its cost; huge ids fall back to hashing, `KeyTable`.)
        var lastTxOfWrite = WriteTable<Int32>()
        var lastAssign = KeyTable<(tx: Int32, targeted: Bool)>(stride: schema.fieldCount, blank: (-1, false))
        func key(_ e: EntityID, _ f: FieldID) -> UInt64 { UInt64(e.raw) << 8 | UInt64(f.raw) }
        // The keys this transaction's intents assign: usually a few (a list beats hashing), but
        // a strategy that re-sends whole collections (sharedDiff) carries hundreds per
        // transaction, and a linear search per assigned step made this quadratic in the
        // collection: from `sortedMinimum` keys on, the list is sorted and searched by halves.
        var targeted: [UInt64] = []
        func isTargeted(_ k: UInt64) -> Bool {
            guard targeted.count >= Self.sortedMinimum else { return targeted.contains(k) }
            return targeted.withUnsafeBufferPointer { b in
                var lo = 0, hi = b.count
                while lo < hi {
                    let mid = (lo &+ hi) >> 1
                    if b[mid] < k { lo = mid &+ 1 } else { hi = mid }
                }
                return lo < b.count && b[lo] == k
            }
        }
        // The log, the intents and their steps are read where they lie: a `for` over them copied
        // each transaction, intent and step (a retain and a release of each of their arrays).
        h.applied.withUnsafeBufferPointer { ap in
            h.intents.withUnsafeBufferPointer { ip in
                for i in 0..<ap.count {
                    targeted.removeAll(keepingCapacity: true)
                    for w in ap[i].tx.writes {
                        lastTxOfWrite[w] = Int32(i)
                        if let p = h.intentPosition(w) {
                            Self.forEachAssignment(ip[p].write.ops) { e, x in targeted.append(key(e, x.field)) }
                        }
                    }
                    if targeted.count >= Self.sortedMinimum { targeted.sort() }
                    Self.forEachAssignment(ap[i].tx.ops) { e, x in let k = key(e, x.field); lastAssign[k] = (Int32(i), isTargeted(k)) }
                }
            }
        }
        var candidates = KeyTable<[FieldCandidate]>(stride: schema.fieldCount, blank: [])
        // Every write that took effect competes, even one the user was told failed (a timeout
        // after the server applied it): the server's log, not the client's belief, is the truth.
        h.intents.withUnsafeBufferPointer { ip in
            for made in 0..<ip.count {
                guard let tx = lastTxOfWrite[ip[made].write.id] else { continue }
                Self.forEachAssignment(ip[made].write.ops) { e, x in
                    candidates.modify(key(e, x.field)) { $0.append(FieldCandidate(made: Int32(made), tx: tx, value: x.value)) }
                }
            }
        }
        // The fastest clock anywhere: every client's, and the server's own (skew 0), since admin
        // writes and replies carry the server's time into clients' clocks.
        let maxSkew = max(0, (0..<sim.clientCount).map { sim.skew(of: ClientID($0)) }.max() ?? 0)
        func skew(_ o: Origin) -> Int64 { if case .client(let c) = o { return sim.skew(of: c) } else { return 0 } }
        // The data's records are read where they lie, in id order (`data.entities` copied every
        // record), and a register's acceptable writes are listed only to report it (the list
        // copied each winning intent whole).
        let rs = data.records
        for i in rs.indices {
            guard let ns = rs[i]?.namespace else { continue }
            let id = EntityID(UInt32(i))
            for f in schema.fields(of: ns) {
                let k = key(id, f)
                let cands = candidates[k]
                guard !cands.isEmpty, let final = rs[i]?[f] else { continue }
                let wins = mayWin(cands.map { Contender(intent: $0.made, tx: $0.tx) }, key: k, h,
                                  arbitration: arbitration, skew: skew, maxSkew: maxSkew)
                if cands.indices.contains(where: { wins[$0] && cands[$0].value == final }) { continue }
                let rec = rs[i]!
                let acceptable = cands.indices.filter { wins[$0] }.map { (h.intents[Int(cands[$0].made)], cands[$0].value) }
                let ref = EntityRef(id, rec.namespace)
                let want = acceptable.map { "\($0.1) (\($0.0.write.id) by \($0.0.origin))" }.joined(separator: " or ")
                // The culprit: the last transaction that assigned the register (what put the
                // wrong value there).
                let la = lastAssign[k]
                let culprit = la.tx < 0 ? nil : { () -> String? in
                    let tx = h.applied[Int(la.tx)].tx
                    return tx.ops.last { $0.entity == id && $0.assignments.contains { $0.field == f } }.map { Self.culprit(tx.origin, $0) }
                }()
                if la.tx >= 0, !la.targeted {
                    let tx = h.applied[Int(la.tx)].tx
                    var v = Violation(.disjointFieldMerge, at: t, entity: id,
                                      "\(ref).\(f.name) = \(final), expected \(want): tx \(tx.txID) from \(tx.origin) overwrote it while writing other fields (\(tx.writes.map(\.description).joined(separator: ", ")))")
                    v.culprit = culprit
                    report(v)
                } else if lww {
                    var v = Violation(.lwwConvergence, at: t, entity: id,
                                      "\(ref).\(f.name) = \(final), but the last write in \(arbitration) order is \(want)")
                    v.culprit = culprit
                    report(v)
                }
            }
        }
    }

    /// A typing burst that nothing else raced ends at its last keystroke.
    mutating func finishTyping(_ h: History, data: EntityStore, rejected: Set<WriteID>, arbitration: Arbitration, maxSkew: Int64, at t: Int64) {
        var firstTx = WriteTable<Int32>(), lastTx = WriteTable<Int32>()
        // The log and the intents are read in place, bursts kept as intent positions: copies of
        // whole transactions and intents (each array retained) were most of this check's cost.
        h.applied.withUnsafeBufferPointer { ap in
            for i in 0..<ap.count {
                for w in ap[i].tx.writes { if firstTx[w] == nil { firstTx[w] = Int32(i) }; lastTx[w] = Int32(i) }
            }
        }
        var bursts: [UInt32: [Int32]] = [:]
        h.intents.withUnsafeBufferPointer { ip in
            for i in 0..<ip.count { if let b = ip[i].write.burst { bursts[b, default: []].append(Int32(i)) } }
        }
        h.intents.withUnsafeBufferPointer { ip in
            for b in bursts.keys.sorted() {
                let keys = bursts[b]!
                guard let li = keys.last, case .update(let e, let ns, let a)? = ip[Int(li)].write.ops.first, let x = a.first else { continue }
                let lastID = ip[Int(li)].write.id
                // A last keystroke that never took effect is lost or rejected: noLostAcknowledgedWrite
                // owns that story; this invariant is about where an applied burst ends.
                if rejected.contains(lastID) || deleteIntents.contains(e) || lastTx[lastID] == nil { continue }
                let start = ip[Int(keys[0])].time
                let startClock = ip[Int(keys[0])].clientTime
                let burstIDs = Set(keys.map { ip[Int($0)].write.id })
                let firstApplied = keys.compactMap { firstTx[ip[Int($0)].write.id] }.min() ?? Int32.max
                // Raced: another write to the same field made during or after the burst, or one made
                // earlier but applied after the burst began to land (an offline replay: under
                // arrival order it legitimately wins).
                // The intents that assign the field: `writersOf` lists exactly those (each intent the
                // monitor was fed is `h.intents` at the same position); a scan of every intent per burst
                // made this quadratic in a long run. (A history fed otherwise is scanned whole.)
                let writers: [Int32] = intentCount == h.intents.count ? writersOf[Self.key(e, x.field)]
                                                                        : h.intents.indices.map { Int32($0) }
                let raced = writers.contains { i in
                    precondition(Int(i) < ip.count)
                    let it = ip.baseAddress! + Int(i)
                    // (Both tests are pure; the cheap one first.)
                    guard Self.assigns(it.pointee.write.ops, e, x.field), !burstIDs.contains(it.pointee.write.id) else { return false }
                    if it.pointee.time >= start || (lastTx[it.pointee.write.id] ?? -1) > firstApplied { return true }
                    // Under timestamp orders, a write stamped at or after the burst began (a clock
                    // running ahead) is concurrent with it and may legitimately win. Under HLC a
                    // write's stamp can carry any clock it causally saw, up to the fastest clock
                    // anywhere, so the bound is its time plus the largest skew.
                    switch arbitration {
                    case .serverArrival: return false
                    case .clientTimestamp, .recordTimestamp: return it.pointee.clientTime >= startClock
                    case .hybridLogicalClock: return it.pointee.time + maxSkew >= startClock
                    }
                }
                if raced { continue }
                guard let rec = data[e] else { continue }
                if rec[x.field] != x.value {
                    report(Violation(.typingConvergesToLastKeystroke, at: t, entity: e,
                                     "typing burst ended at \(x.value) (\(lastID)) but \(EntityRef(e, ns)).\(x.field.name) = \(rec[x.field].map(\.description) ?? "nothing")"))
                }
            }
        }
    }
}

extension Monitor {
    /// The fewest keys `finishFieldOrder` sorts and searches by halves rather than in a row.
    static let sortedMinimum = 16

    /// Calls `body` with each assignment of each create and update among `ops`, in order, the
    /// steps read in place (a `for op in ops` copied each step, its arrays retained).
    @inline(__always)
    static func forEachAssignment(_ ops: [Op], _ body: (EntityID, FieldAssignment) -> Void) {
        ops.withUnsafeBufferPointer { b in
            for k in 0..<b.count {
                switch b[k] {
                case .create(let e, _, let a), .update(let e, _, let a):
                    for x in a { body(e, x) }
                default: break
                }
            }
        }
    }

    /// Whether some create or update among `ops` assigns field `f` of entity `e` (the steps read
    /// in place).
    static func assigns(_ ops: [Op], _ e: EntityID, _ f: FieldID) -> Bool {
        ops.withUnsafeBufferPointer { b in
            for k in 0..<b.count {
                switch b[k] {
                case .create(let x, _, let a) where x == e, .update(let x, _, let a) where x == e:
                    if a.contains(where: { $0.field == f }) { return true }
                default: break
                }
            }
            return false
        }
    }

    /// A write that took effect assigning a register (`finishFieldOrder`): its intent's position
    /// in the history, its last transaction's position in the log, the value it assigned.
    struct FieldCandidate: Sendable {
        var made: Int32
        var tx: Int32
        var value: FieldValue
    }
}
