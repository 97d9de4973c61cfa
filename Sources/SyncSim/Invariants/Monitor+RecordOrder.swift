/// `lwwConvergence` under `.recordTimestamp` arbitration (WatermelonDB-style rows, seed 004):
/// the unit of "last writer wins" is the whole record, not the field.
///
/// The rule, as seed 004 §5 states it: every local change stamps the row's `updatedAt` with the
/// device clock; a pushed row whose stamp is newer than the server's replaces the server's row
/// (the full row, every column), an older one loses. Two things apply over any stamp: the
/// server's own (back-office) writes, which the server applies directly, and a push the user
/// forced by choosing "keep local" (a `forceSync(.keepLocal)` or a conflict answered
/// `keepLocal`).
///
/// Derived from the record only, never by asking the strategy:
///  - the *contenders* for a record are the applied intents with a create, update, link or
///    unlink on it, each with the last transaction that carried it *and* stepped on that record
///    (a multi-entity write whose push lost on this record does not compete for it);
///  - a contender is *forced* if it is an admin write, or its client made a keep-local choice
///    after making it and before that transaction (`keepLocalChoices`, from the commands);
///  - only contenders applied at or after the last forced one compete; the winners are those
///    with the newest stamp (`clientTime`; ties, which the user resolves, all may win).
/// A register (a field, a link) the winning transaction's intents assigned must then hold the
/// value of the latest such intent in that transaction (one row holds the latest local edit).
/// Registers the winner did not assign carry whatever the writer's row held (a pulled value),
/// which no intent decides: they are not judged. Every failure here is an `lwwConvergence`
/// violation. `disjointFieldMerge` is still judged per register, as before (`finishFieldOrder`
/// with `lww: false`): a newest row that overwrites a concurrent edit of another column keeps
/// the record rule yet loses that edit, which is exactly what that invariant names.
extension Monitor {
    /// A keep-local choice by a client: how many intents existed then, and the log's length.
    struct KeepLocalChoice: Sendable {
        var intents: Int32
        var log: Int32
    }

    /// Notes a command that forces the client's local rows over the server's.
    mutating func noteForcing(_ c: ClientID, _ cmd: UserCommand) {
        switch cmd {
        case .forceSync(.keepLocal), .resolveConflict(_, .keepLocal):
            keepLocalChoices[c.index].append(KeepLocalChoice(intents: intentCount, log: appliedCount))
        default: break
        }
    }

    /// The winning transactions (positions in `History.applied`) of each record the log touched,
    /// and, per (intent, entity), the last transaction that carried the intent and stepped on the
    /// entity.
    struct RecordWinners {
        var winners: [EntityID: [Int32]] = [:]
        var appliedOn: [UInt64: Int32] = [:]

        @inline(__always) static func key(_ intent: Int32, _ e: EntityID) -> UInt64 { UInt64(UInt32(bitPattern: intent)) << 32 | UInt64(e.raw) }
        func tx(of intent: Int32, on e: EntityID) -> Int32? { appliedOn[Self.key(intent, e)] }
    }

    func recordWinners(_ h: History) -> RecordWinners {
        var out = RecordWinners()
        var contenders: [EntityID: [Int32]] = [:]   // intents, in first-application order
        var touched: [EntityID] = []
        for (i, a) in h.applied.enumerated() {
            touched.removeAll(keepingCapacity: true)
            for op in a.tx.ops where !op.isDelete && !touched.contains(op.entity) { touched.append(op.entity) }
            guard !touched.isEmpty else { continue }
            for w in a.tx.writes {
                guard let ii = Self.get(intentOfWrite, w) else { continue }
                for op in h.intents[Int(ii)].write.ops where !op.isDelete && touched.contains(op.entity) {
                    let k = RecordWinners.key(ii, op.entity)
                    if out.appliedOn.updateValue(Int32(i), forKey: k) == nil { contenders[op.entity, default: []].append(ii) }
                }
            }
        }
        for (e, cs) in contenders {
            func forced(_ ii: Int32, _ tx: Int32) -> Bool {
                switch h.intents[Int(ii)].origin {
                case .admin: return true
                case .client(let c): return keepLocalChoices[c.index].contains { ii < $0.intents && tx >= $0.log }
                }
            }
            var floor: Int32 = -1
            for ii in cs { let tx = out.tx(of: ii, on: e)!; if tx > floor && forced(ii, tx) { floor = tx } }
            let live = cs.filter { out.tx(of: $0, on: e)! >= floor }
            guard let top = live.map({ h.intents[Int($0)].clientTime }).max() else { continue }
            var txs: [Int32] = []
            for ii in live where h.intents[Int(ii)].clientTime == top {
                let tx = out.tx(of: ii, on: e)!
                if !txs.contains(tx) { txs.append(tx) }
            }
            out.winners[e] = txs.sorted()
        }
        return out
    }

    /// Among `cands` (intents that set one register of `e`), the ones a winning row holds: per
    /// winning transaction, the latest intent in it. Empty: the winners did not set the register.
    static func recordHolders(_ cands: [Int32], of e: EntityID, _ rw: RecordWinners) -> [Int32] {
        guard let txs = rw.winners[e] else { return [] }
        var best: [Int32: Int32] = [:]
        for ii in cands {
            guard let tx = rw.tx(of: ii, on: e), txs.contains(tx) else { continue }
            if ii > (best[tx] ?? -1) { best[tx] = ii }
        }
        return txs.compactMap { best[$0] }
    }

    /// lwwConvergence for fields under `.recordTimestamp`.
    mutating func finishRecordFields(_ h: History, data: EntityStore, _ rw: RecordWinners, at t: Int64) {
        for (id, rec) in data.entities {
            guard rw.winners[id] != nil else { continue }
            for f in schema.fields(of: rec.namespace) {
                let k = Self.key(id, f)
                let writers = writersOf[k]
                guard !writers.isEmpty, let final = rec[f] else { continue }
                let holders = Self.recordHolders(writers, of: id, rw)
                guard !holders.isEmpty else { continue }
                let want = holders.map { (h.intents[Int($0)], Self.value(of: h.intents[Int($0)], id, f)) }
                if want.contains(where: { $0.1 == final }) { continue }
                if holders.contains(where: { mayHaveBeenNoOp($0, id, f, k, final: final, rw, h) }) { continue }
                let ref = EntityRef(id, rec.namespace)
                let text = want.map { "\($0.1.map(\.description) ?? "nothing") (\($0.0.write.id) by \($0.0.origin), stamped \($0.0.clientTime))" }.joined(separator: " or ")
                var v = Violation(.lwwConvergence, at: t, entity: id,
                                  "\(ref).\(f.name) = \(final), but the row with the newest timestamp holds \(text)")
                v.culprit = lastStepCulprit(h, on: id)
                report(v)
            }
        }
    }

    /// WatermelonDB marks a column changed only when a write changes its value
    /// (`setRawColumnChange` after a comparison), so a write that sets a column to the value the
    /// row already holds protects nothing: a pull before the push may bring a newer server
    /// value into that column, and the newest row then carries it. Accepted only when that is
    /// possible by the record: the write's value existed on the server (or in the initial data)
    /// before the write was made, and `final` is a value the server held between the write and
    /// the winning transaction (the one current when it was made included: the writer's row may
    /// not have pulled it yet). A pull-merge that overwrites a column the user really changed
    /// (a value new to the server) is still a violation; one that overwrites a write restoring
    /// an older value is not caught (the record cannot tell it from a no-op).
    func mayHaveBeenNoOp(_ ii: Int32, _ e: EntityID, _ f: FieldID, _ k: UInt64, final: FieldValue, _ rw: RecordWinners, _ h: History) -> Bool {
        guard let v = Self.value(of: h.intents[Int(ii)], e, f), Int(ii) < logAtIntent.count,
              let tx = rw.tx(of: ii, on: e) else { return false }
        let madeAt = logAtIntent[Int(ii)]
        guard let range = versions.range(of: v, k, initial: initialData[e]?[f]), range.oldest < madeAt else { return false }
        return versions.held(k, from: madeAt, before: tx, initial: initialData[e]?[f]).contains(final)
    }

    /// The culprit of a wrong final record: the origin and kind of the last step on it.
    func lastStepCulprit(_ h: History, on e: EntityID) -> String? {
        for a in h.applied.reversed() {
            if let op = a.tx.ops.last(where: { $0.entity == e }) { return Self.culprit(a.tx.origin, op) }
        }
        return nil
    }
}
