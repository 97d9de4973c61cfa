/// The `reference` client's replica as it persists it: a base table and the entities
/// replicated since, in order (a `SharedAppendLog`, so the persisted copy and the client's share
/// it: an append after a persist copies nothing; chunks of 32 copied the last chunk).
///
/// Why: with persistence on, the client persists after most inputs. A persisted copy of the
/// replica itself shares the replica's storage, so the next reply that changed the replica
/// copied the whole table (a reference count per register array, for every entity): the cost of
/// a reply grew with the data. A persisted log shares the base, which the client never changes,
/// and the log, which it only appends to; the client takes a new base only once the log is as
/// long as half the table, so the copies cost O(1) per replicated entity on average.
///
/// The replica it stands for is `table`: the base with every logged entity put in order, which
/// is exactly how the client changed its replica (it changes it only by `put`).
public struct ReferenceReplicaLog: Sendable, Hashable {
    /// The log is never rebased shorter than this.
    static let chunk = 32
    var base: ReferenceTable
    /// Entities logged since the base, in order.
    var log = SharedAppendLog<EntityChange>()
    /// Entities logged since the base.
    var count: Int { log.count }
    let schema: Schema

    init(base: ReferenceTable, schema: Schema) {
        self.base = base
        self.schema = schema
    }

    /// The replica: the base with every logged entity put, in order.
    public var table: ReferenceTable {
        var t = base
        log.forEach { x in t.put(x.id, x.state, schema: schema) }
        return t
    }

    /// Notes that the replica put `change`.
    mutating func append(_ change: EntityChange) {
        log.append(change)
    }

    /// Starts again from `replica` when the log has grown as long as half of it.
    mutating func rebaseIfLong(_ replica: ReferenceTable) {
        guard count > Self.chunk && count * 2 > replica.states.count else { return }
        base = replica
        log.removeAll()
    }

    /// Equal when the replicas they stand for are (however they are logged).
    public static func == (a: ReferenceReplicaLog, b: ReferenceReplicaLog) -> Bool { a.table == b.table }
    public func hash(into h: inout Hasher) { h.combine(table) }
}
