import Testing
@testable import SyncSim

/// The end-of-run checks made cheaper (`finishFieldOrder`'s last-assignment table built only
/// when a register fails; `finishClientWriteOrder`'s refusals weighed over a compact list of
/// each client's intents) against the code they replaced, kept here verbatim as the
/// reference: on real runs of every built-in, both must report the same violations in the
/// same order with the same texts, and count the same suppressed ones. Each comparison starts
/// from the monitor as the run left it (so past the per-invariant limit both only count).
@Suite struct FinishShortcutTests {
    struct Counts {
        var failingRegisters = 0
        var refusedWrites = 0
    }

    static func compare<S: SyncStrategy>(_ strategy: S, _ name: String, seeds: ClosedRange<Int>, counts: inout Counts) throws {
        for seed in seeds {
            for swarm in [true, false] {
                let schedule = WorkloadGenerator(.init(actions: 300, swarm: swarm)).generate(seed: UInt64(seed))
                var sim = try Simulator(strategy: strategy, schedule: schedule, seed: 1)
                _ = sim.run()
                let m = sim._monitor!
                let h = sim.history
                withUnsafeMutablePointer(to: &sim) { p in
                    let view = SimulatorView(p)
                    let data = view.everyTenantsData
                    let rejected = h.rejectedWrites
                    for lww in [true, false] {
                        var fast = m, reference = m
                        fast.finishFieldOrder(view, data: data, rejected: rejected, lww: lww, at: 1)
                        reference.referenceFinishFieldOrder(view, data: data, rejected: rejected, lww: lww, at: 1)
                        #expect(fast.violations.map(\.description) == reference.violations.map(\.description), "\(name) seed \(seed)")
                        #expect(fast.violations.map { $0.culprit } == reference.violations.map { $0.culprit }, "\(name) seed \(seed)")
                        #expect(fast.suppressed == reference.suppressed)
                        if lww { counts.failingRegisters += reference.violations.count - m.violations.count + reference.suppressed - m.suppressed }
                    }
                }
                var fast = m, reference = m
                fast.finishClientWriteOrder(h, at: 1)
                reference.referenceFinishClientWriteOrder(h, at: 1)
                #expect(fast.violations.map(\.description) == reference.violations.map(\.description), "\(name) seed \(seed)")
                #expect(fast.suppressed == reference.suppressed)
                counts.refusedWrites += m.refusals.reduce(0) { $0 + $1.writes.count }
            }
        }
    }

    @Test func realRunsGiveTheReferenceVerdicts() throws {
        var counts = Counts()
        try Self.compare(InstantStrategy(), "instant", seeds: 1...2, counts: &counts)
        try Self.compare(FullEntityStrategy(), "fullEntity", seeds: 1...2, counts: &counts)
        try Self.compare(SharedDiffStrategy(), "sharedDiff", seeds: 1...2, counts: &counts)
        try Self.compare(ConflictPromptStrategy(), "conflictPrompt", seeds: 1...3, counts: &counts)
        try Self.compare(PushPullStrategy(), "pushPull", seeds: 1...2, counts: &counts)
        try Self.compare(ReferenceStrategy(), "reference", seeds: 1...2, counts: &counts)
        // The paths that changed were taken: registers failed (the table was built) and
        // refusals were weighed.
        #expect(counts.failingRegisters > 0, "\(counts)")
        #expect(counts.refusedWrites > 0, "\(counts)")
    }
}

/// The replaced code, verbatim (but for its names).
extension Monitor {
    mutating func referenceFinishFieldOrder<O: ObservedSystem>(_ sim: O, data: EntityStore, rejected: Set<WriteID>, lww: Bool = true, at t: Int64) {
        let h = sim.history
        let arbitration = sim.arbitration
        // Position of the last transaction that carried each write, and the last transaction that
        // assigned each (entity, field), with whether one of its intents targeted that field.
        // (Dense tables over write ids and (entity, field) keys: this runs over the whole log, and
        // a hash per step was most of its cost; huge ids fall back to hashing, `KeyTable`.)
        var lastTxOfWrite = WriteTable<Int32>()
        var lastAssign = KeyTable<(tx: Int32, targeted: Bool)>(stride: schema.fieldCount, blank: (-1, false))
        func key(_ e: EntityID, _ f: FieldID) -> UInt64 { UInt64(e.raw) << 8 | UInt64(f.raw) }
        var targeted: [UInt64] = []  // a few keys: a list beats hashing
        // The log, the intents and their steps are read where they lie: a `for` over them copied
        // each transaction, intent and step (a retain and a release of each of their arrays).
        h.applied.withUnsafeBufferPointer { ap in
            h.intents.withUnsafeBufferPointer { ip in
                for i in 0..<ap.count {
                    targeted.removeAll(keepingCapacity: true)
                    for w in ap[i].tx.writes {
                        lastTxOfWrite[w] = Int32(i)
                        if let p = h.intentPosition(w) {
                            Self.forEachAssignment(ip[p].write.ops) { e, x in targeted.append(key(e, x.field)) }
                        }
                    }
                    Self.forEachAssignment(ap[i].tx.ops) { e, x in let k = key(e, x.field); lastAssign[k] = (Int32(i), targeted.contains(k)) }
                }
            }
        }
        var candidates = KeyTable<[FieldCandidate]>(stride: schema.fieldCount, blank: [])
        // Every write that took effect competes, even one the user was told failed (a timeout
        // after the server applied it): the server's log, not the client's belief, is the truth.
        h.intents.withUnsafeBufferPointer { ip in
            for made in 0..<ip.count {
                guard let tx = lastTxOfWrite[ip[made].write.id] else { continue }
                Self.forEachAssignment(ip[made].write.ops) { e, x in
                    candidates.modify(key(e, x.field)) { $0.append(FieldCandidate(made: Int32(made), tx: tx, value: x.value)) }
                }
            }
        }
        // The fastest clock anywhere: every client's, and the server's own (skew 0), since admin
        // writes and replies carry the server's time into clients' clocks.
        let maxSkew = max(0, (0..<sim.clientCount).map { sim.skew(of: ClientID($0)) }.max() ?? 0)
        func skew(_ o: Origin) -> Int64 { if case .client(let c) = o { return sim.skew(of: c) } else { return 0 } }
        // The data's records are read where they lie, in id order (`data.entities` copied every
        // record), and a register's acceptable writes are listed only to report it (the list
        // copied each winning intent whole).
        let rs = data.records
        for i in rs.indices {
            guard let ns = rs[i]?.namespace else { continue }
            let id = EntityID(UInt32(i))
            for f in schema.fields(of: ns) {
                let k = key(id, f)
                let cands = candidates[k]
                guard !cands.isEmpty, let final = rs[i]?[f] else { continue }
                let wins = mayWin(cands.map { Contender(intent: $0.made, tx: $0.tx) }, key: k, h,
                                  arbitration: arbitration, skew: skew, maxSkew: maxSkew)
                if cands.indices.contains(where: { wins[$0] && cands[$0].value == final }) { continue }
                let rec = rs[i]!
                let acceptable = cands.indices.filter { wins[$0] }.map { (h.intents[Int(cands[$0].made)], cands[$0].value) }
                let ref = EntityRef(id, rec.namespace)
                let want = acceptable.map { "\($0.1) (\($0.0.write.id) by \($0.0.origin))" }.joined(separator: " or ")
                // The culprit: the last transaction that assigned the register (what put the
                // wrong value there).
                let la = lastAssign[k]
                let culprit = la.tx < 0 ? nil : { () -> String? in
                    let tx = h.applied[Int(la.tx)].tx
                    return tx.ops.last { $0.entity == id && $0.assignments.contains { $0.field == f } }.map { Self.culprit(tx.origin, $0) }
                }()
                if la.tx >= 0, !la.targeted {
                    let tx = h.applied[Int(la.tx)].tx
                    var v = Violation(.disjointFieldMerge, at: t, entity: id,
                                      "\(ref).\(f.name) = \(final), expected \(want): tx \(tx.txID) from \(tx.origin) overwrote it while writing other fields (\(tx.writes.map(\.description).joined(separator: ", ")))")
                    v.culprit = culprit
                    report(v)
                } else if lww {
                    var v = Violation(.lwwConvergence, at: t, entity: id,
                                      "\(ref).\(f.name) = \(final), but the last write in \(arbitration) order is \(want)")
                    v.culprit = culprit
                    report(v)
                }
            }
        }
    }

    mutating func referenceFinishClientWriteOrder(_ h: History, at t: Int64) {
        // A session is a client in one tenant (`Monitor+Tenants.swift`): writes parked in one
        // tenant's database while the user works in another are not ordered against its writes.
        let perClient = tenants.active ? ScheduleLimits.maxTenant + 1 : 1
        var latest: [(write: WriteID, at: Int32)?] = Array(repeating: nil, count: clientCount * perClient)
        var reported = Array(repeating: false, count: clientCount)
        for (i, it) in h.intents.enumerated() {
            guard case .client(let c) = it.origin, !reported[c.index], let f = Self.get(firstApplied, it.write.id) else { continue }
            let session = c.index * perClient + (perClient == 1 ? 0 : tenant(ofIntent: Int32(i)).index)
            if let prev = latest[session], f < prev.at {
                reported[c.index] = true
                report(Violation(.clientWriteOrder, at: h.applied[Int(f)].time, client: c, entity: it.write.ops.first?.entity,
                                 "the server applied \(c)'s \(it.write.id) (tx \(h.applied[Int(f)].tx.txID)) before \(prev.write) (tx \(h.applied[Int(prev.at)].tx.txID)), which \(c)'s user made first"))
            } else {
                latest[session] = (it.write.id, f)
            }
        }
        // Each client's intents (positions in `h.intents`, in order): a refusal is weighed against
        // its own client's writes only, so it reads that list instead of every intent.
        var byClient: [[Int]] = Array(repeating: [], count: clientCount)
        if !refusals.isEmpty {
            for (i, it) in h.intents.enumerated() {
                if case .client(let c) = it.origin { byClient[c.index].append(i) }
            }
        }
        for r in refusals {
            guard case .client(let c) = r.origin, !reported[c.index] else { continue }
            for w in r.writes {
                guard let it = h.intent(w), it.origin == r.origin, Self.get(firstApplied, w).map({ $0 >= r.at }) ?? true else { continue }
                let touched = Set(it.write.ops.flatMap { op -> [EntityID] in
                    if case .link(let a, _, let b) = op { return [a, b] }
                    if case .unlink(let a, _, let b) = op { return [a, b] }
                    return [op.entity]
                })
                var why: String?
                let session = tenants.active ? Self.get(intentOfWrite, w).map { tenant(ofIntent: $0) } : nil
                for oi in byClient[c.index] {
                    let other = h.intents[oi]
                    guard other.origin == r.origin && other.write.id != w else { continue }
                    if let session, Self.get(intentOfWrite, other.write.id).map({ tenant(ofIntent: $0) }) != session { continue }
                    guard let f = Self.get(firstApplied, other.write.id) else { continue }
                    if other.time > it.time || (other.time == it.time && other.write.id.raw > w.raw) {
                        if f < r.at { why = "after applying \(other.write), which \(c)'s user made later"; break }
                    } else if f >= r.at, other.write.ops.contains(where: { if case .create(let e, _, _) = $0 { return touched.contains(e) } else { return false } }) {
                        why = "before applying \(other.write), which \(c)'s user made first and creates an entity it touches"; break
                    }
                }
                if let why {
                    reported[c.index] = true
                    report(Violation(.clientWriteOrder, at: t, client: c, entity: it.write.ops.first?.entity,
                                     "the server refused \(c)'s \(w) (\(it.write)) \(why)"))
                    break
                }
            }
        }
    }

}
