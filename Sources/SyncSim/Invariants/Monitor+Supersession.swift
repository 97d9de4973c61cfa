/// Writes a server acknowledged without applying them because a later write replaced them before
/// commit (InstantDB's `combine-transact`: rapid same-field transacts queued in one session are
/// combined into the latest). Such a write is **superseded**: it is neither lost
/// (`noLostAcknowledgedWrite`) nor a false confirmation (`toldOutcomeIsTrue`), because a later
/// write of the same client to the same fields took its place in the server's log.
///
/// Derived from the history only: the server's log says which writes each transaction
/// superseded (`AppliedTransaction.superseded`, the `superseded` key of a history `commit` line).
/// The claim is checked, not trusted: a superseded write counts only if the transaction that
/// names it carries a later write of the same client and its applied steps assign every field
/// the superseded one assigns (else the log is claiming supersession for something it dropped,
/// and the write is judged as any other).
extension Monitor {
    /// Records the writes `tx` (at `index` in the server's log) names as superseded; the claim
    /// is checked when it is read (`isSuperseded`), against the log and the intents.
    mutating func noteSuperseded(_ tx: AppliedTransaction, index: Int32) {
        for w in tx.superseded where supersededIn[w] == nil { supersededIn[w] = index }
    }

    /// Whether `w` was superseded: a transaction in the server's log names it, comes from `w`'s
    /// client, carries a write of that client made no earlier than `w`, and its applied steps
    /// assign every field `w` assigns (so what `w` asked for was overwritten by that client's
    /// later write, or carried along by it, as a full-entity update carries every field).
    func isSuperseded(_ w: WriteID, _ h: History) -> Bool {
        guard let i = supersededIn[w], Int(i) < h.applied.count, let old = h.intent(w) else { return false }
        let tx = h.applied[Int(i)].tx
        guard tx.origin == old.origin,
              tx.writes.contains(where: { x in h.intent(x).map { $0.origin == old.origin && $0.time >= old.time } ?? false })
        else { return false }
        return Self.covers(tx.ops, old.write.ops)
    }

    /// Whether `new` assigns every (entity, field) that `old` assigns, and `old` only assigns.
    static func covers(_ new: [Op], _ old: [Op]) -> Bool {
        for op in old {
            guard let a = op.assignmentsIfWrite else { return false }
            for x in a {
                let assigned = new.contains { n in
                    n.entity == op.entity && (n.assignmentsIfWrite?.contains { $0.field == x.field } ?? false)
                }
                if !assigned { return false }
            }
        }
        return true
    }
}
