/// A table by (entity, field) key (`Monitor.key`) for the oracles' per-register state: the
/// floors `monotonicReads` keeps, the keys a client's own user wrote, the versions the server's
/// data took (`FieldVersions`).
///
/// Why not a dictionary: these are read for every value of every entry a yield shows, and a
/// hash per read was most of that cost. Runs number their entities from small ids, so a key
/// maps to a slot of a flat array (`entity * stride + field`, `stride` the schema's field
/// count) grown on demand; a key outside that range (a huge id in a hand-written schedule, a
/// field the schema lacks) falls back to a dictionary, so any input is a value, never a crash.
/// A slot never written reads as `blank`; nothing iterates the table, so no order can leak.
struct KeyTable<Value: Sendable>: Sendable {
    private let stride: Int
    private let blank: Value
    private var dense: [Value] = []
    private var sparse: [UInt64: Value] = [:]
    /// Entity ids below this use the flat array.
    private static var denseEntities: UInt64 { 1 << 20 }

    init(stride: Int, blank: Value) {
        self.stride = max(1, stride)
        self.blank = blank
    }

    @inline(__always) private func slot(_ k: UInt64) -> Int? {
        let e = k >> 8, f = Int(truncatingIfNeeded: k & 0xff)
        guard e < Self.denseEntities, f < stride else { return nil }
        return Int(e) * stride + f
    }

    subscript(_ k: UInt64) -> Value {
        get {
            if let i = slot(k) { return i < dense.count ? dense[i] : blank }
            return sparse[k] ?? blank
        }
        set { modify(k) { $0 = newValue } }
    }

    /// Lends the value of `k` to `body` where it lies (the getter hands out a copy: for an array
    /// value, a retain and a release).
    @inline(__always) func withValue<R>(_ k: UInt64, _ body: (Value) -> R) -> R {
        if let i = slot(k) {
            if i < dense.count { return dense.withUnsafeBufferPointer { body($0[i]) } }
            return body(blank)
        }
        if let v = sparse[k] { return body(v) }
        return body(blank)
    }

    /// Changes the value of `k` in place (an array value is not copied to append to it).
    @inline(__always) mutating func modify<R>(_ k: UInt64, _ body: (inout Value) -> R) -> R {
        if let i = slot(k) {
            if i >= dense.count {
                let b = blank
                dense.append(contentsOf: repeatElement(b, count: Swift.max(i + 1 - dense.count, dense.count)))
            }
            return body(&dense[i])
        }
        let b = blank
        return body(&sparse[k, default: b])
    }
}
