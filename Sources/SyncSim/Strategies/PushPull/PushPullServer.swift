/// The `pushPull` server: WatermelonDB's recommended backend (docs "Sync backend") with seed
/// 004's record-level timestamp arbitration and client-id → server-id mapping.
///
/// | rule | source |
/// |---|---|
/// | a change counter stamps every row change; `pull(since)` returns rows and deleted ids stamped after `since`, and the counter as `timestamp` | WatermelonDB docs "Sync backend" (`lastPulledAt`), semantics §2 |
/// | a push is refused whole if any pushed row (or its tombstone) changed after the push's `lastPulledAt` | WatermelonDB docs, semantics §4 |
/// | per row: same row and same `updatedAt` → nothing to do; server `updatedAt` newer → server wins; equal `updatedAt`, different data → conflict; else the **full** pushed row is written | seed 004 §5.1, §5.2 `detectConflict` |
/// | a forced row ("keep local", force push) skips both checks | seed 004 §3.2, §5.3 |
/// | a create of an id the server has (by client id) is an update; a delete of a missing id is ignored | WatermelonDB docs, semantics §4 |
/// | a new row gets a server id; the client id maps to it | seed 004 §6.1 |
/// | deletes leave a tombstone: no push or back-office update brings the entity back | semantics §1 (tombstones), seed 004 `deletedIds` |
/// | deleting an entity clears links to it (and re-stamps the linking rows so they are pulled) | `EntityStore` semantics |
/// | back-office writes apply directly with `updatedAt` = server time; a back-office delete of an id the server has not received yet leaves a tombstone too | seed 004 (server-side writer) |
///
/// | every row the server inserts is logged with its server id (`AppliedTransaction.rows`), so `noDuplicateRows` can count rows per entity from the log alone | seed 004 §6.1 `SyncResultItem.id` |
/// | `pushPullIdempotentCreates` = false (a modelled bug, off by default): a pushed create of a client id the server has inserts a second row | seed 004 testing matrix "no duplicates" (what it guards against) |
/// | a pull answers at most `pullPageSize` rows in stamp order; a fuller answer says `hasMore` with the last row's stamp as the cursor | seed 004 `syncPullSpace(limit)`, `SyncPullResponse.hasMore` |
///
/// No idempotency key: a row pushed again after a lost answer is written again if it differs at
/// all from the server's row, so its writes are applied twice (reported, not hidden).
public struct PushPullServer: ServerMachine {
    public typealias Up = PushPullUp
    public typealias Down = PushPullDown

    struct Meta: Hashable, Sendable {
        var serverKey: UInt64
        var clientKey: UInt64?
        var updatedAt: Int64
        var version: UInt64
    }

    public private(set) var data = EntityStore()
    var meta = PushPullEntityMap<Meta>()
    var tombstones = PushPullEntityMap<UInt64>()
    var byClientKey: [UInt64: EntityID] = [:]
    var byServerKey: [UInt64: EntityID] = [:]
    /// The change counter (`lastPulledAt` is one of its values).
    public private(set) var version: UInt64 = 0
    /// Every stamp in the order given, `(version, entity)`, versions ascending: a pull reads the
    /// stamps after its `lastPulledAt` instead of scanning every row (an entity's row or
    /// tombstone is current only at its latest stamp).
    var stamps: [(version: UInt64, entity: EntityID)] = []
    public private(set) var txID: UInt64 = 0
    var nextServerKey: UInt64 = 1

    /// The run's data model.
    let schema: Schema
    /// With `.pushThenPull` (seed 004's backend) a push is judged row by row only; WatermelonDB's
    /// backend (`.pullThenPush`) also refuses a whole push that missed a change.
    let order: PushPullOrder
    /// Rows (changed and deleted) per pull page (`StrategyOptions.pullPageSize`).
    let pageSize: Int
    /// A create pushed again for a client id the server has is the same row (see
    /// `StrategyOptions.pushPullIdempotentCreates`); false inserts a second row.
    let idempotentCreates: Bool
    /// Server rows inserted beyond an entity's first (only with `idempotentCreates` off): row id
    /// → entity. The logical entity keeps one record in `data` (clients and oracles know
    /// entities by their logical ids); the extra rows exist only here and in the log's
    /// `AppliedTransaction.rows`, which `noDuplicateRows` reads.
    public private(set) var duplicateRows: [(row: UInt64, entity: EntityID)] = []
    /// The log of the back-office write being applied (nil otherwise): what it changed, so that
    /// a refused one is undone in place (`rollBack`).
    var undo: AdminUndo?

    /// What a back-office write changed, as it was before: the store's slots, each entity's
    /// metadata and tombstone (in the order changed), the server keys it gave out, and the
    /// change counter, log length and next key.
    struct AdminUndo {
        var data = EntityStore.UndoLog()
        var meta: [(EntityID, Meta?)] = []
        var tombstones: [(EntityID, UInt64?)] = []
        var serverKeys: [UInt64] = []
        let stamps: Int
        let version: UInt64
        let nextServerKey: UInt64

        init(_ s: PushPullServer) {
            stamps = s.stamps.count
            version = s.version
            nextServerKey = s.nextServerKey
        }
    }

    public init(schema: Schema = .default, order: PushPullOrder = .pullThenPush, pageSize: Int = 100_000, idempotentCreates: Bool = true) {
        self.schema = schema
        self.order = order
        self.pageSize = max(1, pageSize)
        self.idempotentCreates = idempotentCreates
    }

    public mutating func handle(_ input: ServerInput<PushPullUp>, now: Int64, out: inout ServerOutbox<PushPullDown>) {
        switch input {
        case .clientConnected, .clientDisconnected, .timerFired:
            break
        case .adminWrite(let w):
            // Applied in place, undone if refused (all or nothing): applying it to a copy of the
            // server copied the whole store and change log on every back-office write.
            undo = AdminUndo(self)
            let err = applyAdmin(w.ops, now: now)
            let log = undo!
            undo = nil
            if let err {
                rollBack(log)
                out(.refused(origin: .admin, writes: [w.id], reason: err))
                return
            }
            txID += 1
            out(.applied(AppliedTransaction(txID: txID, origin: .admin, writes: w.id.raw == UInt32.max ? [] : [w.id], ops: w.ops)))
        case .received(let c, .pull(let sync, let since, let page)):
            out(.send(c, pull(sync: sync, since: since, page: page)))
        case .received(let c, .push(let sync, let lastPulledAt, let records, let batch)):
            push(c, sync: sync, lastPulledAt: lastPulledAt, records: records, batch: batch, out: &out)
        }
    }

    // MARK: - Pull

    /// Rows and tombstones stamped after `since` (every live row for nil), at most `pageSize`
    /// of them taken in stamp order, each kind in id order. A fuller answer says `hasMore` and
    /// carries as `timestamp` the stamp of its last row (the cursor): stamps are unique and
    /// ascending, so the next page, pulled from the cursor, starts exactly after it — nothing is
    /// skipped, and a row sent twice is one that changed again after its page (seed 004
    /// `syncPullSpace(limit)`, `hasMore`; the client pulls again until it is false).
    func pull(sync: UInt32, since: UInt64?, page: UInt32 = 0) -> PushPullDown {
        if since == nil, let all = pullEverything(sync: sync, page: page) { return all }
        return pullWalkingStamps(sync: sync, since: since, page: page)
    }

    /// `pull(sync:since:page:)` by a walk of the stamps after `since` (every stamp for nil).
    func pullWalkingStamps(sync: UInt32, since: UInt64?, page: UInt32 = 0) -> PushPullDown {
        var changes: [RemoteRecord] = []
        var deleted: [EntityID] = []
        var lo = 0, hi = stamps.count
        if let since {
            while lo < hi { let m = (lo + hi) / 2; if stamps[m].version <= since { lo = m + 1 } else { hi = m } }
        }
        var rows: [EntityID] = []
        var taken = 0
        var cursor = version
        var more = false
        for k in lo..<stamps.count {
            let (v, e) = stamps[k]
            let isRow = meta[e]?.version == v
            // A tombstone is news only to a client that may hold the row (an incremental pull).
            let isTomb = !isRow && since != nil && tombstones[e] == v
            guard isRow || isTomb else { continue }
            if taken == pageSize { more = true; break }
            taken += 1
            cursor = v
            if isRow { rows.append(e) } else { deleted.append(e) }
        }
        rows.sort()
        deleted.sort()
        for e in rows {
            guard let r = data[e], let m = meta[e] else { continue }
            changes.append(RemoteRecord(entity: e, serverKey: m.serverKey, record: r, updatedAt: m.updatedAt))
        }
        return .pulled(sync: sync, changes: changes, deleted: deleted, timestamp: more ? cursor : version, hasMore: more, page: page)
    }

    /// A pull from the beginning that fits one page: every live row, in id order, without the
    /// walk of every stamp ever given (the change log grows with the run, the rows only with
    /// the data; a client pulls from the beginning at first launch and after every restart
    /// without persistence). The same answer as the walk: each row with metadata has exactly
    /// one stamp equal to its version (every stamp takes a new version, and a row's version
    /// is set with its stamp), tombstones are left out of a pull from the beginning, and the
    /// page is not full, so nothing is held back and the timestamp is the counter. Nil when
    /// the rows do not fit one page (the walk then decides the page in stamp order).
    func pullEverything(sync: UInt32, page: UInt32) -> PushPullDown? {
        var rows: [EntityID] = []
        for i in meta.slots.indices where meta.slots[i] != nil {
            if rows.count == pageSize { return nil }
            rows.append(EntityID(UInt32(i)))
        }
        var changes: [RemoteRecord] = []
        changes.reserveCapacity(rows.count)
        for e in rows {
            guard let r = data[e], let m = meta[e] else { continue }
            changes.append(RemoteRecord(entity: e, serverKey: m.serverKey, record: r, updatedAt: m.updatedAt))
        }
        return .pulled(sync: sync, changes: changes, deleted: [], timestamp: version, hasMore: false, page: page)
    }

    func remote(_ e: EntityID) -> RemoteRecord? {
        guard let r = data[e], let m = meta[e] else { return nil }
        return RemoteRecord(entity: e, serverKey: m.serverKey, record: r, updatedAt: m.updatedAt)
    }

    // MARK: - Push

    mutating func push(_ c: ClientID, sync: UInt32, lastPulledAt: UInt64, records: [PushRecord], batch: UInt32 = 0, out: inout ServerOutbox<PushPullDown>) {
        let writes = PushPullUp.push(sync: sync, lastPulledAt: lastPulledAt, records: records).carriedWrites
        // WatermelonDB: refuse the whole push if a row changed after the client's last pull.
        for p in records where !p.force && order == .pullThenPush {
            let stamp = meta[p.entity]?.version ?? tombstones[p.entity] ?? 0
            if stamp > lastPulledAt {
                let why = "entity \(p.entity.raw) changed on the server after lastPulledAt \(lastPulledAt)"
                out(.refused(origin: .client(c), writes: writes, reason: why))
                out(.send(c, .pushRejected(sync: sync, reason: why)))
                return
            }
        }
        var results: [PushResult] = []
        // The applied rows' writes, in order, then each once (`firstOccurrences`: no hashing).
        var applied: [WriteID] = []
        var ops: [Op] = []
        var rows: [ServerRow] = []
        for p in records {
            let outcome = pushOne(p, ops: &ops, rows: &rows, out: &out)
            if case .applied = outcome { applied.append(contentsOf: p.writes) }
            results.append(PushResult(entity: p.entity, outcome: outcome))
        }
        let appliedWrites = PushPullUp.firstOccurrences(applied)
        linkRowsCreatedLater(records, results, ops: &ops)
        if !appliedWrites.isEmpty || !ops.isEmpty {
            txID += 1
            out(.applied(AppliedTransaction(txID: txID, origin: .client(c), writes: appliedWrites, ops: ops, rows: rows)))
        }
        out(.send(c, .pushed(sync: sync, results: results, batch: batch)))
    }

    /// Links a pushed row holds to rows created later in the same push. WatermelonDB's relations
    /// are plain id columns, so one push may name a row before the row itself arrives; the
    /// server applies rows in entity-id order and `normalized` drops a link whose target is not
    /// there yet, so once every row of the push is in, those links are set (found by the
    /// record-level oracle: a post linked to a profile created after it lost its author).
    mutating func linkRowsCreatedLater(_ records: [PushRecord], _ results: [PushResult], ops: inout [Op]) {
        for k in records.indices {
            let p = records[k]
            guard case .applied = results[k].outcome, p.status != .deleted, data.contains(p.entity) else { continue }
            for l in schema.links(of: p.record.namespace) {
                for t in p.record.targets(l) where t != p.entity && data[t]?.namespace == schema.target(of: l) {
                    guard data[p.entity]?.points(l, at: t) == false else { continue }
                    data[p.entity]!.setLink(l, to: t, many: schema.isMany(l))
                    ops.append(.link(p.entity, l, t))
                }
            }
        }
    }

    mutating func pushOne(_ p: PushRecord, ops: inout [Op], rows: inout [ServerRow], out: inout ServerOutbox<PushPullDown>) -> PushOutcome {
        let e = p.entity
        let ns = p.record.namespace
        // The id mapping (seed 004 §6.1): server id, else client id, else the logical id.
        let mapped = p.serverKey.flatMap { byServerKey[$0] } ?? p.clientKey.flatMap { byClientKey[$0] } ?? e
        if mapped != e {
            out(.invalidInput("push of entity \(e.raw) names ids of entity \(mapped.raw)"))
            return .gone
        }
        if let err = EntityStore.validate(assignments(p.record), ns, schema: schema) {
            out(.invalidInput("push of entity \(e.raw): \(err)"))
            return .gone
        }
        if tombstones[e] != nil {
            // Deleting what is deleted is a no-op that keeps the user's intent; anything else
            // would bring the entity back.
            return p.status == .deleted ? .applied(serverKey: 0) : .gone
        }
        guard let s = data[e], let m = meta[e] else {
            if p.status == .deleted {
                // Created and deleted before any push reached us: nothing to write; keep a
                // tombstone so a late duplicate of the create cannot bring it back.
                bump()
                tombstones[e] = version
                stamp(e)
                return .applied(serverKey: 0)
            }
            let key = nextServerKey
            nextServerKey += 1
            bump()
            let rec = normalized(p.record, self: e)
            data[e] = rec
            meta[e] = Meta(serverKey: key, clientKey: p.clientKey, updatedAt: p.updatedAt, version: version)
            stamp(e)
            byServerKey[key] = e
            if let ck = p.clientKey { byClientKey[ck] = e }
            rows.append(ServerRow(entity: e, row: key, clientKey: p.clientKey))
            ops.append(.create(e, ns, assignments(rec)))
            for l in schema.links(of: ns) { for t in rec.targets(l) { ops.append(.link(e, l, t)) } }
            return .applied(serverKey: key)
        }
        if s.namespace != ns {
            out(.invalidInput("push of entity \(e.raw) as a \(ns.singular), but it is a \(s.namespace.singular)"))
            return .gone
        }
        if !idempotentCreates && p.status == .created {
            // The modelled bug: the server runs an INSERT for every pushed `insert` operation,
            // so a create retried after a lost answer becomes a second row with its own id.
            let key = nextServerKey
            nextServerKey += 1
            byServerKey[key] = e
            duplicateRows.append((key, e))
            rows.append(ServerRow(entity: e, row: key, clientKey: p.clientKey))
            bump()
            data[e] = normalized(p.record, self: e)
            meta[e]!.updatedAt = p.updatedAt
            meta[e]!.version = version
            stamp(e)
            ops.append(.create(e, ns, assignments(data[e]!)))
            return .applied(serverKey: key)
        }
        if p.status != .deleted && normalized(p.record, self: e) == s && p.updatedAt == m.updatedAt {
            return .unchanged(serverKey: m.serverKey)
        }
        if !p.force {
            if m.updatedAt > p.updatedAt { return .serverNewer(remote(e)!) }
            if m.updatedAt == p.updatedAt { return .conflict(remote(e)!) }
        }
        if p.status == .deleted {
            delete(e)
            ops.append(.delete(e, ns))
            return .applied(serverKey: m.serverKey)
        }
        let rec = normalized(p.record, self: e)
        bump()
        data[e] = rec
        meta[e]!.updatedAt = p.updatedAt
        meta[e]!.version = version
        stamp(e)
        ops.append(.update(e, ns, assignments(rec)))
        for l in schema.links(of: ns) {
            let now = rec.targets(l), before = s.targets(l)
            if now == before { continue }
            if schema.isMany(l) {
                for t in before where !now.contains(t) { ops.append(.unlink(e, l, t)) }
                for t in now where !before.contains(t) { ops.append(.link(e, l, t)) }
            } else if let t = now.first { ops.append(.link(e, l, t)) } else if let old = before.first { ops.append(.unlink(e, l, old)) }
        }
        return .applied(serverKey: m.serverKey)
    }

    // MARK: - Back office

    /// Applies a back-office write's steps in turn; on the first error returns it, the steps
    /// before it applied (the caller, `handle`, undoes them through `undo`, which it set).
    mutating func applyAdmin(_ ops: [Op], now: Int64) -> String? {
        for op in ops {
            let e = op.entity
            if tombstones[e] != nil { return "entity \(e.raw) was deleted" }
            switch op {
            case .create(_, let ns, let a):
                if let err = applyData(.create(e, ns, a)) { return err.description }
                newMeta(e, now)
            case .update(_, let ns, let a):
                let existed = data.contains(e)
                if let err = applyData(.update(e, ns, a)) { return err.description }
                if existed { touch(e, now) } else { newMeta(e, now) }
            case .delete:
                // Deleting an id the server has not received yet still leaves a tombstone: a
                // later push of its create must not bring it into existence.
                if data.contains(e) { delete(e) } else { bump(); setTombstone(e, version); stamp(e) }
            case .link, .unlink:
                if let err = applyData(op) { return err.description }
                touch(e, now)
            }
        }
        return nil
    }

    /// `data.apply(op)` (upsert), logged in `undo` during a back-office write.
    mutating func applyData(_ op: Op) -> ApplyError? {
        if undo != nil { return data.apply(op, schema: schema, mode: .upsert, undo: &undo!.data) }
        return data.apply(op, schema: schema, mode: .upsert)
    }

    /// Saves `e`'s metadata in `undo` (during a back-office write) before it changes.
    @inline(__always) mutating func willChangeMeta(_ e: EntityID) {
        if undo != nil { undo!.meta.append((e, meta[e])) }
    }

    mutating func setTombstone(_ e: EntityID, _ v: UInt64) {
        if undo != nil { undo!.tombstones.append((e, tombstones[e])) }
        tombstones[e] = v
    }

    mutating func newMeta(_ e: EntityID, _ now: Int64) {
        let key = nextServerKey
        nextServerKey += 1
        bump()
        willChangeMeta(e)
        meta[e] = Meta(serverKey: key, clientKey: nil, updatedAt: now, version: version)
        stamp(e)
        byServerKey[key] = e
        if undo != nil { undo!.serverKeys.append(key) }
    }

    mutating func touch(_ e: EntityID, _ now: Int64) {
        bump()
        willChangeMeta(e)
        meta[e]?.updatedAt = now
        meta[e]?.version = version
        stamp(e)
    }

    /// Removes the entity, leaves a tombstone, and re-stamps the rows whose links it cleared.
    ///
    /// The rows linking to `e` are found in one pass that reads each record in place
    /// (`linkingRows`), and only they are changed: `EntityStore.referrers(to:via:)` once per link
    /// and the delete's own `removeReferences` each walked the whole store copying every record
    /// out (a retain and a release per array it owns), three passes per delete, which made a
    /// delete cost the size of the store several times over (a tenth of a long swarm run with
    /// deletes). The same store, undo log and stamps: see `linkingRows`.
    mutating func delete(_ e: EntityID) {
        let (referrers, linking) = linkingRows(e)
        if data.contains(e) {
            // `data.apply(.delete(e, …))`: the record goes, then each record that refers to it
            // (ascending) loses its links to it; under a back-office write each slot is logged
            // before it changes, `e` first, as `apply(_:undo:)` logs them.
            if undo != nil { data.set(e, nil, undo: &undo!.data) } else { data[e] = nil }
            for r in linking where r != e {
                var rec = data[r]!
                rec.removeLinks(to: e)
                if undo != nil { data.set(r, rec, undo: &undo!.data) } else { data[r] = rec }
            }
        } else {
            _ = applyData(.delete(e, NamespaceID(0)))
        }
        willChangeMeta(e)
        meta[e] = nil
        bump()
        setTombstone(e, version)
        stamp(e)
        for r in referrers.sorted() where meta[r] != nil {
            bump()
            willChangeMeta(r)
            meta[r]!.version = version
            stamp(r)
        }
    }

    /// The rows linking to `e`, from one pass over the store reading each record in place
    /// (`OptionalPayload`): `restamp` lists a row once per link of the schema that points at
    /// `e` (what `data.referrers(to: e, via: l)` for every link, sorted, listed), ascending;
    /// `refer` lists once each row that refers to `e` by any link (the rows the store's
    /// `removeReferences(to: e)` changes), ascending.
    func linkingRows(_ e: EntityID) -> (restamp: [EntityID], refer: [EntityID]) {
        var restamp: [EntityID] = [], refer: [EntityID] = []
        let links = schema.linkIDs
        data.records.withUnsafeBufferPointer { rb in
            for i in 0..<rb.count where rb[i]?.namespace != nil {
                OptionalPayload.read(rb, i) { p in
                    guard p.pointee.refers(to: e) else { return }
                    let id = EntityID(UInt32(i))
                    refer.append(id)
                    for l in links where p.pointee.points(l, at: e) { restamp.append(id) }
                }
            }
        }
        return (restamp, refer)
    }

    /// Puts back what a refused back-office write changed (`undo`'s log), in reverse order.
    mutating func rollBack(_ log: AdminUndo) {
        data.rollBack(log.data)
        for (e, m) in log.meta.reversed() { meta[e] = m }
        for (e, t) in log.tombstones.reversed() { tombstones[e] = t }
        for k in log.serverKeys { byServerKey[k] = nil }
        stamps.removeSubrange(log.stamps...)
        version = log.version
        nextServerKey = log.nextServerKey
    }

    mutating func bump() { version += 1 }

    /// Notes that `e`'s row or tombstone now carries the current version (see `stamps`).
    mutating func stamp(_ e: EntityID) { stamps.append((version, e)) }

    /// Links to entities the server does not have are dropped (the server keeps no dangling ids).
    func normalized(_ r: EntityRecord, self e: EntityID) -> EntityRecord {
        var r = r
        for l in schema.links(of: r.namespace) {
            r.filterLink(l) { t in t != e && data[t]?.namespace == schema.target(of: l) }
        }
        return r
    }

    /// The record's set fields as assignments, in field order. Built into a list reserved for
    /// every field of its namespace (`compactMap` grew it an element at a time: a reallocation
    /// or two per pushed row).
    func assignments(_ r: EntityRecord) -> [FieldAssignment] {
        let fields = schema.fields(of: r.namespace)
        var out: [FieldAssignment] = []
        out.reserveCapacity(fields.count)
        for f in fields { if let v = r[f] { out.append(FieldAssignment(f, v)) } }
        return out
    }
}
