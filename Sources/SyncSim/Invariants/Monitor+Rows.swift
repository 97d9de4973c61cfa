/// `noDuplicateRows`: at most one server row per entity (seed 004's testing matrix, "Offline
/// create 10 items → online: no duplicates"; "Network flakiness: retry, no duplicates").
///
/// Read from the server's log alone: each applied transaction lists the rows the server
/// inserted with the ids it gave them (`AppliedTransaction.rows`). A second row id for one
/// entity is a duplicate row: the server turned one create — most often the same create pushed
/// again after its answer was lost — into two rows, and a client that later pulls both sees the
/// item twice. Servers that keep one record per logical entity report no rows and cannot
/// violate it; re-applying the same row (the same id) is `noDuplicateApplication`'s question,
/// not this one.
///
/// Exactly-once arrival of a bulk needs no oracle of its own: "at least once" on the server is
/// `noLostAcknowledgedWrite` (every accepted create is applied, or its user told it failed),
/// "not taken away" is `noGhostDeletion`, "on every client that subscribes to its namespace" is
/// `convergence` (each subscription ends equal to the server's answer: a pull that skipped a
/// page leaves rows out), and "at most once" is this oracle.
struct RowLedger: Sendable {
    /// The first row id the server gave each entity.
    var firstRow: [EntityID: UInt64] = [:]
    /// Entities already reported (one violation per entity).
    var reported = Set<EntityID>()
}

extension Monitor {
    /// Judges the rows a transaction inserted (called for every applied transaction).
    mutating func noteRows(_ tx: AppliedTransaction, at time: Int64) {
        guard !tx.rows.isEmpty else { return }
        for r in tx.rows {
            guard let first = rowLedger.firstRow[r.entity] else {
                rowLedger.firstRow[r.entity] = r.row
                continue
            }
            guard first != r.row, rowLedger.reported.insert(r.entity).inserted else { continue }
            let key = r.clientKey.map { " (client id \($0))" } ?? ""
            let ws = tx.writes.isEmpty ? "" : " carrying " + tx.writes.prefix(3).map(\.description).joined(separator: ", ") + (tx.writes.count > 3 ? ", …" : "")
            var v = Violation(.noDuplicateRows, at: time, entity: r.entity,
                              "the server inserted a second row for entity \(r.entity.raw)\(key): row \(r.row) in tx \(tx.txID) from \(tx.origin)\(ws), besides row \(first)")
            v.culprit = (tx.origin == .admin ? "admin" : "client") + " inserted again"
            report(v)
        }
    }
}
