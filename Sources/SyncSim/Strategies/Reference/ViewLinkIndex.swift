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
        // Most updates change a field, not a link: told without building the target list.
        if Self.sameTargets(i < targets.count ? targets[i] : [], i, in: store) { return }
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
    static func sameTargets(_ old: [EntityID], _ i: Int, in store: EntityStore) -> Bool {
        // Records are read in place (`rb[i]?.…`): binding one would copy it.
        store.records.withUnsafeBufferPointer { rb in
            guard i < rb.count, rb[i]?.namespace != nil else { return old.isEmpty }
            func has(_ t: EntityID) -> Bool {
                let k = ViewPatch.lowerBound(old.count) { old[$0] < t }
                return k < old.count && old[k] == t
            }
            var n = 0
            for k in 0..<(rb[i]?.links.count ?? 0) {
                guard case let t?? = rb[i]?.links[k] else { continue }
                if !has(t) { return false }
                n += 1
            }
            for m in 0..<(rb[i]?.manyLinks.count ?? 0) {
                for k in 0..<(rb[i]?.manyLinks[m].count ?? 0) {
                    guard let t = rb[i]?.manyLinks[m][k] else { continue }
                    if !has(t) { return false }
                    n += 1
                }
            }
            // Every target is in `old`; the same sets if every one of `old` is a target too
            // (the count tells most differences first).
            if n != old.count { return false }
            for t in old where rb[i]?.refers(to: t) != true { return false }
            return true
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
