import Testing
@testable import SyncSim

/// `RefusalOrderIndex` lets `finishClientWriteOrder` skip the walk over a client's intents for a
/// refusal nothing explains. It must never say "no" where the walk finds an explanation (a missed
/// violation), and, with the intents in time order and each write once, it answers exactly what
/// the walk finds (so it skips every walk that finds nothing). Checked against the walk's own
/// conditions on random lists, the edge cases (equal times, never applied, applied at the
/// refusal itself) drawn often by the small ranges.
@Suite struct RefusalOrderIndexTests {
    /// The walk's question, as `finishClientWriteOrder` asks it (no tenants).
    static func walkFinds(_ list: [Monitor.ClientIntent], creates: [[EntityID]], write w: WriteID, time: Int64,
                          refusedAt: Int32, touched: Set<EntityID>) -> Bool {
        for (k, o) in list.enumerated() {
            guard o.write != w, o.firstApplied >= 0 else { continue }
            if o.time > time || (o.time == time && o.write.raw > w.raw) {
                if o.firstApplied < refusedAt { return true }
            } else if o.firstApplied >= refusedAt, creates[k].contains(where: touched.contains) {
                return true
            }
        }
        return false
    }

    static func randomList(_ r: inout SimRandom, ordered: Bool) -> ([Monitor.ClientIntent], [[EntityID]]) {
        let n = Int(r.below(12))
        var time: Int64 = 0
        var list: [Monitor.ClientIntent] = []
        var creates: [[EntityID]] = []
        var writes = Array(1...40).map { UInt32($0) }
        for k in 0..<n {
            time = ordered ? time + Int64(r.below(3)) : Int64(r.below(6))   // equal times are common
            let w = writes.remove(at: r.index(writes.count))
            let f = Int32(r.below(8)) - 2                                      // -2, -1: never applied
            list.append(Monitor.ClientIntent(position: Int32(k), write: WriteID(w), time: time, firstApplied: f, session: nil))
            creates.append((0..<Int(r.below(3))).map { _ in EntityID(UInt32(r.below(6))) })
        }
        return (list, creates)
    }

    @Test func answersWhatTheWalkFindsOnOrderedLists() {
        var r = SimRandom(seed: 7)
        var found = 0, skipped = 0
        for _ in 0..<4_000 {
            let (list, creates) = Self.randomList(&r, ordered: true)
            guard !list.isEmpty else { continue }
            let index = RefusalOrderIndex(list) { creates[$0] }
            #expect(index.isOrdered)
            let it = list[r.index(list.count)]
            let touched = Set((0..<Int(1 + r.below(3))).map { _ in EntityID(UInt32(r.below(6))) })
            let at = Int32(r.below(7))
            let walk = Self.walkFinds(list, creates: creates, write: it.write, time: it.time, refusedAt: at, touched: touched)
            let fast = index.mayExplain(write: it.write, time: it.time, refusedAt: at, touched: touched,
                                        later: { $0.write.raw > it.write.raw },
                                        createsTouched: { o in creates[Int(o.position)].contains(where: touched.contains) })
            #expect(fast == walk, "\(list) \(creates) write \(it.write) refused at \(at) touching \(touched.sorted())")
            if walk { found += 1 } else { skipped += 1 }
        }
        // Both answers occur often (so neither a constant "yes" nor a constant "no" passes).
        #expect(found > 500 && skipped > 500, "found \(found), skipped \(skipped)")
    }

    @Test func saysMaybeOutOfTimeOrder() {
        var r = SimRandom(seed: 8)
        var unordered = 0
        for _ in 0..<2_000 {
            let (list, creates) = Self.randomList(&r, ordered: false)
            guard !list.isEmpty else { continue }
            let index = RefusalOrderIndex(list) { creates[$0] }
            let it = list[r.index(list.count)]
            let touched: Set<EntityID> = [EntityID(UInt32(r.below(6)))]
            let at = Int32(r.below(7))
            let fast = index.mayExplain(write: it.write, time: it.time, refusedAt: at, touched: touched,
                                        later: { $0.write.raw > it.write.raw },
                                        createsTouched: { o in creates[Int(o.position)].contains(where: touched.contains) })
            if !index.isOrdered { unordered += 1; #expect(fast, "an unordered list must be walked") }
            else {
                #expect(fast == Self.walkFinds(list, creates: creates, write: it.write, time: it.time, refusedAt: at, touched: touched))
            }
        }
        #expect(unordered > 500)
    }
}
