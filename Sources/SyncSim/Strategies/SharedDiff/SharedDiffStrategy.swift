/// `sharedDiff` (known-bad): SharingInstant's `@Shared` layer over InstantDB (seed 001). The app
/// mutates collections; `save()` works out what changed by diffing a collection against the
/// server state it tracks, instead of recording what the user did.
///
/// | rule | source |
/// |---|---|
/// | each subscription is a collection holding its last result; filtered queries and entities reached through a link (`posts with author` sees only profiles that author a post) are partial | seed 001 §"Problem 1" (two `@Shared` of profiles), §Unknown unknowns 2 "Partial Subscription Results" |
/// | a user write mutates the collections at once (every collection that shows, or should show, the entity) | seed 001 §"Problem 2" (`$profiles.withLock { $0.insert(…) }`) |
/// | the write may only touch an element of a collection the app holds (or insert into a collection of its namespace); otherwise it is refused at once | `@Shared` API shape (seed 001 §"Problem 2"): there is no write path except a collection |
/// | then `save()` runs for *every* collection holding a namespace the write touches, each in its own task a few ms later (2–40 ms by default, drawn from the client's stream; `saveDelayMinMs`/`saveDelayMaxMs` set the range, equal bounds pin the race in a file), so saves race | seed 001 §"Problem 1" "Both trigger save() at nearly the same time"; §Evidence "Two saves … milliseconds apart" |
/// | `save()` diffs the collection's ids of the namespace against one tracked server id set per namespace, shared by all collections, filled from server answers; ids missing from the collection are sent as deletes | seed 001 §"Problem 1" computeDiff; §Option A `StateTracker.serverStateByKey`, "Multiple subscriptions share the same StateTracker" |
/// | every element present is sent as a full entity with the collection's (possibly stale) values, as instaml `update` (an upsert) | seed 001 §"Why @Shared is Problematic" table: "Full state snapshots", "Entire collection"; §Symptoms 2 "deleted items reappear" |
/// | linked entities are traversed and re-sent: post → author → the author's posts in the collection; with `sharedDiffTraverseKnown`, through every entity the client's collections show (the author's whole `posts` array, and on the blog schema their comments and the comments' authors), each entity once per save so a link cycle ends (the seed leaves open how its `traverse()` ends one) | seed 001 §"Problem 3" `traverse()` steps 1–6; §Evidence "isTopLevel: false"; §Unknown unknowns 3 "infinite loops" |
/// | a save is one all-or-nothing transaction; with `sharedDiffAtomicSaves` off, one transaction per operation, so some apply while others are refused; each carries the writes whose operation it sends | seed 001 §Unknown unknowns 4 "operations that might partially succeed" |
/// | filtered, limited and nested (include tree) collections are partial; an entity pushed out of a limited collection is deleted by its save | seed 001 §Unknown unknowns 2 "filters or limits", 3 |
/// | a save carries the user writes it reflects; a delete computed by the diff carries none | harness rule: the oracles judge traffic by the intents it carries |
/// | otherwise as `instant`: save transactions are Reactor pending mutations (order, send when authenticated, timeout, replay on init-ok, removed once every query has seen their tx), collections refresh from the server with the pending overlay, `queryOnce` offline fails, cache and queue durable with persistence | `InstantClient` (Reactor.js `pushOps`, `_applyOptimisticUpdates`, `_flushPendingMessages`); server: `InstantServer` |
/// | a user change clears the collections' values, the cached results, unsaved writes and the queue (`Tenancy.oneDatabase`) | the Reactor's rule (semantics §10), `SharedDiffClient+Tenants.swift` |
///
/// A full-entity snapshot sends a set link as an id and a link its server answer had and the
/// collection no longer has as an unlink. Both seed behaviours of Problem 3 and Unknown unknowns 4
/// are options, off by default so runs stay comparable: by default saves are atomic and
/// traversal stops at what the collection shows (the seed follows the author's whole `posts`
/// array). Non-atomic pieces are all sent at once, so another client's transaction lands between
/// them only through latency jitter (the seed does not say whether its operations are awaited
/// one by one).
///
/// **Contract.** Arbitration: server arrival order (InstantDB's server). It promises only what
/// the Reactor machinery underneath still gives it: convergence (every collection ends equal to
/// the server's answer, however wrong that data is: a server answer never triggers a save, so
/// nothing loops), read-your-writes (collections change at once), nested re-yield, `queryOnce`
/// offline failure, cached subscriptions offline, no reconnect while offline, liveness, and what
/// the Reactor's queue and server give it: never reverting a pending write, timely feedback,
/// link integrity, no request while offline.
/// Not promised, and expected to fail: no ghost deletion (a partial collection deletes what it
/// does not see), no resurrection (a stale collection upserts deleted elements), disjoint-field
/// merge, LWW convergence and typing (stale full entities and traversed children overwrite newer
/// values), no duplicate application (two collections both send the write), nothing
/// acknowledged lost (a write no save reflects is dropped silently; with persistence off a
/// restart loses the queue, as for `instant`).
public struct SharedDiffStrategy: SyncStrategy {
    public typealias Client = SharedDiffClient
    public typealias Server = InstantServer

    public init() {}

    public var info: StrategyInfo {
        StrategyInfo(
            name: "sharedDiff",
            summary: "SharingInstant @Shared: saves diff each collection against tracked server ids; partial views delete, stale views re-send",
            contract: [.convergence, .readYourWrites, .nestedSubscriptionReyields, .queryOnceOfflineFails,
                       .cachedSubscriptionOffline, .noReconnectWhileOffline, .liveness,
                       .neverRevertOwnWrite, .timelyFeedback, .linkIntegrity, .noRequestWhileOffline, .tenantIsolation],
            arbitration: .serverArrival, knownBad: true)
    }

    public var transport: Transport { .stream }
    /// InstantDB's Reactor underneath: one local store per app (`SharedDiffClient+Tenants.swift`).
    public var tenancy: Tenancy { .oneDatabase }

    public func makeClient(_ context: ClientContext, restoring durable: SharedDiffClient.Durable?) -> SharedDiffClient {
        SharedDiffClient(context: context, restoring: durable)
    }

    public func makeServer(_ context: ServerContext) -> InstantServer {
        InstantServer(clients: context.clientCount, schema: context.schema)
    }
}
