/// The `pushPull` client: a WatermelonDB local database with seed 004's operation queue, sync
/// triggers, conflict prompts and forced syncs. See `PushPullStrategy` for the rules table.
public struct PushPullClient: ClientMachine {
    public typealias Up = PushPullUp
    public typealias Down = PushPullDown

    /// What survives a restart (with persistence on): the database, the queue, `lastPulledAt`.
    /// Open conflict prompts are UI and do not survive; their rows are pushed (and prompt) again.
    public struct Durable: Sendable {
        /// The database's rows as a base and a log of the rows set since, sharing the client's
        /// storage (see `PushPullTable.Persisted`): the client persists after most events, and a
        /// list of every row built each time cost the whole database per event.
        public var rows: PushPullTable.Persisted
        public var queue: OperationQueue
        public var lastPulledAt: UInt64?

        /// Every row, in id order.
        public var records: [LocalRecord] { rows.all }
    }

    /// Where the one running sync is (WatermelonDB runs one `synchronize` at a time).
    public enum Phase: Hashable, Sendable {
        case idle
        case pulling(UInt32)
        case pushing(UInt32)
    }

    public struct OpenConflict: Hashable, Sendable {
        public var id: ConflictID
        public var entity: EntityID
        /// The server's row, kept current by later pulls.
        public var server: RemoteRecord
    }

    /// The request timeout of sync `s` has its own id: the simulator restarts a timer's
    /// generation after a cancel, so a cancelled timeout of an earlier request could otherwise
    /// fire as the current one's.
    static func requestTimer(_ s: UInt32) -> TimerID { TimerID(0x8000_0000 | s) }
    static let retryTimer = TimerID(2)
    static let periodicTimer = TimerID(3)
    static let soonTimer = TimerID(4)
    /// Seed 004 §6.2: "setTimeout(() => this.syncAll(entity), 500)" after a local change.
    static let afterMutationMs: Int64 = 500

    public let id: ClientID
    let persistence: Bool
    let queueCap: Int
    let intervalMs: Int64
    let timeoutMs: Int64
    /// WatermelonDB's pull-then-push (default) or seed 004's push-then-pull.
    let order: PushPullOrder
    /// Rows per push request (seed 004 §2.1 "batch max 100"; `StrategyOptions.pushBatchSize`).
    let batchSize: Int
    /// Whether the run keeps a story: `.note` texts are built only then.
    let tracesNotes: Bool
    var random: SimRandom

    public private(set) var online = false
    /// The local database (a dense table by entity id; see `PushPullTable`).
    public private(set) var records = PushPullTable()
    public private(set) var queue = OperationQueue()
    public private(set) var lastPulledAt: UInt64?
    public private(set) var phase = Phase.idle
    public private(set) var conflicts: [OpenConflict] = []
    var syncCounter: UInt32
    /// Consecutive failed syncs (exponential backoff).
    public private(set) var failures = 0
    /// The rows as pushed by the running push (WatermelonDB marks a row synced only if it did not
    /// change since it was fetched for the push).
    var pushed: [PushRecord] = []
    /// The running push: the batch in flight (numbered from 0) and the rows still to send in
    /// later batches, in id order (seed 004 `pushLocalMutations`: one request per batch, each
    /// answered and cleared before the next).
    public private(set) var pushBatch: UInt32 = 0
    var pushRemaining: [EntityID] = []
    /// The running pull's page, numbered from 0 (seed 004 `pullRemoteChanges` recurses while
    /// `hasMore`; `lastPulledAt` advances, and is persisted, page by page).
    public private(set) var pullPage: UInt32 = 0
    var forceFromServerRequested = false
    var forceFromServerRunning = false
    var nextConflict: UInt32
    /// The subscriptions, grouped by query: one result per distinct query, patched once per
    /// change of the view and shown by each of its subscriptions (`SubscriptionGroups`).
    var subs = SubscriptionGroups()
    /// The local database as the UI sees it (live rows, dangling links hidden).
    var view = EntityStore()

    /// The run's data model.
    let schema: Schema

    public init(context: ClientContext, restoring durable: Durable?) {
        id = context.id
        schema = context.schema
        persistence = context.persistence
        queueCap = context.queueCap
        intervalMs = context.options.syncIntervalMs
        timeoutMs = context.options.sendTimeoutMs
        tracesNotes = context.tracesNotes
        order = context.options.pushPullOrder
        batchSize = max(1, context.options.pushBatchSize)
        random = context.random
        syncCounter = UInt32(truncatingIfNeeded: context.incarnation) << 20
        nextConflict = UInt32(context.id.index) << 24 | UInt32(truncatingIfNeeded: context.incarnation) << 16
        if let durable {
            records = PushPullTable(durable.rows)
            queue = durable.queue
            // A push cut short by the crash: its rows wait for the next sync.
            queue.markFailed("interrupted by a restart")
            lastPulledAt = durable.lastPulledAt
        }
        if persistence { records.startLogging() }
        var touched: [EntityID] = []
        _ = patchView(touched: &touched)
    }

    public var durableState: Durable {
        guard persistence else { return Durable(rows: PushPullTable.Persisted(), queue: OperationQueue(), lastPulledAt: nil) }
        return Durable(rows: records.persisted, queue: queue, lastPulledAt: lastPulledAt)
    }

    public func result(of subscription: SubscriptionID) -> QueryResult? {
        subs.result(of: subscription)
    }

    public var pendingWrites: [WriteID] { queue.outstandingWrites }
    public var pendingWriteCount: Int { queue.outstandingWriteCount }

    // MARK: - Inputs

    public mutating func handle(_ input: ClientInput<PushPullDown>, now: Int64, out: inout ClientOutbox<PushPullUp>) {
        switch input {
        case .network(.online):
            // App open and "network regained" (seed 004 §2.2) both arrive as this event.
            online = true
            out(.setTimer(Self.periodicTimer, afterMs: intervalMs))
            startSync(now: now, out: &out)
        case .network(.offline):
            online = false
            out(.cancelTimer(Self.periodicTimer))
            out(.cancelTimer(Self.retryTimer))
            out(.cancelTimer(Self.soonTimer))
            if phase != .idle { abortSync("offline", out: &out) }
        case .connected, .disconnected:
            out(.event(.invalidInput("pushPull uses requests, not connections: \(input)")))
        case .timerFired(let t):
            timerFired(t, now: now, out: &out)
        case .received(let m):
            receive(m, now: now, out: &out)
        case .user(let cmd):
            user(cmd, now: now, out: &out)
        }
    }

    mutating func timerFired(_ t: TimerID, now: Int64, out: inout ClientOutbox<PushPullUp>) {
        if t.raw & 0x8000_0000 != 0 {
            let s = t.raw & 0x7FFF_FFFF
            if phase == .pulling(s) || phase == .pushing(s) { failSync("timeout", out: &out) }
            return
        }
        switch t {
        case Self.retryTimer, Self.soonTimer:
            startSync(now: now, out: &out)
        case Self.periodicTimer:
            if online {
                out(.setTimer(Self.periodicTimer, afterMs: intervalMs))
                startSync(now: now, out: &out)
            }
        default:
            out(.event(.invalidInput("unknown \(t)")))
        }
    }

    // MARK: - The sync loop (WatermelonDB `synchronize`: pull, apply, push, mark synced;
    // seed 004 §2.1 with `.pushThenPull`: push, clear, pull, merge)

    mutating func startSync(now: Int64, out: inout ClientOutbox<PushPullUp>) {
        guard online, phase == .idle else { return }
        out(.cancelTimer(Self.retryTimer))
        out(.cancelTimer(Self.soonTimer))
        syncCounter &+= 1
        forceFromServerRunning = forceFromServerRequested
        // Force from server skips the push in either order (seed 004 §3.1).
        if order == .pushThenPull && !forceFromServerRunning {
            pushPhase(sync: syncCounter, now: now, out: &out)
        } else {
            pullPhase(sync: syncCounter, out: &out)
        }
    }

    mutating func pullPhase(sync s: UInt32, out: inout ClientOutbox<PushPullUp>) {
        phase = .pulling(s)
        pullPage = 0
        if tracesNotes { out(.note(forceFromServerRunning ? "force sync from server: pulling everything, the push is skipped" : "sync #\(s): pulling changes since \(lastPulledAt.map(String.init) ?? "the beginning")")) }
        out(.send(.pull(sync: s, since: forceFromServerRunning ? nil : lastPulledAt)))
        out(.setTimer(Self.requestTimer(s), afterMs: timeoutMs))
    }

    /// The page just applied said `hasMore`: pull the next one from its cursor (now
    /// `lastPulledAt`, already persisted, so a failure or a restart resumes from here).
    mutating func pullNextPage(sync s: UInt32, out: inout ClientOutbox<PushPullUp>) {
        pullPage += 1
        if tracesNotes { out(.note("sync #\(s): the server has more (hasMore): pulling page \(pullPage + 1) from cursor \(lastPulledAt.map(String.init) ?? "none")")) }
        out(.send(.pull(sync: s, since: lastPulledAt, page: pullPage)))
        out(.setTimer(Self.requestTimer(s), afterMs: timeoutMs))
    }

    /// The running sync failed: retry with exponential backoff (seed 004 §1.3) and jitter.
    mutating func failSync(_ why: String, out: inout ClientOutbox<PushPullUp>) {
        abortSync(why, out: &out)
        failures += 1
        let base = min(Int64(1_000) << Int64(min(failures - 1, 5)), 30_000)
        let wait = base + Int64(random.below(UInt64(base / 4 + 1)))
        if tracesNotes { out(.note("sync failed (\(why)): retrying in \(wait) ms (failure \(failures), exponential backoff)")) }
        out(.setTimer(Self.retryTimer, afterMs: wait))
    }

    var runningSync: UInt32? {
        switch phase {
        case .idle: return nil
        case .pulling(let s), .pushing(let s): return s
        }
    }

    mutating func abortSync(_ why: String, out: inout ClientOutbox<PushPullUp>) {
        if let s = runningSync { out(.cancelTimer(Self.requestTimer(s))) }
        phase = .idle
        pushed = []
        pushRemaining = []
        forceFromServerRunning = false
        queue.markFailed(why)
        persist(out: &out)
    }

    /// Tells the user about writes dropped from the queue, but only what is known to be true:
    /// "discarded" for writes no push may have applied; the others go silently (with a story
    /// note), because a push whose answer was lost, or a crash before its answer was persisted,
    /// may already have applied them — the model used to report those "discarded" after
    /// telling them "confirmed".
    mutating func tell(_ d: OperationQueue.Discarded, _ why: @autoclosure () -> String, out: inout ClientOutbox<PushPullUp>) {
        for w in d.told { out(.event(.writeRejected(w, .conflictDiscarded))) }
        if tracesNotes, !d.isEmpty {
            var parts: [String] = []
            if !d.told.isEmpty { parts.append("told discarded: " + d.told.map(\.description).joined(separator: ",")) }
            if !d.silent.isEmpty { parts.append("dropped silently, as a push may already have applied them: " + d.silent.map(\.description).joined(separator: ",")) }
            out(.note(why() + "; " + parts.joined(separator: "; ")))
        }
    }

    mutating func finishSync(now: Int64, out: inout ClientOutbox<PushPullUp>) {
        if let s = runningSync { out(.cancelTimer(Self.requestTimer(s))) }
        phase = .idle
        pushed = []
        pushRemaining = []
        failures = 0
        // Changes made while this sync ran, or a force requested meanwhile: sync again.
        if forceFromServerRequested || pushable.contains(where: { queue.hasPending(on: $0.entity) || $0.force }) {
            startSync(now: now, out: &out)
        }
    }

    mutating func receive(_ m: PushPullDown, now: Int64, out: inout ClientOutbox<PushPullUp>) {
        switch m {
        case .pulled(let s, let changes, let deleted, let ts, let more, let page):
            // Answers to requests that are not the running one (late, duplicated, an earlier
            // page) are ignored.
            guard phase == .pulling(s), page == pullPage else { return }
            applyPull(changes, deleted, timestamp: ts, more: more, out: &out)
            if more {
                pullNextPage(sync: s, out: &out)
            } else if order == .pullThenPush {
                pushPhase(sync: s, now: now, out: &out)
            } else {
                finishSync(now: now, out: &out)
            }
        case .pushed(let s, let results, let batch):
            guard phase == .pushing(s), batch == pushBatch else { return }
            applyPushResults(results, out: &out)
            if !pushRemaining.isEmpty {
                sendBatch(sync: s, out: &out)
            } else if order == .pullThenPush {
                finishSync(now: now, out: &out)
            } else {
                pullPhase(sync: s, out: &out)
            }
        case .pushRejected(let s, _):
            // WatermelonDB: the client must pull again and retry the whole sync.
            guard phase == .pushing(s) else { return }
            // Not proof that the writes did not take effect: the refusal may answer a duplicate
            // of this push whose first copy was applied (its own write is then the change after
            // `lastPulledAt`), so the rows count as possibly applied.
            failSync("push rejected: changed on the server since the last pull", out: &out)
        }
    }

    mutating func applyPull(_ changes: [RemoteRecord], _ deleted: [EntityID], timestamp: UInt64, more: Bool = false, out: inout ClientOutbox<PushPullUp>) {
        if forceFromServerRunning {
            // Seed 004 §3.1: skip push, hard-reset the local tables to the server's rows.
            forceFromServerRunning = false
            forceFromServerRequested = false
            tell(queue.discardAll(), "force sync from server: local changes discarded, \(changes.count) rows taken from the server", out: &out)
            // The table becomes the server's rows, each as a synced row (`PushPullMerge.fresh`,
            // what `apply(remote:to: nil)` makes); a row already equal to the one it would take
            // is left as it is, and no row is built for it (see `PushPullTable.replaceAll`).
            records.replaceAll(withServerRows: changes)
            conflicts = []
        } else {
            // WatermelonDB applyRemote: a remote delete destroys the row even if changed locally.
            for e in deleted {
                guard records.has(e) else { continue }
                records[e] = nil
                conflicts.removeAll { $0.entity == e }
                tell(queue.discard(on: e), "entity \(e.raw) was deleted on the server: the local row is destroyed with its changes (WatermelonDB applyRemote)", out: &out)
            }
            // Into an empty database (the first pull after a restart without persistence, or
            // of a new client) every row is new: set at once (`PushPullTable.fill`, the same
            // table as row by row below, which takes each row as it is when it has none).
            let filled = records.count == 0 && conflicts.isEmpty
                && records.fill(changes.compactMap { PushPullMerge.apply(remote: $0, to: nil, schema: schema) })
            for r in changes where !filled {
                if let i = conflicts.firstIndex(where: { $0.entity == r.entity }) {
                    conflicts[i].server = r
                    // A row waiting for the user's answer keeps its local version (seed 004: the
                    // conflict stays in `ConflictStore` until resolved).
                    if order == .pushThenPull { continue }
                }
                if order == .pushThenPull, let l = records[r.entity], l.isLocallyChanged {
                    mergeDetectingConflict(local: l, remote: r, out: &out)
                } else if !records.has(r.entity) {
                    // A new row (every row of a first pull): no local row to copy out and merge.
                    records[r.entity] = PushPullMerge.apply(remote: r, to: nil, schema: schema)
                } else {
                    records[r.entity] = PushPullMerge.apply(remote: r, to: records[r.entity], schema: schema)
                }
            }
        }
        if tracesNotes {
            out(.note("pull applied: \(changes.count) changed rows, \(deleted.count) deleted ids; lastPulledAt \(lastPulledAt.map(String.init) ?? "none") → \(timestamp)" + (more ? " (page \(pullPage + 1); more to come)" : "")))
        }
        lastPulledAt = timestamp
        persist(out: &out)
        refreshYields(out: &out)
    }

    /// Locally changed rows, in id order, except ones waiting for the user's conflict answer.
    var pushable: [LocalRecord] {
        records.changedIDs.compactMap { e in
            conflicts.contains(where: { $0.entity == e }) ? nil : records[e]
        }
    }

    mutating func pushPhase(sync s: UInt32, now: Int64, out: inout ClientOutbox<PushPullUp>) {
        let rows = pushable
        if rows.isEmpty {
            if order == .pullThenPush { finishSync(now: now, out: &out) } else { pullPhase(sync: s, out: &out) }
            return
        }
        pushRemaining = rows.count > batchSize ? Self.groupedByType(rows, schema: schema) : rows.map(\.entity)
        pushBatch = 0
        phase = .pushing(s)
        if tracesNotes && rows.count > batchSize {
            out(.note("pushing \(rows.count) locally changed rows in \((rows.count + batchSize - 1) / batchSize) batches of at most \(batchSize) (seed 004 §2.1)"))
        }
        sendBatch(sync: s, first: true, out: &out)
    }

    /// Seed 004 §2.1 "group by entity, batch max 100": when a push needs several batches, its
    /// rows go grouped by type, link targets' types first (profiles before the posts that link
    /// to them), each type in id order. Why: the server keeps no link to a row it does not have,
    /// so a post in an earlier batch than the profile it links to would lose its author (one
    /// push sets such links once all its rows are in, `linkRowsCreatedLater`; batches are
    /// separate pushes). Types that link to each other in a cycle keep id order among
    /// themselves. A push of one batch keeps id order, as before batches existed.
    static func groupedByType(_ rows: [LocalRecord], schema: Schema) -> [EntityID] {
        var rank = [Int](repeating: -1, count: schema.namespaceIDs.count)
        var next = 0
        var progress = true
        while progress {
            progress = false
            for n in schema.namespaceIDs where rank[Int(n.raw)] < 0 {
                let ready = schema.links(of: n).allSatisfy { l in
                    let t = schema.target(of: l)
                    return t == n || rank[Int(t.raw)] >= 0
                }
                if ready { rank[Int(n.raw)] = next; next += 1; progress = true }
            }
        }
        for n in schema.namespaceIDs where rank[Int(n.raw)] < 0 { rank[Int(n.raw)] = next }
        return rows.map { (rank[Int($0.record.namespace.raw)], $0.entity) }.sorted { $0 < $1 }.map(\.1)
    }

    /// Sends the next batch of the running push: the next `batchSize` rows of `pushRemaining`
    /// that are still locally changed and not waiting for a conflict answer, as they are now
    /// (a row edited since the push began goes with its edit). Rows that need no push any more
    /// are skipped; if none is left the push is over.
    mutating func sendBatch(sync s: UInt32, first: Bool = false, out: inout ClientOutbox<PushPullUp>) {
        var ids: [EntityID] = []
        var taken = 0
        while taken < pushRemaining.count && ids.count < batchSize {
            let e = pushRemaining[taken]
            taken += 1
            guard let r = records[e], r.isLocallyChanged, !conflicts.contains(where: { $0.entity == e }) else { continue }
            ids.append(e)
        }
        pushRemaining.removeFirst(taken)
        let writes = queue.takeForSending(ids)
        var batch: [PushRecord] = []
        batch.reserveCapacity(ids.count)
        for (k, e) in ids.enumerated() {
            guard let r = records[e] else { continue }
            batch.append(PushRecord(entity: e, clientKey: r.clientKey, serverKey: r.serverKey, status: r.status,
                                    record: r.record, updatedAt: r.updatedAt, writes: writes[k], force: r.force))
        }
        if !first { pushBatch += 1 }
        pushed = batch
        if tracesNotes {
            let part = first && pushRemaining.isEmpty ? "" : " (batch \(pushBatch + 1); \(pushRemaining.count) rows wait for later batches)"
            out(.note("pushing \(batch.count) locally changed rows (full rows, record-level updatedAt)" + part))
        }
        persist(out: &out)
        out(.send(.push(sync: s, lastPulledAt: lastPulledAt ?? 0, records: batch, batch: pushBatch)))
        out(.setTimer(Self.requestTimer(s), afterMs: timeoutMs))
    }

    mutating func applyPushResults(_ results: [PushResult], out: inout ClientOutbox<PushPullUp>) {
        for res in results {
            let e = res.entity
            guard let p = pushed.first(where: { $0.entity == e }) else {
                out(.event(.invalidInput("push result for entity \(e.raw), which was not pushed")))
                continue
            }
            switch res.outcome {
            case .applied(let key), .unchanged(let key):
                for w in queue.succeed(p.writes, on: e) { out(.event(.writeConfirmed(w))) }
                guard var r = records[e] else { continue }
                // markLocalChangesAsSynced: only if the row did not change since it was pushed.
                if r.status == p.status && r.record == p.record && r.updatedAt == p.updatedAt {
                    if r.status == .deleted {
                        records[e] = nil
                        continue
                    }
                    r.status = .synced
                    r.changed = ColumnSet()
                    r.force = false
                }
                if key != 0 { r.serverKey = key }
                records[e] = r
            case .serverNewer(let s):
                // Seed 004 §5.1: server timestamp newer → server wins, auto-resolved without a
                // prompt ("auto safe"); the refused queue rows are removed and the user told, but
                // only of writes no earlier push may have applied (see `tell`).
                let local = records[e]?.updatedAt
                records[e] = PushPullMerge.apply(remote: s, to: nil, schema: schema).map { var x = $0; x.clientKey = records[e]?.clientKey; return x }
                tell(queue.discard(on: e), "entity \(e.raw): the server's row is newer (@\(s.updatedAt) > @\(local.map(String.init) ?? "?")): server wins without a prompt (seed 004 §5.1)", out: &out)
            case .conflict(let s):
                // Seed 004 §5.1: equal timestamps, different data → the user chooses.
                queue.markPending(on: e)
                if let i = conflicts.firstIndex(where: { $0.entity == e }) {
                    conflicts[i].server = s
                } else {
                    let cid = ConflictID(nextConflict)
                    nextConflict &+= 1
                    conflicts.append(OpenConflict(id: cid, entity: e, server: s))
                    if tracesNotes { out(.note("entity \(e.raw): equal updatedAt @\(s.updatedAt) with different data: the user chooses (seed 004 §5.1)")) }
                    out(.event(.conflictRaised(cid, e)))
                }
            case .gone:
                records[e] = nil
                conflicts.removeAll { $0.entity == e }
                tell(queue.discard(on: e), "entity \(e.raw) is deleted on the server: the pushed row cannot bring it back", out: &out)
            }
        }
        // Rows the answer did not mention (malformed answer) wait for the next sync.
        queue.markFailed("no result")
        persist(out: &out)
        refreshYields(out: &out)
    }

    /// Seed 004 §5.2 `detectConflict` while merging a pull (`mergeRecords`), for a locally
    /// changed row: server `updatedAt` newer → the server's row replaces it without a prompt
    /// ("auto safe", §5.1; the dropped writes are told as `tell` allows); local newer → the local row is kept whole and pushed by the next sync;
    /// equal with different data → stored for the user (`conflictRaised`); equal and the same
    /// data → nothing to do (the row is pushed again and the server answers "unchanged").
    mutating func mergeDetectingConflict(local l: LocalRecord, remote r: RemoteRecord, out: inout ClientOutbox<PushPullUp>) {
        let e = r.entity
        if r.updatedAt > l.updatedAt || l.record.namespace != r.record.namespace {
            records[e] = PushPullMerge.apply(remote: r, to: nil, schema: schema).map { var x = $0; x.clientKey = l.clientKey; return x }
            tell(queue.discard(on: e), "entity \(e.raw): pulled row is newer (@\(r.updatedAt) > @\(l.updatedAt)): server wins without a prompt (seed 004 §5.1)", out: &out)
        } else if r.updatedAt < l.updatedAt {
            if tracesNotes { out(.note("entity \(e.raw): local row is newer (@\(l.updatedAt) > @\(r.updatedAt)): kept for the next push (seed 004 §5.1)")) }
        } else if l.status == .deleted || l.record != r.record {
            var x = l
            x.serverKey = r.serverKey
            records[e] = x
            queue.markPending(on: e)
            let cid = ConflictID(nextConflict)
            nextConflict &+= 1
            conflicts.append(OpenConflict(id: cid, entity: e, server: r))
            if tracesNotes { out(.note("entity \(e.raw): pulled row has the local updatedAt @\(r.updatedAt) with different data: stored for the user (seed 004 §5.2 detectConflict)")) }
            out(.event(.conflictRaised(cid, e)))
        }
    }

    // MARK: - User commands

    mutating func user(_ cmd: UserCommand, now: Int64, out: inout ClientOutbox<PushPullUp>) {
        switch cmd {
        case .write(let w):
            write(w, now: now, out: &out)
        case .subscribe(let s, let q):
            // A query another subscription has already shows its group's result: the query over
            // the view as it is (every change of the view is brought into every group at once).
            let g = subs.subscribe(s, to: q, schema: schema)
            if subs.groups[g].result == nil { subs.groups[g].result = q.evaluate(view) }
            subs.markShown(s)
            out(.event(.subscriptionYielded(s, fromCache: lastPulledAt == nil)))
        case .unsubscribe(let s):
            subs.unsubscribe(s)
        case .queryOnce(let r, _):
            // The local database always answers; offline, seed 000's contract (the offline
            // error) is kept instead, with the local rows offered as a stale result.
            if online {
                out(.event(.queryOnceResult(r)))
            } else {
                out(.event(.queryOnceFailed(r, offline: true, hasStaleResult: true)))
            }
        case .resolveConflict(let cid, let choice):
            resolve(cid, choice, now: now, out: &out)
        case .forceSync(.keepServer):
            // Seed 004 §3.1 force from server: the next sync skips the push and replaces the DB.
            forceFromServerRequested = true
            if phase != .idle { abortSync("force sync from server", out: &out) }
            if online { startSync(now: now, out: &out) } else { out(.event(.notice("force sync from server will run when online"))) }
        case .syncNow:
            // Seed 004 §2.2 manual "sync now": `syncAll` checks the network first; offline,
            // operations stay queued and the offline indicator shows. One sync at a time: a tap
            // during a running sync starts nothing more.
            if !online {
                out(.event(.notice("offline: the sync will run when the network returns")))
            } else if phase != .idle {
                if tracesNotes { out(.note("sync now: a sync is already running")) }
            } else {
                startSync(now: now, out: &out)
            }
        case .forceSync(.keepLocal):
            // Seed 004 §3.2 force push: every locally changed row overrides the server.
            for e in records.changedIDs { _ = records.modify(e) { $0.force = true } }
            conflicts.removeAll()
            persist(out: &out)
            if phase == .idle { startSync(now: now, out: &out) }
            if !online { out(.event(.notice("force push will run when online"))) }
        case .forceSync(.merge):
            out(.event(.invalidInput("seed 004 has no merging force sync: \(cmd)")))
        case .dropOldestWrite:
            out(.event(.invalidInput("seed 004's queue is not pruned by the user: \(cmd)")))
        case .switchTenant, .logout:
            // `.databasePerTenant` (seed 004 §1.1): the simulator opens the tenant's database.
            out(.event(.invalidInput("seed 004 opens one database per tenant; the harness switches databases: \(cmd)")))
        }
    }

    mutating func write(_ w: UserWrite, now: Int64, out: inout ClientOutbox<PushPullUp>) {
        if queue.isFull(cap: queueCap) {
            out(.event(.writeRejected(w.id, .queueFull)))
            return
        }
        // Applied in place with an undo list (all or nothing), not on a copy of the database.
        // A step that fails changes nothing (`applyLocal` checks before it writes), so a write of
        // one step keeps no undo list (a copy of the row it changes).
        var undo: [(EntityID, LocalRecord?)] = []
        var ops: [(EntityID, OperationKind)] = []
        let undoes = w.ops.count > 1
        for op in w.ops {
            let key = random.next()
            if undoes { undo.append((op.entity, records[op.entity])) }
            if let err = Self.applyLocal(op, now: now, records: &records, view: view, randomBits: key, schema: schema) {
                for (e, r) in undo.reversed() { records[e] = r }
                out(.event(.writeRejected(w.id, .invalid(err))))
                return
            }
            ops.append((op.entity, Self.kind(op)))
        }
        for (e, k) in ops { queue.enqueue(write: w.id, entity: e, kind: k) }
        persist(out: &out)
        refreshYields(out: &out)
        if online && phase == .idle { out(.setTimer(Self.soonTimer, afterMs: Self.afterMutationMs)) }
    }

    static func kind(_ op: Op) -> OperationKind {
        switch op {
        case .create: return .insert
        case .delete: return .delete
        default: return .update
        }
    }

    /// Applies one user step to the local database (WatermelonDB `create` / `update` /
    /// `markAsDeleted`). Returns an error text instead of applying an invalid step.
    static func applyLocal(_ op: Op, now: Int64, records: inout PushPullTable, view: EntityStore,
                           randomBits: UInt64, schema: Schema) -> String? {
        let e = op.entity
        // The row's status and namespace are checked in place; the row is copied out (to be
        // changed and set back) only when the step applies to it.
        func live(_ ns: NamespaceID) -> (LocalRecord?, String) {
            guard let have = records.liveNamespace(e) else { return (nil, "\(EntityRef(e, ns)) is not in the local database") }
            guard have == ns else { return (nil, "\(EntityRef(e, ns)) is a \(have.singular)") }
            return (records[e], "")
        }
        switch op {
        case .create(_, let ns, let a):
            if records.has(e) { return "\(EntityRef(e, ns)) already exists" }
            if let err = EntityStore.validate(a, ns, schema: schema) { return err.description }
            var rec = EntityRecord(namespace: ns, schema: schema)
            for x in a { rec[x.field] = x.value }
            // Seed 004 §6.4: a time-ordered client id (UUID v7: milliseconds, then random bits).
            let key = UInt64(bitPattern: now) << 22 | (randomBits & 0x3F_FFFF)
            records[e] = LocalRecord(entity: e, clientKey: key, serverKey: nil, record: rec, status: .created,
                                     changed: ColumnSet.all(of: rec, schema: schema), updatedAt: now)
        case .update(_, let ns, let a):
            let (found, err) = live(ns)
            guard var r = found else { return err }
            if let err = EntityStore.validate(a, ns, schema: schema) { return err.description }
            for x in a where r.record[x.field] != x.value {
                r.record[x.field] = x.value
                r.changed.insert(x.field)
            }
            touch(&r, now)
            records[e] = r
        case .delete(_, let ns):
            let (found, err) = live(ns)
            guard var r = found else { return err }
            r.status = .deleted
            r.updatedAt = now
            records[e] = r
        case .link(_, let l, let t):
            guard schema.contains(l) else { return "link \(l.raw) is not in the schema" }
            let (found, err) = live(schema.source(of: l))
            guard var r = found else { return err }
            guard view.namespace(of: t) == schema.target(of: l) else { return "link target \(EntityRef(t, schema.target(of: l))) is not in the local database" }
            if r.record.setLink(l, to: t, many: schema.isMany(l)) { r.changed.insert(l) }
            touch(&r, now)
            records[e] = r
        case .unlink(_, let l, let t):
            guard schema.contains(l) else { return "link \(l.raw) is not in the schema" }
            let (found, err) = live(schema.source(of: l))
            guard var r = found else { return err }
            if r.record.clearLink(l, from: t) { r.changed.insert(l) }
            touch(&r, now)
            records[e] = r
        }
        return nil
    }

    /// Every local update stamps `updatedAt` with the client clock and makes a synced row
    /// `updated` (seed 004 §6.2; WatermelonDB `setRawColumnChange`).
    static func touch(_ r: inout LocalRecord, _ now: Int64) {
        if r.status == .synced { r.status = .updated }
        r.updatedAt = now
    }

    mutating func resolve(_ cid: ConflictID, _ choice: ConflictChoice, now: Int64, out: inout ClientOutbox<PushPullUp>) {
        guard let i = conflicts.firstIndex(where: { $0.id == cid }) else {
            out(.event(.notice("\(cid) no longer applies")))
            return
        }
        if choice == .merge {
            // Not modelled (seed 004 §5.3's merged data is the pushPull model's to define): the
            // prompt stays open and the answer is reported as invalid input.
            out(.event(.invalidInput("pushPull offers no merge for \(cid)")))
            return
        }
        let c = conflicts.remove(at: i)
        switch choice {
        case .keepLocal:
            // Seed 004 resolveConflict('local'): push the local row over the server's.
            records[c.entity]?.force = true
            persist(out: &out)
            if phase == .idle { startSync(now: now, out: &out) }
        case .keepServer:
            // Seed 004 resolveConflict('server'): take the server's row; the local change is dropped.
            let key = records[c.entity]?.clientKey
            records[c.entity] = PushPullMerge.apply(remote: c.server, to: nil, schema: schema).map { var x = $0; x.clientKey = key; return x }
            tell(queue.discard(on: c.entity), "\(cid): the user kept the server's row", out: &out)
            persist(out: &out)
            refreshYields(out: &out)
        case .merge:
            break
        }
    }

    // MARK: - Observation

    mutating func persist(out: inout ClientOutbox<PushPullUp>) {
        if persistence { out(.persist) }
    }

    /// The UI's view of the database: live rows; links to rows it does not have are hidden.
    ///
    /// Patched, not rebuilt: only the rows changed since the last patch are recomputed, plus the
    /// rows linking to a row that appeared, went, or changed namespace (their visible links
    /// change). Returns the namespaces whose visible rows changed, and appends to `touched` the
    /// entities whose visible row changed (what a subscription's result is patched from).
    mutating func patchView(touched: inout [EntityID]) -> NamespaceSet {
        var changed = NamespaceSet()
        var dirty = records.takeDirty()
        defer { records.recycle(&dirty) }
        if dirty.isEmpty { return changed }
        if view.records.isEmpty { return buildView(dirty, touched: &touched) }
        var todo = dirty
        for e in dirty where view.namespace(of: e) != liveNamespace(e) {
            todo.append(contentsOf: records.referrers(of: e))
        }
        // A row listed again (a referrer that changed too, or of two rows) would be recomputed
        // to the record the view already took from it: each is done once.
        var seen: [Bool] = []
        if todo.count > dirty.count { seen = [Bool](repeating: false, count: records.isDirty.count) }
        for e in todo {
            if !seen.isEmpty {
                if seen[Int(e.raw)] { continue }
                seen[Int(e.raw)] = true
            }
            let new = visibleRecord(e)
            let oldNS = view.namespace(of: e)
            if oldNS == nil && new == nil { continue }
            // Compared in place, through a pointer to the record (`OptionalPayload`: `view[e]`,
            // and `$0[i]!` too, copied the record out to compare it).
            if let n = new, oldNS == n.namespace,
               view.records.withUnsafeBufferPointer({ OptionalPayload.read($0, Int(e.raw)) { $0.pointee == n } }) { continue }
            if let o = oldNS { changed.insert(o) }
            if let n = new { changed.insert(n.namespace) }
            view[e] = new
            touched.append(e)
        }
        return changed
    }

    /// `patchView` into an empty view (a restart without persistence, or a force from server, the
    /// first pull bringing every row): the view built in one pass over the changed rows instead
    /// of growing it row by row, and the rows linking to a row that appeared not visited again
    /// (a row is made visible from the table as it is now: a second visit would find it done).
    /// The same view, `touched` and namespaces as row by row: every visible row is touched, in
    /// the order the rows changed.
    mutating func buildView(_ dirty: [EntityID], touched: inout [EntityID]) -> NamespaceSet {
        var changed = NamespaceSet()
        var top = -1
        for e in dirty { top = max(top, Int(e.raw)) }
        var slots = [EntityRecord?](repeating: nil, count: top + 1)
        for e in dirty {
            guard let n = visibleRecord(e) else { continue }
            changed.insert(n.namespace)
            slots[Int(e.raw)] = n
            touched.append(e)
        }
        var live = slots.count
        while live > 0 && slots[live - 1]?.namespace == nil { live -= 1 }
        slots.removeSubrange(live...)
        view = EntityStore(slots: slots)
        return changed
    }

    /// The namespace of `e`'s row if the UI shows it (a live row).
    @inline(__always) func liveNamespace(_ e: EntityID) -> NamespaceID? { records.liveNamespace(e) }

    /// `e`'s row as the UI shows it: live rows only, links to rows it does not show hidden.
    func visibleRecord(_ e: EntityID) -> EntityRecord? {
        guard let r = records.liveRecord(e) else { return nil }
        var hides = false
        for l in schema.links(of: r.namespace) where !hides {
            let ns = schema.target(of: l)
            r.forEachTarget(of: l) { t in if liveNamespace(t) != ns { hides = true } }
        }
        guard hides else { return r }
        var r2 = r
        for l in schema.links(of: r.namespace) {
            let ns = schema.target(of: l)
            r2.filterLink(l) { liveNamespace($0) == ns }
        }
        return r2
    }

    /// Subscriptions show their query over the local database and yield when it changes.
    /// A query whose namespaces (its own and the linked one) saw no visible change, or that none
    /// of the changed rows can affect (`Query.mayChange`), keeps its result; the others are
    /// patched where the rows changed (`ViewPatch`, with the table's reverse link index), and
    /// evaluated over the whole view only when that cannot be done. Evaluating every affected
    /// subscription made the cost of a write grow with the database. Each distinct query is
    /// brought up to date once (`SubscriptionGroups`): its subscriptions share the result, and
    /// each of them yields when it changed, in id order.
    ///
    /// The result is patched in place: it is taken out of its group first, so its buffers are
    /// held once (the monitor keeps its own copy of what was shown, `ShownEntries`, and reads the
    /// client's result only while it judges a yield) and a patch writes into them instead of
    /// copying the whole result. (A second entries buffer kept one patch behind, `ResultSpare`,
    /// did this while the monitor still held the shown result; bringing it up to date cost more
    /// than the patch itself.)
    mutating func refreshYields(out: inout ClientOutbox<PushPullUp>) {
        var touched: [EntityID] = []
        let changed = patchView(touched: &touched)
        if changed.isEmpty { return }
        // Only the reverse link lists are captured: a closure over the whole table copied it
        // (a reference count per array it owns) at every call.
        let incoming = records.incoming
        for g in subs.groups.indices {
            subs.groups[g].changed = false
            if subs.groups[g].members == 0 || subs.groups[g].reads.isDisjoint(with: changed) { continue }
            // Moved out of its group, not copied (see `ReferenceClient.yieldChanged`): patched
            // in place; the query is read where it lies.
            var work: QueryResult?
            swap(&work, &subs.groups[g].result)
            if work != nil {
                // `work` is the query over the view before `touched` changed (every change of
                // the view goes through `patchView`, and every patch through here).
                if !subs.groups[g].query.mayChange(work!, touched: touched, in: view, schema: schema) {
                    swap(&work, &subs.groups[g].result)
                    continue
                }
                let patched = ViewPatch.patch(subs.groups[g].query, &work!, touched: touched, in: view, schema: schema,
                                              referrers: { Int($0.raw) < incoming.count ? incoming[Int($0.raw)] : [] })
                // Patched, unchanged, or not patched (`work` untouched): it is the result to keep.
                swap(&work, &subs.groups[g].result)
                subs.groups[g].changed = patched == true
                if patched != nil { continue }
            }
            if let r = subs.groups[g].query.evaluate(view, unlessEqualTo: subs.groups[g].result) {
                subs.groups[g].result = r
                subs.groups[g].changed = true
            }
        }
        let fromCache = lastPulledAt == nil
        subs.takeYields { out(.event(.subscriptionYielded($0, fromCache: fromCache))) }
    }
}
