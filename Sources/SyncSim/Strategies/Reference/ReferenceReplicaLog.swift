/// The `reference` client's replica as it persists it: a base table and the entities
/// replicated since, in order (in chunks of 32).
///
/// Why: with persistence on, the client persists after most inputs. A persisted copy of the
/// replica itself shares the replica's storage, so the next reply that changed the replica
/// copied the whole table (a reference count per register array, for every entity): the cost of
/// a reply grew with the data. A persisted log shares the base, which the client never changes,
/// and every full chunk; the client takes a new base only once the log is as long as half the
/// table, so the copies cost O(1) per replicated entity on average.
///
/// The replica it stands for is `table`: the base with every logged entity put in order, which
/// is exactly how the client changed its replica (it changes it only by `put`).
public struct ReferenceReplicaLog: Sendable, Hashable {
    static let chunk = 32
    var base: ReferenceTable
    var chunks: [[EntityChange]] = []
    /// Entities logged since the base.
    var count = 0
    let schema: Schema

    init(base: ReferenceTable, schema: Schema) {
        self.base = base
        self.schema = schema
    }

    /// The replica: the base with every logged entity put, in order.
    public var table: ReferenceTable {
        var t = base
        for c in chunks { for x in c { t.put(x.id, x.state, schema: schema) } }
        return t
    }

    /// Notes that the replica put `change`.
    mutating func append(_ change: EntityChange) {
        if chunks.isEmpty || chunks[chunks.count - 1].count >= Self.chunk {
            var c: [EntityChange] = []
            c.reserveCapacity(Self.chunk)
            chunks.append(c)
        }
        chunks[chunks.count - 1].append(change)
        count += 1
    }

    /// Starts again from `replica` when the log has grown as long as half of it.
    mutating func rebaseIfLong(_ replica: ReferenceTable) {
        guard count > Self.chunk && count * 2 > replica.states.count else { return }
        base = replica
        chunks = []
        count = 0
    }

    /// Equal when the replicas they stand for are (however they are logged).
    public static func == (a: ReferenceReplicaLog, b: ReferenceReplicaLog) -> Bool { a.table == b.table }
    public func hash(into h: inout Hasher) { h.combine(table) }
}
