/// The local database row of the `pushPull` strategy: WatermelonDB's raw record with its sync
/// columns `_status` and `_changed`, plus seed 004's record-level `updatedAt` and id mapping.

/// WatermelonDB's `_status` column.
public enum RecordStatus: String, Hashable, Sendable, CustomStringConvertible {
    case synced, created, updated, deleted
    public var description: String { rawValue }
}

/// WatermelonDB's `_changed` column: the columns changed locally since the last sync, as a bit set
/// (bit = field id for fields, `Schema.fieldCount` + link id for links), so no string or hash
/// order reaches an outcome.
public struct ColumnSet: Hashable, Sendable, CustomStringConvertible {
    public private(set) var bits: UInt32 = 0
    public init() {}

    public static func field(_ f: FieldID) -> UInt32 { 1 << UInt32(f.raw) }
    public static func link(_ l: LinkID) -> UInt32 { 1 << UInt32(Schema.fieldCount + Int(l.raw)) }

    public var isEmpty: Bool { bits == 0 }
    public func contains(_ f: FieldID) -> Bool { bits & Self.field(f) != 0 }
    public func contains(_ l: LinkID) -> Bool { bits & Self.link(l) != 0 }
    public mutating func insert(_ f: FieldID) { bits |= Self.field(f) }
    public mutating func insert(_ l: LinkID) { bits |= Self.link(l) }

    /// Every column of a namespace that is set in `record` (a local create changes them all).
    public static func all(of record: EntityRecord) -> ColumnSet {
        var c = ColumnSet()
        for f in record.namespace.fields where record[f] != nil { c.insert(f) }
        for l in record.namespace.links where record[l] != nil { c.insert(l) }
        return c
    }

    public var description: String {
        var names: [String] = []
        for i in 0..<Schema.fieldCount where bits & (1 << UInt32(i)) != 0 { names.append(Schema.fieldNames[i]) }
        for i in 0..<Schema.linkCount where bits & (1 << UInt32(Schema.fieldCount + i)) != 0 { names.append(Schema.linkNames[i]) }
        return names.joined(separator: ",")
    }
}

/// One row of the client's local database.
public struct LocalRecord: Hashable, Sendable {
    /// The schedule's logical id: what the user and every oracle call this entity.
    public var entity: EntityID
    /// The time-ordered id this client generated when it created the record (seed 004 §6.4,
    /// UUID v7-like); nil for records that arrived by pull.
    public var clientKey: UInt64?
    /// The id the server assigned (seed 004 §6.1 "Server ID mapping"); nil until the server
    /// confirmed or sent the record.
    public var serverKey: UInt64?
    public var record: EntityRecord
    public var status: RecordStatus
    public var changed: ColumnSet
    /// Seed 004 §6.2: `updatedAt = Date.now()` on every local change, i.e. the client clock (skew
    /// included); for records from the server, the server's value.
    public var updatedAt: Int64
    /// The user chose "keep local" for this record (conflict prompt or force push): the next push
    /// asks the server to skip its checks for it (seed 004 §3.2, §5.3).
    public var force: Bool = false

    public var isLocallyChanged: Bool { status != .synced }
}

/// WatermelonDB `resolveConflict` (src/sync/impl/helpers.js) as applied by `applyRemote.js`: a
/// remote version of a row this client holds.
///  - a local tombstone ignores remote updates;
///  - a synced row takes the remote row as is;
///  - a locally changed row takes the remote values except the locally changed columns, and
///    stays unsynced (its status, `_changed` and local `updatedAt` are kept).
enum PushPullMerge {
    static func apply(remote: RemoteRecord, to local: LocalRecord?) -> LocalRecord? {
        guard var l = local else {
            return LocalRecord(entity: remote.entity, clientKey: nil, serverKey: remote.serverKey, record: remote.record,
                               status: .synced, changed: ColumnSet(), updatedAt: remote.updatedAt)
        }
        if l.status == .deleted { return l }
        // A row of another namespace under the same id is not this row: the server's wins.
        if l.status == .synced || l.record.namespace != remote.record.namespace {
            return LocalRecord(entity: remote.entity, clientKey: l.clientKey, serverKey: remote.serverKey, record: remote.record,
                               status: .synced, changed: ColumnSet(), updatedAt: remote.updatedAt)
        }
        var merged = remote.record
        for f in merged.namespace.fields where l.changed.contains(f) { merged[f] = l.record[f] }
        for k in merged.namespace.links where l.changed.contains(k) { merged[k] = l.record[k] }
        l.record = merged
        l.serverKey = remote.serverKey
        return l
    }
}
