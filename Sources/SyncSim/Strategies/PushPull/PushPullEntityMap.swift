/// A map from entity ids to values, stored densely by id: the `pushPull` server's per-entity
/// metadata and tombstones.
///
/// Why: entity ids are small (the schedule's), and a pull looks up every row stamped since the
/// client's `lastPulledAt`; hashing each id through a `Dictionary` was a visible part of every
/// pull. Nothing iterates the map, so no order can reach an outcome.
struct PushPullEntityMap<Value: Sendable>: Sendable {
    var slots: [Value?] = []

    @inline(__always) subscript(e: EntityID) -> Value? {
        get { Int(e.raw) < slots.count ? slots[Int(e.raw)] : nil }
        set {
            let i = Int(e.raw)
            if i >= slots.count {
                if newValue == nil { return }
                slots.append(contentsOf: repeatElement(nil, count: i - slots.count + 1))
            }
            slots[i] = newValue
        }
    }
}
