/// The definitions of the invariants. The oracle for each lives in `Monitor.swift`; the texts
/// here are what `syncsim list invariants` and reports show.
public enum InvariantCatalog {
    public static func summary(_ id: InvariantID) -> String {
        switch id {
        case .convergence:
            return "after heal, every subscription shows exactly the server's answer to its query, and no write is left pending (except ones the user was told were rejected)"
        case .disjointFieldMerge:
            return "concurrent edits of different fields of one entity all survive: no field is overwritten by a write that targeted other fields"
        case .lwwConvergence:
            return "each field ends at the value of the last write in the strategy's declared arbitration order (server arrival, client timestamp or HLC), computed by the oracle"
        case .noGhostDeletion:
            return "the server deletes an entity only if a user or the server-side writer asked to delete it"
        case .noResurrection:
            return "once a deletion is applied on the server, the entity does not exist again (ids are never reused, so any reappearance is a resurrection)"
        case .typingConvergesToLastKeystroke:
            return "a typing burst that no other write raced ends at its last keystroke"
        case .noLostAcknowledgedWrite:
            return "every write a client accepted is in the end applied or reported to the user as rejected; a restart that loses queued writes is data loss"
        case .readYourWrites:
            return "right after a local write, the client's own subscriptions show it"
        case .noDuplicateApplication:
            return "a user's write takes effect on the server at most once, despite duplicates, retries and replays"
        case .queryOnceOfflineFails:
            return "queryOnce while the device is offline fails at once with the offline error and never returns a (stale) result as fresh"
        case .cachedSubscriptionOffline:
            return "with persistence on, subscribing offline to a query seen before yields the cached result at once"
        case .noReconnectWhileOffline:
            return "no connection attempt is made while the device reports it is offline"
        case .nestedSubscriptionReyields:
            return "a local change to a child entity in a subscription's result tree makes that subscription yield"
        case .queueCapNoSilentDrop:
            return "at the queue cap a new write is refused with a visible error (or accepted); nothing queued is silently dropped"
        case .liveness:
            return "after heal the run settles (nothing in flight, nothing pending, views equal to the server) within the virtual-time and event bounds"
        }
    }
}
