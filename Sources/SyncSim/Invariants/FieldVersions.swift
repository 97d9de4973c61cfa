/// The values the server's data took for each (entity, field), in the order it took them: what
/// "older" and "newer" mean for the oracles that judge what a client showed (`monotonicReads`,
/// `noPhantomWrite`, `neverRevertOwnWrite`).
///
/// Read from the server's data after each applied transaction, not from the transaction's
/// steps: under a timestamp order a step that loses leaves the data unchanged and so makes no
/// version. A value can recur (written twice), so a shown value maps to a *range* of versions,
/// and the oracles only ever conclude what every version in the range agrees on.
struct FieldVersions: Sendable {
    /// One version: the position in the server's log of the transaction that produced it.
    struct Version: Sendable {
        var tx: Int32
        var value: FieldValue
    }

    /// Keyed by `Monitor.key(entity, field)`; only looked up, never iterated. A key never
    /// noted reads as no versions.
    private var table: KeyTable<[Version]>

    /// `stride`: the schema's field count (how `KeyTable` lays the keys out).
    init(stride: Int = 1) { table = KeyTable(stride: stride, blank: []) }

    /// Records the value the data holds for `key` after transaction `tx`, if it changed.
    mutating func note(_ key: UInt64, _ value: FieldValue, tx: Int32) {
        withUnsafePointer(to: value) { note(key, $0, tx: tx) }
    }

    /// `note(_:_:tx:)` for a value read where it lies: the last version is compared in place
    /// and the value copied only when it is a new version (the usual case, a value unchanged,
    /// then costs no copy, no reference counting and no uniqueness check of the list).
    mutating func note(_ key: UInt64, _ value: UnsafePointer<FieldValue>, tx: Int32) {
        let same = table.withValue(key) { vs in
            vs.withUnsafeBufferPointer { b in b.count > 0 && b[b.count - 1].value == value.pointee }
        }
        if same { return }
        table.modify(key) { $0.append(Version(tx: tx, value: value.pointee)) }
    }

    /// The values the data held for `key` at any moment between log positions `from` and
    /// `before`: the one current when transaction `from` began (the initial value if none) and
    /// those transactions `from ..< before` produced, in order.
    func held(_ key: UInt64, from: Int32, before: Int32, initial: FieldValue?) -> [FieldValue] {
        let vs = table[key]
        var out: [FieldValue] = []
        if let current = vs.last(where: { $0.tx < from })?.value ?? initial { out.append(current) }
        for v in vs where v.tx >= from && v.tx < before { out.append(v.value) }
        return out
    }

    /// Whether the server's data ever held a value other than `value` for `key` (after the
    /// initial data, which the caller checks).
    func holdsOther(than value: FieldValue, _ key: UInt64) -> Bool {
        table[key].contains { $0.value != value }
    }

    /// The oldest and newest version holding `value` (the initial data is version -1), or nil if
    /// the server's data never held it.
    ///
    /// The versions are read in place (a `for` over them copied each one, retaining a text
    /// value's storage): this runs for every value of every entry a yield shows as changed.
    func range(of value: FieldValue, _ key: UInt64, initial: FieldValue?) -> (oldest: Int32, newest: Int32)? {
        var lo = Int32.max, hi = Int32.min
        if initial == value { lo = -1; hi = -1 }
        table.withValue(key) { vs in
            vs.withUnsafeBufferPointer { b in
                for k in 0..<b.count where b[k].value == value { lo = min(lo, b[k].tx); hi = max(hi, b[k].tx) }
            }
        }
        return lo == Int32.max ? nil : (lo, hi)
    }
}
