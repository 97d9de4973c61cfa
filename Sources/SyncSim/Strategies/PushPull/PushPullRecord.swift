/// The local database row of the `pushPull` strategy: WatermelonDB's raw record with its sync
/// columns `_status` and `_changed`, plus seed 004's record-level `updatedAt` and id mapping.

/// WatermelonDB's `_status` column.
public enum RecordStatus: String, Hashable, Sendable, CustomStringConvertible {
    case synced, created, updated, deleted
    public var description: String { rawValue }
}

/// WatermelonDB's `_changed` column: the columns changed locally since the last sync, as bit sets
/// (field ids in two words, link ids in a third: `Schema.Limits` keeps ids below 128 and 32), so
/// no string or hash order reaches an outcome.
public struct ColumnSet: Hashable, Sendable, CustomStringConvertible {
    var fieldsLow: UInt64 = 0
    var fieldsHigh: UInt64 = 0
    var linkBits: UInt64 = 0
    public init() {}

    public var isEmpty: Bool { fieldsLow | fieldsHigh | linkBits == 0 }
    public func contains(_ f: FieldID) -> Bool {
        f.raw < 64 ? fieldsLow & (1 << UInt64(f.raw)) != 0 : fieldsHigh & (1 << UInt64(f.raw & 63)) != 0
    }
    public func contains(_ l: LinkID) -> Bool { l.raw < 64 && linkBits & (1 << UInt64(l.raw)) != 0 }
    public mutating func insert(_ f: FieldID) {
        if f.raw < 64 { fieldsLow |= 1 << UInt64(f.raw) } else { fieldsHigh |= 1 << UInt64(f.raw & 63) }
    }
    public mutating func insert(_ l: LinkID) { if l.raw < 64 { linkBits |= 1 << UInt64(l.raw) } }

    /// Every column of a namespace that is set in `record` (a local create changes them all).
    public static func all(of record: EntityRecord, schema: Schema) -> ColumnSet {
        var c = ColumnSet()
        for f in schema.fields(of: record.namespace) where record[f] != nil { c.insert(f) }
        for l in schema.links(of: record.namespace) where !record.targets(l).isEmpty { c.insert(l) }
        return c
    }

    /// `title,author`, named by `Schema.describing`.
    public var description: String {
        let s = Schema.describing
        var names: [String] = []
        for i in 0..<min(s.fieldCount, 128) where contains(FieldID(UInt8(i))) { names.append(s.name(of: FieldID(UInt8(i)))) }
        for i in 0..<min(s.linkCount, 64) where contains(LinkID(UInt8(i))) { names.append(s.name(of: LinkID(UInt8(i)))) }
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
    /// The row a remote version makes where the client has none: synced, as the server sent it.
    @inline(__always)
    static func fresh(_ remote: RemoteRecord) -> LocalRecord {
        LocalRecord(entity: remote.entity, clientKey: nil, serverKey: remote.serverKey, record: remote.record,
                    status: .synced, changed: ColumnSet(), updatedAt: remote.updatedAt)
    }

    static func apply(remote: RemoteRecord, to local: LocalRecord?, schema: Schema) -> LocalRecord? {
        guard var l = local else { return fresh(remote) }
        if l.status == .deleted { return l }
        // A row of another namespace under the same id is not this row: the server's wins.
        if l.status == .synced || l.record.namespace != remote.record.namespace {
            return LocalRecord(entity: remote.entity, clientKey: l.clientKey, serverKey: remote.serverKey, record: remote.record,
                               status: .synced, changed: ColumnSet(), updatedAt: remote.updatedAt)
        }
        var merged = remote.record
        for f in schema.fields(of: merged.namespace) where l.changed.contains(f) { merged[f] = l.record[f] }
        for k in schema.links(of: merged.namespace) where l.changed.contains(k) { merged.copyLink(k, from: l.record) }
        l.record = merged
        l.serverKey = remote.serverKey
        return l
    }
}
