/// A user change on an InstantDB client (`Tenancy.oneDatabase`: one local store per app).
///
/// | rule | source |
/// |---|---|
/// | a user change deletes every query's result and the cached results; screens show nothing until the new user's answers arrive | Reactor.js `updateUser`: `delete prev[k].result` for every `querySubs` entry, `_dataForQueryCache = {}` / `queries.clearCache()`; semantics §10 "A user change clears both" |
/// | a user change clears the pending-mutation queue: queued writes of the previous user are dropped, never sent, and nobody is told | semantics §10 / seed 000 ("a user change clears cache and queue"). **Reactor.js does not**: `updateUser` leaves `pendingMutations` alone and reconnects (`_reconnectTimeoutMs = 0; _ws.close()`), so the previous user's queued writes are sent on the new user's connection: the leak `keepsQueueOnUserChange` reproduces for the tests |
/// | the socket is closed and reopened at once under the new user | Reactor.js `updateUser` (the simulator closes the connection before the command) |
extension InstantClient {
    /// `UserCommand.switchTenant` / `.logout`.
    mutating func userChanged(out: inout ClientOutbox<InstantUp>) {
        if !keepsResultsOnUserChange {
            cache.removeAll()
            for i in queries.indices {
                queries[i].setServer(nil, processedTxID: 0)
                queries[i].fromCache = false
                queries[i].shown = nil
            }
        }
        if !keepsQueueOnUserChange {
            for m in pending { timeouts.answered(m.eventID, out: &out) }
            pending.removeAll()
        }
        persist(out: &out)
        refreshYields(out: &out)
    }
}
