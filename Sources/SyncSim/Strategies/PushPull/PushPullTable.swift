/// The `pushPull` client's local database as a dense table indexed by `EntityID` (entity ids are
/// small: the schedule's), with what the sync loop and the UI view need kept up to date as rows
/// change, so that no step scans or hashes the whole database:
///  - the ids of locally changed rows in ascending order (the push, "anything left to sync?");
///  - which rows link to each entity (the UI hides links to rows it does not have, so a row
///    appearing or going changes the visible links of exactly those rows);
///  - the entities changed since the UI view was last brought up to date.
///
/// Iteration is always in id order: no hash order reaches an outcome.
///
/// The rows are kept in chunks of `Rows.chunk` slots (`Rows`). What the client persists
/// (`PushPullClient.Durable`) is `Persisted`: a base (a copy of the rows, sharing every chunk)
/// and a log of the rows set since (`SharedAppendLog`, which the persisted copy shares too).
/// With persistence on, a client persists after most events: a copy of every row each time made
/// the cost of an event grow with the database, and a copy of the chunks alone still cost the
/// next change a copy of its chunk (32 rows, a retain per array each owns) and of the list of
/// chunks. Logged, a change after a persist costs an append, and a chunk is copied at most once
/// per base: the base is taken again (sharing the rows as they are) once the log is as long as
/// half the table.
public struct PushPullTable: Sendable {
    /// The rows in chunks of `chunk` slots by entity id; the last chunk is full too (slots past
    /// the last row are empty).
    public struct Rows: Sendable {
        static let shift = 5
        static let chunk = 1 << shift
        var chunks: [[LocalRecord?]] = []

        /// The number of slots (a multiple of `chunk`).
        @inline(__always) var capacity: Int { chunks.count << Self.shift }

        /// Every row, in id order.
        public var all: [LocalRecord] {
            var out: [LocalRecord] = []
            for c in chunks { for r in c { if let r { out.append(r) } } }
            return out
        }

        /// Sets slot `e` to `row` (growing the chunks when it lies past them).
        mutating func put(_ e: EntityID, _ row: LocalRecord?) {
            let i = Int(e.raw)
            if i >= capacity {
                if row == nil { return }
                let more = (i >> Self.shift) + 1 - chunks.count
                chunks.append(contentsOf: repeatElement([LocalRecord?](repeating: nil, count: Self.chunk), count: more))
            }
            chunks[i >> Self.shift][i & (Self.chunk - 1)] = row
        }
    }

    /// What a row set since the base changed (the log of `Persisted`).
    public struct RowChange: Sendable {
        var entity: EntityID
        var row: LocalRecord?
    }

    /// The rows as persisted: `base` with every change in `log` set in order.
    public struct Persisted: Sendable {
        var base = Rows()
        var log = SharedAppendLog<RowChange>()

        /// The rows it stands for.
        var rows: Rows {
            var r = base
            log.forEach { c in r.put(c.entity, c.row) }
            return r
        }

        /// Every row, in id order.
        public var all: [LocalRecord] { rows.all }
    }

    var slots = Rows()
    /// Whether changes are logged into `persisted` (the client persists its rows).
    private(set) var logging = false
    /// The rows as the client persists them (kept only while `logging`).
    private(set) var persisted = Persisted()
    public private(set) var count = 0
    /// Locally changed rows (`_status` ≠ synced), ascending.
    public private(set) var changedIDs: [EntityID] = []
    /// `incoming[t]`: the rows whose record links to `t` (any link), ascending, each once.
    var incoming: [[EntityID]] = []
    /// Entities whose row changed since `takeDirty()`, in the order first changed.
    var dirty: [EntityID] = []
    var isDirty: [Bool] = []
    /// An empty list with capacity, for `takeDirty()` (see `recycle(_:)`).
    private var dirtySpare: [EntityID] = []

    public init() {}

    public init(_ rows: [LocalRecord]) {
        for r in rows { self[r.entity] = r }
    }

    /// The table of the rows `persisted` stands for (a restart restores the persisted rows),
    /// every row marked changed, in id order.
    init(_ persisted: Persisted) {
        var rows: [LocalRecord] = []
        for c in persisted.rows.chunks { for r in c { if let r { rows.append(r) } } }
        if !fill(rows) { for r in rows { self[r.entity] = r } }
    }

    /// Sets `rows` into an empty table, as setting them one by one in their order would (the
    /// same rows, indexes and changed list, the persisted rows taken as a new base), and returns
    /// true; returns false, changing nothing, unless the table is empty and `rows` ascend
    /// strictly by id. For a restart (the persisted rows) and a first pull after one without
    /// persistence (every row of the server): one by one, each row kept every index up to date
    /// on its own (its old row read, its links compared, the reverse link lists searched), the
    /// largest cost of a restart.
    ///
    /// Exactness: each row is new to its slot, so it is marked changed in order, counted, listed
    /// as locally changed when it is (ids ascend, so `changedIDs` is appended in order) and
    /// added to the reverse link list of each of its targets: ids ascend, so appending keeps
    /// each list ascending, and a target named twice by one row is the list's last entry.
    @discardableResult
    mutating func fill(_ rows: [LocalRecord]) -> Bool {
        guard count == 0, let last = rows.last else { return rows.isEmpty && count == 0 }
        var prev = -1
        for k in rows.indices {
            let i = Int(rows[k].entity.raw)
            if i <= prev { return false }
            prev = i
        }
        grow(to: Int(last.entity.raw))
        rows.withUnsafeBufferPointer { rb in
            for k in rb.indices {
                let e = rb[k].entity, i = Int(e.raw)
                markDirty(e)
                if rb[k].status != .synced { changedIDs.append(e) }
                Self.forEachTarget(rb[k].record) { t in
                    let j = Int(t.raw)
                    if j >= incoming.count { grow(to: j) }
                    if incoming[j].last != e { incoming[j].append(e) }
                }
                slots.chunks[i >> Rows.shift][i & (Rows.chunk - 1)] = rb[k]
            }
        }
        count = rows.count
        if logging { persisted = Persisted(base: slots) }
        return true
    }

    /// Logs every change from now on into `persisted`, from a base of the rows as they are.
    mutating func startLogging() {
        logging = true
        persisted = Persisted(base: slots)
    }

    @inline(__always) public subscript(e: EntityID) -> LocalRecord? {
        get {
            let i = Int(e.raw)
            return i < slots.capacity ? slots.chunks[i >> Rows.shift][i & (Rows.chunk - 1)] : nil
        }
        set { set(e, newValue) }
    }

    /// Reads slot `i` (below `slots.capacity`) in place, through the buffers' addressors:
    /// `slots.chunks[c][k]?.status` copied the whole row (an outlined copy and destroy of every
    /// array it owns) to read one field of it.
    @inline(__always) func peek<R>(_ i: Int, _ body: (UnsafeBufferPointer<LocalRecord?>, Int) -> R) -> R {
        slots.chunks.withUnsafeBufferPointer { cb in
            cb[i >> Rows.shift].withUnsafeBufferPointer { body($0, i & (Rows.chunk - 1)) }
        }
    }

    /// `e`'s row's record if the row is live (not a local tombstone), read in place: only the
    /// record is copied, not the row around it.
    @inline(__always) func liveRecord(_ e: EntityID) -> EntityRecord? {
        let i = Int(e.raw)
        guard i < slots.capacity else { return nil }
        return peek(i) { b, k in
            guard let st = b[k]?.status, st != .deleted else { return nil }
            return b[k]?.record
        }
    }

    /// Whether `e` has a row (read in place, without copying it: presence is told by the
    /// status, as `row != nil` picks `Optional`'s `==`, which copies the row to compare it).
    @inline(__always) func has(_ e: EntityID) -> Bool {
        let i = Int(e.raw)
        return i < slots.capacity && peek(i) { b, k in b[k]?.status != nil }
    }

    /// The row's status, read in place.
    @inline(__always) func status(of e: EntityID) -> RecordStatus? {
        let i = Int(e.raw)
        return i < slots.capacity ? peek(i) { b, k in b[k]?.status } : nil
    }

    /// The namespace of `e`'s row if it is live (not a local tombstone), read in place.
    @inline(__always) func liveNamespace(_ e: EntityID) -> NamespaceID? {
        let i = Int(e.raw)
        guard i < slots.capacity else { return nil }
        return peek(i) { b, k in
            guard let st = b[k]?.status, st != .deleted else { return nil }
            return b[k]?.record.namespace
        }
    }

    /// Every row, in id order.
    public var rows: [LocalRecord] { slots.all }

    /// Changes one field of a row in place (no copy of the rest of the table).
    @inline(__always) mutating func modify<T>(_ e: EntityID, _ body: (inout LocalRecord) -> T) -> T? {
        guard var r = self[e] else { return nil }
        let out = body(&r)
        set(e, r)
        return out
    }

    /// Makes room for slot `i` in every per-slot array.
    mutating func grow(to i: Int) {
        if i >= slots.capacity {
            let chunks = (i >> Rows.shift) + 1 - slots.chunks.count
            slots.chunks.append(contentsOf: repeatElement([LocalRecord?](repeating: nil, count: Rows.chunk), count: chunks))
        }
        if i >= incoming.count {
            // At least doubled: rows mostly arrive in id order (a first pull brings them all), and
            // growing by one slot per new row cost more than setting it. Slots past the last row
            // are empty (no referrer, not dirty), as they would be one by one.
            let grow = max(i - incoming.count + 1, incoming.count, Rows.chunk)
            incoming.append(contentsOf: repeatElement([], count: grow))
            isDirty.append(contentsOf: repeatElement(false, count: grow))
        }
    }

    /// The old row is read in place (its status, its links) and copied only when its links
    /// differ from the new row's: a row is a large value (a copy is a retain per array it owns),
    /// and every row a pull, a write or a push answer changes comes through here.
    mutating func set(_ e: EntityID, _ new: LocalRecord?) {
        setSlot(e, new)
        if logging {
            persisted.log.append(RowChange(entity: e, row: new))
            // A new base once the log is as long as half the table: each chunk is then copied at
            // most once per base (the first change to it after the base shares it), and a
            // restart replays at most half a table.
            if persisted.log.count >= Rows.chunk && persisted.log.count * 2 > slots.capacity {
                persisted = Persisted(base: slots)
            }
        }
    }

    private mutating func setSlot(_ e: EntityID, _ new: LocalRecord?) {
        let i = Int(e.raw)
        let newStatus = new?.status
        if i >= slots.capacity || i >= incoming.count {
            if newStatus == nil && i >= slots.capacity { return }
            grow(to: i)
        }
        let c = i >> Rows.shift, k = i & (Rows.chunk - 1)
        let oldStatus = peek(i) { b, k in b[k]?.status }
        if oldStatus == nil && newStatus == nil { return }
        markDirty(e)
        let wasChanged = oldStatus.map { $0 != .synced } ?? false
        let isChanged = newStatus.map { $0 != .synced } ?? false
        if wasChanged != isChanged {
            if isChanged { Self.insert(e, into: &changedIDs) } else { Self.remove(e, from: &changedIDs) }
        }
        count += (newStatus == nil ? 0 : 1) - (oldStatus == nil ? 0 : 1)
        // The reverse link index, updated only when the targets differ.
        if oldStatus != nil, let n = new, sameLinks(at: i, as: n) {
            slots.chunks[c][k] = new
            return
        }
        if oldStatus != nil, let o = slots.chunks[c][k]?.record {
            Self.forEachTarget(o) { t in if Int(t.raw) < incoming.count { Self.remove(e, from: &incoming[Int(t.raw)]) } }
        }
        slots.chunks[c][k] = new
        if let n = new?.record {
            Self.forEachTarget(n) { t in
                let j = Int(t.raw)
                if j >= incoming.count { grow(to: j) }
                Self.insert(e, into: &incoming[j])
            }
        }
    }

    /// Whether the row in slot `i` (which holds one) links to exactly what `n` links to, read in
    /// place (`OptionalPayload`: `b[k]?.record.links == …` copied the whole row out first).
    @inline(__always) private func sameLinks(at i: Int, as n: LocalRecord) -> Bool {
        peek(i) { b, k in
            OptionalPayload.read(b, k) { $0.pointee.record.links == n.record.links && $0.pointee.record.manyLinks == n.record.manyLinks }
        }
    }

    /// Makes the table hold exactly `rows`, set in order (a later row of an id wins): a force
    /// from server, which replaced the whole table by the server's rows. The rows the table
    /// holds that `rows` lacks are removed (in id order), then each of `rows` is set unless its
    /// slot already holds an equal row.
    ///
    /// Why: emptying the table and setting every row again released and copied every row,
    /// marked every row changed (so the view recomputed and compared each one) and rebuilt the
    /// reverse link index, on every force from server, though most rows come back as they were.
    /// The table ends the same, row for row, and so do its indexes (each a function of the rows).
    /// Only the rows that changed are marked: the view is brought up to date from the rows
    /// that changed as after any other change, so it ends the same too (a row marked changed
    /// that did not change left the view as it was).
    mutating func replaceAll(with rows: [LocalRecord]) {
        rows.withUnsafeBufferPointer { rb in
            replaceAll(rb.count, entity: { rb[$0].entity }, holds: { p, k in p.pointee == rb[k] }, row: { rb[$0] })
        }
    }

    /// `replaceAll(with:)` of the rows a force from server takes: each of `remote` as a synced
    /// row (`PushPullMerge.fresh`), built only for the slots that do not hold it already.
    ///
    /// Why: building every row first cost a retain per array of each (and a release when the
    /// equal row was dropped), and comparing two rows with `==` copied each side once (an
    /// outlined copy and destroy of every array both own), for every row of the server on every
    /// force: the largest cost per event of a long pushPull run. Here a slot's row is compared
    /// with the server's row field by field where both lie (`holdsServerRow`), which is the
    /// derived `==` of the row with `fresh(remote)`; the table ends the same, row for row, with
    /// the same rows marked changed in the same order.
    mutating func replaceAll(withServerRows remote: [RemoteRecord]) {
        remote.withUnsafeBufferPointer { rb in
            replaceAll(rb.count, entity: { rb[$0].entity }, holds: { p, k in Self.holdsServerRow(p, rb.baseAddress! + k) },
                       row: { PushPullMerge.fresh(rb[$0]) })
        }
    }

    /// Whether the row at `p` equals `PushPullMerge.fresh(r.pointee)`, read in place: the
    /// derived `==` of `LocalRecord` field by field (the cheap words first, the record last).
    @inline(__always)
    static func holdsServerRow(_ p: UnsafePointer<LocalRecord>, _ r: UnsafePointer<RemoteRecord>) -> Bool {
        p.pointee.entity == r.pointee.entity && p.pointee.clientKey == nil && p.pointee.serverKey == r.pointee.serverKey
            && p.pointee.status == .synced && p.pointee.changed == ColumnSet() && p.pointee.updatedAt == r.pointee.updatedAt
            && p.pointee.force == false && p.pointee.record == r.pointee.record
    }

    /// Makes the table hold exactly the `n` rows `row(k)` gives, set in order (see
    /// `replaceAll(with:)`): `entity(k)` is row `k`'s id, `holds(p, k)` whether the row at `p`
    /// (its slot's) equals row `k`, so a row is built only for a slot it changes.
    @inline(__always)
    private mutating func replaceAll(_ n: Int, entity: (Int) -> EntityID, holds: (UnsafePointer<LocalRecord>, Int) -> Bool,
                                     row: (Int) -> LocalRecord) {
        var wanted = [Bool](repeating: false, count: slots.capacity)
        for k in 0..<n where Int(entity(k).raw) < wanted.count { wanted[Int(entity(k).raw)] = true }
        for i in 0..<slots.capacity where !wanted[i] && has(EntityID(UInt32(i))) { set(EntityID(UInt32(i)), nil) }
        for k in 0..<n {
            let e = entity(k), i = Int(e.raw)
            // Read through a pointer to the row (`OptionalPayload`): `b[j]!` copied it out as
            // an optional first (a copy and a destroy of an optional row, for every row of
            // the table, on every force from server).
            if i < slots.capacity, peek(i, { b, j in
                b[j]?.status != nil && OptionalPayload.read(b, j) { holds($0, k) }
            }) { continue }
            set(e, row(k))
        }
    }

    /// Empties the table, marking every row that was there as changed (in id order, as removing
    /// them one by one would). Wholesale: removing row by row kept every index up to date on the
    /// way to empty, a thousand instructions per row.
    mutating func removeAll() {
        for i in 0..<slots.capacity where has(EntityID(UInt32(i))) { markDirty(EntityID(UInt32(i))) }
        slots = Rows()
        if logging { persisted = Persisted() }
        for j in incoming.indices where !incoming[j].isEmpty { incoming[j] = [] }
        changedIDs = []
        count = 0
    }

    @inline(__always) mutating func markDirty(_ e: EntityID) {
        let i = Int(e.raw)
        if i < isDirty.count && !isDirty[i] { isDirty[i] = true; dirty.append(e) }
    }

    /// The entities changed since the last call, and forgets them. The list is the table's own
    /// buffer, handed over: give it back with `recycle(_:)` once read, so the next list reuses it
    /// (returning a copy and emptying the original made a new buffer at every call).
    mutating func takeDirty() -> [EntityID] {
        for e in dirty { isDirty[Int(e.raw)] = false }
        var out = dirtySpare
        dirtySpare = []
        swap(&out, &dirty)
        return out
    }

    /// Takes back a list `takeDirty()` returned (emptied here), for its capacity.
    mutating func recycle(_ list: inout [EntityID]) {
        list.removeAll(keepingCapacity: true)
        if list.capacity > dirtySpare.capacity { swap(&list, &dirtySpare) }
    }

    /// The rows linking to `t`, ascending.
    func referrers(of t: EntityID) -> [EntityID] {
        Int(t.raw) < incoming.count ? incoming[Int(t.raw)] : []
    }

    /// Every target of every link of `r`.
    @inline(__always) static func forEachTarget(_ r: EntityRecord, _ body: (EntityID) -> Void) {
        for t in r.links { if let t { body(t) } }
        for m in r.manyLinks { for t in m { body(t) } }
    }

    static func insert(_ e: EntityID, into a: inout [EntityID]) {
        var lo = 0, hi = a.count
        while lo < hi { let m = (lo + hi) / 2; if a[m].raw < e.raw { lo = m + 1 } else { hi = m } }
        if lo < a.count && a[lo] == e { return }
        a.insert(e, at: lo)
    }

    static func remove(_ e: EntityID, from a: inout [EntityID]) {
        var lo = 0, hi = a.count
        while lo < hi { let m = (lo + hi) / 2; if a[m].raw < e.raw { lo = m + 1 } else { hi = m } }
        if lo < a.count && a[lo] == e { a.remove(at: lo) }
    }
}
