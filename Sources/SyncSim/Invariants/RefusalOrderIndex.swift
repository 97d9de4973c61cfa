/// One client's intents as `Monitor.finishClientWriteOrder` weighs a refusal against them,
/// indexed so that a refusal nothing explains is told in a few steps.
///
/// Why: the check reads, for each refused write, every intent of its client for one that makes
/// the refusal out of order: a write the user made *later* that the server applied *before* the
/// refusal, or one made *earlier*, applied *at or after* it, that creates an entity the refused
/// write touches. A long conflictPrompt run refuses writes by the thousand and its clients make
/// thousands of writes, so the walk was quadratic (160 million instructions, 2,500 per event,
/// at 3,000 actions, seed 1). Almost every refusal is in order; this index says so without the walk:
/// with the intents in time order (the usual case: users act as virtual time moves on), the
/// later ones are a suffix, whose least first application is kept per place (`suffixMinimum`),
/// and the earlier ones matter only if they create a touched entity (`creators`). A "maybe"
/// sends the refusal through the full walk, which finds the first explanation in the order it
/// always did, so reports are exactly the walk's. Out of time order (or with tenants, whose
/// sessions split a client's writes), `isOrdered` is false and every refusal is walked.
struct RefusalOrderIndex: Sendable {
    /// The client's intents, in history order (`Monitor.ClientIntent`).
    let intents: [Monitor.ClientIntent]
    /// `intents`' times never decrease (else every question answers "maybe").
    let isOrdered: Bool
    /// Per place p: the least `firstApplied` (never-applied ones left out) from p on;
    /// `Int32.max` when none; one more place at the end.
    private let suffixMinimum: [Int32]
    /// Per entity: the places of the intents that create it (a lookup table, never iterated).
    private let creators: [EntityID: [Int32]]

    /// `creates(p)`: the entities intent place p creates (read from the history by the caller).
    init(_ intents: [Monitor.ClientIntent], creates: (Int) -> [EntityID]) {
        self.intents = intents
        var ordered = true
        for k in intents.indices.dropFirst() where intents[k].time < intents[k - 1].time { ordered = false; break }
        isOrdered = ordered
        var minimum = [Int32](repeating: Int32.max, count: intents.count + 1)
        var k = intents.count - 1
        while k >= 0 {
            let f = intents[k].firstApplied
            minimum[k] = f >= 0 ? min(f, minimum[k + 1]) : minimum[k + 1]
            k -= 1
        }
        suffixMinimum = minimum
        var made: [EntityID: [Int32]] = [:]
        if ordered {
            for p in intents.indices { for e in creates(p) { made[e, default: []].append(Int32(p)) } }
        }
        creators = made
    }

    /// Whether some intent other than `write` (made at `time`) may explain its refusal at log
    /// place `refusedAt`: false only when none can (`finishClientWriteOrder`'s walk would find
    /// nothing). `later(o)`: whether intent `o`, made at the same time, counts as made later;
    /// `createsTouched(o)`: whether it creates an entity the refused write touches.
    func mayExplain(write: WriteID, time: Int64, refusedAt: Int32, touched: Set<EntityID>,
                    later: (Monitor.ClientIntent) -> Bool, createsTouched: (Monitor.ClientIntent) -> Bool) -> Bool {
        guard isOrdered else { return true }
        // The intents made at `time`: [lo, hi).
        var lo = 0, hi = intents.count
        while lo < hi { let mid = (lo + hi) >> 1; if intents[mid].time < time { lo = mid + 1 } else { hi = mid } }
        let first = lo
        hi = intents.count
        while lo < hi { let mid = (lo + hi) >> 1; if intents[mid].time <= time { lo = mid + 1 } else { hi = mid } }
        let end = lo
        for k in first..<end {
            let o = intents[k]
            guard o.write != write, o.firstApplied >= 0 else { continue }
            if later(o) { if o.firstApplied < refusedAt { return true } }
            else if o.firstApplied >= refusedAt && createsTouched(o) { return true }
        }
        // Made later (all of them after `end`): applied before the refusal?
        if suffixMinimum[end] < refusedAt { return true }
        // Made earlier (all of them before `first`): applied at or after it, creating a touched entity?
        for e in touched {
            guard let places = creators[e] else { continue }
            for p in places where Int(p) < first {
                let o = intents[Int(p)]
                if o.write != write && o.firstApplied >= refusedAt { return true }
            }
        }
        return false
    }
}
