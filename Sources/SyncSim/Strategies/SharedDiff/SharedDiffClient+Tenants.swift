/// A user change on a SharingInstant client (`Tenancy.oneDatabase`): the Reactor underneath is
/// InstantDB's, so the same rule as `InstantClient+Tenants.swift` (semantics §10: a user change
/// clears the cached results and the queue). The `@Shared` collections lose their values with
/// the query results, and saves not yet run are dropped with the queue (a save after the change
/// would diff the new user's collection against the old user's edits).
extension SharedDiffClient {
    /// `UserCommand.switchTenant` / `.logout`.
    mutating func userChanged(out: inout ClientOutbox<InstantUp>) {
        cache.removeAll()
        for i in collections.indices {
            if !collections[i].saveDue.isEmpty, let s = collections[i].subscription { out(.cancelTimer(Self.saveTimer(s))) }
            collections[i].server = nil
            collections[i].processedTxID = 0
            collections[i].fromCache = false
            collections[i].shown = nil
            collections[i].saveDue = []
            collections[i].saveWrites = []
            collections[i].overlay = nil
        }
        collectionsChanged()
        for m in pending { timeouts.answered(m.eventID, out: &out) }
        pending.removeAll()
        unsaved.removeAll()
        persist(out: &out)
    }
}
