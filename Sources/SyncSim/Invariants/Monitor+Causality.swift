/// The arbitration rules `lwwConvergence` judges registers by (a field of an entity, a link of
/// an entity, one target of a has-many link), and the causal order that hybrid logical clocks
/// promise to respect.
///
/// Why causality and not only a skew bound: an HLC's whole point is that a write made *after*
/// its writer observed another write is stamped above it, whatever the two devices' clocks say.
/// A strategy that stamps with the raw device clock (a slow clock) or forgets what it observed
/// (a clock not persisted across a relaunch, replies that do not carry stamps) passes the skew
/// bound yet lets an older, already-seen edit win. The oracle knows "observed" only from the
/// record, never from the strategy: the writer's own earlier writes (session order), a yield of
/// the writer's subscriptions that showed a server version at or after the transaction that
/// carried the other write (`FieldVersions`, the floors `monotonicReads` keeps), and, for admin
/// writes, the other write being in the server's log already. Each is a sound implication of
/// stamp order for an HLC LWW register, so the true winner is never excluded.
extension Monitor {
    /// One write competing for a register: its position in `History.intents` and the position in
    /// the server's log of the last transaction that carried it.
    struct Contender {
        var intent: Int32
        var tx: Int32
    }

    /// What an intent could have observed when it was made (for HLC causality): the server log's
    /// length then, and per (entity, field) it assigns, the writer's floor (`floors`).
    ///
    /// The floors go in one flat list, each intent's after the previous one's (`floorStart`), not
    /// in a dictionary by (intent, key): a hash and now and then a rehash per assignment of every
    /// client write, for a table read only at the end, by a few HLC verdicts.
    mutating func noteObserved(intent i: Int32, _ w: UserWrite, client: ClientID?) {
        logAtIntent.append(appliedCount)
        floorStart.append(Int32(truncatingIfNeeded: floorItems.count))
        guard let c = client, hasFloors[c.index] else { return }
        for op in w.ops {
            for x in op.assignments {
                let k = Self.key(op.entity, x.field)
                let f = floors[c.index][k]
                if f != Self.noFloor { floorItems.append((k, f)) }
            }
        }
    }

    /// The writer's floor for `key` when intent `i` was made (`noteObserved`), if it had one.
    /// (An intent lists a key at most once per assignment, always with the same floor.)
    func floorAtIntent(_ i: Int32, _ key: UInt64) -> Int32? {
        let n = Int(i)
        guard n >= 0 && n < floorStart.count else { return nil }
        let lo = Int(floorStart[n]), hi = n + 1 < floorStart.count ? Int(floorStart[n + 1]) : floorItems.count
        for j in lo..<hi where floorItems[j].key == key { return floorItems[j].floor }
        return nil
    }

    /// Whether intent `i` was made after its writer observed intent `w` (both carried by applied
    /// transactions): `key` is the field register they compete for (nil for links, which no
    /// yield floor covers).
    func causallyAfter(_ i: Int32, _ w: Int32, key: UInt64?, _ h: History) -> Bool {
        let x = h.intents[Int(i)], y = h.intents[Int(w)]
        // One node's clock only moves forward: its later write is stamped above its earlier one.
        if x.origin == y.origin { return w < i }
        guard let p = Self.get(firstApplied, y.write.id) else { return false }
        // The server's clock observes every stamp it receives, and stamps admin writes.
        if x.origin == .admin { return Int(i) < logAtIntent.count && logAtIntent[Int(i)] > p }
        // The writer showed its user a version of this register at or after the transaction that
        // carried `w`: that version's stamp is at least `w`'s, and the writer's clock observed it.
        if let key, let f = floorAtIntent(i, key), f >= p { return true }
        return false
    }

    /// Which contenders may hold a register at the end under `arbitration` (one flag each).
    ///  - serverArrival: the one applied last (coalesced writes tie on arrival: the one made last).
    ///  - clientTimestamp: those with the latest device clock.
    ///  - hybridLogicalClock: those no other contender beats for sure: made causally after it, or
    ///    so much later that its clock must exceed any clock the first could carry.
    func mayWin(_ cands: [Contender], key: UInt64?, _ h: History, arbitration: Arbitration,
                skew: (Origin) -> Int64, maxSkew: Int64) -> [Bool] {
        switch arbitration {
        case .serverArrival:
            var best = 0
            for j in cands.indices.dropFirst() where (cands[j].tx, cands[j].intent) > (cands[best].tx, cands[best].intent) { best = j }
            return cands.indices.map { $0 == best }
        case .clientTimestamp, .recordTimestamp:
            // (`.recordTimestamp` is judged per record, `Monitor+RecordOrder.swift`; per register
            // its stamps order the same way.)
            let top = cands.map { h.intents[Int($0.intent)].clientTime }.max()!
            return cands.map { h.intents[Int($0.intent)].clientTime == top }
        case .hybridLogicalClock:
            return cands.map { w in
                let wi = h.intents[Int(w.intent)]
                let bound = wi.time + max(maxSkew, skew(wi.origin))
                return !cands.contains { i in
                    guard i.intent != w.intent else { return false }
                    let ii = h.intents[Int(i.intent)]
                    return ii.time + skew(ii.origin) > bound || causallyAfter(i.intent, w.intent, key: key, h)
                }
            }
        }
    }
}
