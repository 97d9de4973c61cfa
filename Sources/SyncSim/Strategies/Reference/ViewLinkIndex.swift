/// Which rows of a client's view link to each entity (by any link), kept up to date from the
/// view's changed slots.
///
/// Why: patching a subscription with an include (`ViewPatch`) must find the roots that still
/// link to a child, and the rows that link to a root that came or went; without an index that
/// is a pass over the whole view, the cost this patching exists to avoid. Each slot's targets
/// as last indexed are kept, so an update touches only the lists of the targets that changed.
///
/// Lists are ascending and hold each row once: no hash order reaches an outcome.
struct ViewLinkIndex: Hashable, Sendable {
    /// `targets[i]`: the targets of slot `i`'s links as last indexed, ascending, each once.
    var targets: [[EntityID]] = []
    /// `incoming[t]`: the slots whose record links to `t`, ascending.
    var incoming: [[EntityID]] = []

    init() {}

    /// An index of every slot of `store`.
    init(_ store: EntityStore) {
        for i in 0..<store.records.count { update(i, in: store) }
    }

    /// Brings slot `i`'s entries up to date with its record in `store` (none if it has none).
    mutating func update(_ i: Int, in store: EntityStore) {
        // Most updates change a field, not a link: told without building the target list (the
        // old list and the record read in place).
        let same: Bool = i < targets.count
            ? targets[i].withUnsafeBufferPointer { Self.sameTargets($0, i, in: store) }
            : Self.sameTargets(UnsafeBufferPointer(start: nil, count: 0), i, in: store)
        if same { return }
        var new: [EntityID] = []
        store.records.withUnsafeBufferPointer { rb in
            guard i < rb.count, rb[i]?.namespace != nil else { return }
            for t in rb[i]!.links { if let t { new.append(t) } }
            for m in rb[i]!.manyLinks { new.append(contentsOf: m) }
        }
        if new.count > 1 {
            new.sort()
            var w = 1
            for r in 1..<new.count where new[r] != new[w - 1] { new[w] = new[r]; w += 1 }
            new.removeSubrange(w...)
        }
        if i < targets.count {
            if targets[i] == new { return }
        } else {
            if new.isEmpty { return }
            targets.append(contentsOf: repeatElement([], count: i - targets.count + 1))
        }
        let slot = EntityID(UInt32(i))
        for t in targets[i] where !new.contains(t) {
            Self.remove(slot, from: &incoming[Int(t.raw)])
        }
        for t in new where !targets[i].contains(t) {
            let j = Int(t.raw)
            if j >= incoming.count { incoming.append(contentsOf: repeatElement([], count: j - incoming.count + 1)) }
            Self.insert(slot, into: &incoming[j])
        }
        targets[i] = new
    }

    /// Whether the targets of slot `i`'s record (none without one) are exactly `old` (ascending,
    /// each once), read in place: every target is in `old`, and every one of `old` is a target.
    static func sameTargets(_ old: UnsafeBufferPointer<EntityID>, _ i: Int, in store: EntityStore) -> Bool {
        // The record is read through a pointer to it (`OptionalPayload`): reading its links
        // through the optional (`rb[i]?.links[k]`) copied it, or its arrays, at each read.
        store.records.withUnsafeBufferPointer { rb in
            guard i < rb.count, rb[i]?.namespace != nil else { return old.isEmpty }
            return OptionalPayload.read(rb, i) { r in
                func has(_ t: EntityID) -> Bool {
                    let k = ViewPatch.lowerBound(old.count) { old[$0] < t }
                    return k < old.count && old[k] == t
                }
                var n = 0
                for k in 0..<r.pointee.links.count {
                    guard let t = r.pointee.links[k] else { continue }
                    if !has(t) { return false }
                    n += 1
                }
                for m in 0..<r.pointee.manyLinks.count {
                    for k in 0..<r.pointee.manyLinks[m].count {
                        if !has(r.pointee.manyLinks[m][k]) { return false }
                        n += 1
                    }
                }
                // Every target is in `old`; the same sets if every one of `old` is a target too
                // (the count tells most differences first).
                if n != old.count { return false }
                for t in old where !r.pointee.refers(to: t) { return false }
                return true
            }
        }
    }

    /// The slots whose record links to `t`, ascending.
    func referrers(of t: EntityID) -> [EntityID] {
        Int(t.raw) < incoming.count ? incoming[Int(t.raw)] : []
    }

    static func insert(_ e: EntityID, into a: inout [EntityID]) {
        let k = ViewPatch.lowerBound(a.count) { a[$0] < e }
        if k < a.count && a[k] == e { return }
        a.insert(e, at: k)
    }

    static func remove(_ e: EntityID, from a: inout [EntityID]) {
        let k = ViewPatch.lowerBound(a.count) { a[$0] < e }
        if k < a.count && a[k] == e { a.remove(at: k) }
    }
}
