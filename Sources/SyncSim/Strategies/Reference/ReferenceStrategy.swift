/// `reference`: the control strategy — what a sync engine that keeps every promise looks like.
///
/// | Rule | Why |
/// |------|-----|
/// | Every field (and link) is a last-writer-wins register ordered by hybrid logical clocks: (physical = the writer's clock, skew included; logical counter; node id). | Concurrent edits of different fields all survive (disjoint merge); edits of one field converge to one well-defined winner, whatever order the server receives them in. |
/// | A write is stamped once, when the user makes it; retries reuse the stamp. | A retry or a replay cannot jump ahead of a newer edit. |
/// | Every reply carries the highest stamp the server has seen or issued (client stamps, admin stamps — never the server's wall clock at reply time); the client's clock observes it. The server's clock observes every client stamp and stamps admin writes (physical = server time). | Causality first: an edit made after seeing another edit (a client's or an admin's) wins over it, even on a slow clock. Relaying stamps rather than the server's reading keeps client clocks from jumping to server time for no event. |
/// | Seed data (the server's data before anything happened) carries the lowest stamp. | It predates every edit. |
/// | Delete wins: a delete leaves a permanent tombstone and clears links to the entity; any later create, update or link of a tombstone (or to one) is refused and the writer is told `.writeRejected(.conflictDiscarded)`. A client refuses at once a write to an entity it already knows is deleted. | No resurrection; ids are never reused; the loser is told, never silently dropped. |
/// | Update of an unknown (never deleted) entity is an upsert; create of an existing one merges field-wise. | A create and an edit racing from two devices both survive. |
/// | Writes are atomic: all steps or none. | The user's intent is one unit. |
/// | The server remembers each WriteID's outcome; a duplicate is answered again, never re-applied; one write is one transaction. | Idempotency over an at-least-once network. |
/// | The queue and the clock are always persisted, whatever the persistence flag; the replica (query cache) only when persistence is on. | Nothing acknowledged is lost across restarts; the cache follows the app's choice. |
/// | Write-ahead: a step's persist comes before its sends and events (`Outbox.insert(_:at:)`). | A crash right after a send or in the middle of applying a reply (`crash` faults) loses nothing sent and takes back nothing shown. |
/// | Subscriptions read the replica with pending writes laid over it and yield at once on any change (nested children included), from cache while offline. | Read-your-writes, nested re-yield, cached subscriptions offline. |
/// | `queryOnce` offline fails at once (`offline: true`); online it answers after a fresh round trip. | A stale result is never passed off as fresh. |
/// | Transport `.datagram`: one idempotent `sync` request (push a queue prefix, pull changes since the replica's version), retried every 1.5 s until answered; the server pokes clients after each change; clients also poll every 3 s. | Robust to drop, duplication and reordering; converges after heal without any connection state. |
/// | At the queue cap a new write is refused with `.writeRejected(.queueFull)`. | Bounded memory with a visible error, nothing dropped. |
/// | No conflicts are ever raised; `resolveConflict` is invalid input; `forceSync` just syncs now. | LWW with tombstones needs no prompt. |
/// | One local database per tenant (`Tenancy.databasePerTenant`): a switch opens the tenant's own, a logout drops it. | Isolation by construction: nothing of one tenant is ever in another's database. |
///
/// **Contract.** Arbitration: hybrid logical clock. Promises every invariant in `InvariantID`.
public struct ReferenceStrategy: SyncStrategy {
    public typealias Client = ReferenceClient
    public typealias Server = ReferenceServer

    public init() {}

    public var info: StrategyInfo {
        StrategyInfo(
            name: "reference",
            summary: "the control: HLC per-field LWW, tombstones, idempotent durable queue, query cache, datagram retries",
            contract: Set(InvariantID.allCases),
            arbitration: .hybridLogicalClock)
    }

    public var transport: Transport { .datagram }

    public func makeClient(_ context: ClientContext, restoring durable: ReferenceClient.Durable?) -> ReferenceClient {
        ReferenceClient(context: context, restoring: durable)
    }

    public func makeServer(_ context: ServerContext) -> ReferenceServer {
        ReferenceServer(clients: context.clientCount, schema: context.schema)
    }
}
