/// `instant`: InstantDB's Reactor client and server (seed 000, seed 002).
///
/// **Contract.** Arbitration: server arrival order (the server stamps each transaction; the last
/// applied write per field wins). Promises: convergence, disjoint-field merge (patch updates),
/// LWW convergence in arrival order, no ghost deletion, rapid typing ends at the last keystroke,
/// read-your-writes, nested re-yield, `queryOnce` offline failure, cached subscriptions offline,
/// no reconnect while offline, nothing acknowledged lost (a restart with persistence off loses
/// the queue, which the invariants report as the data loss it is).
/// Not promised: no duplicate application (delivery is at least once; the server does not dedup
/// by event id); no resurrection (an update of an entity in no cached store is an upsert, and the
/// admin SDK upserts too: after a delete either one recreates a partial entity, semantics §12);
/// no queue cap.
public struct InstantStrategy: SyncStrategy {
    public typealias Client = InstantClient
    public typealias Server = InstantServer

    public init() {}

    public var info: StrategyInfo {
        StrategyInfo(
            name: "instant",
            summary: "InstantDB Reactor: durable pending mutations, patch updates, server-ordered per-field LWW",
            contract: [.convergence, .disjointFieldMerge, .lwwConvergence, .noGhostDeletion,
                       .typingConvergesToLastKeystroke, .readYourWrites, .queryOnceOfflineFails,
                       .cachedSubscriptionOffline, .noReconnectWhileOffline, .nestedSubscriptionReyields, .liveness],
            arbitration: .serverArrival)
    }

    public var transport: Transport { .stream }

    public func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> InstantClient {
        InstantClient(context: context, fullEntity: false, restoring: durable)
    }

    public func makeServer(_ context: ServerContext) -> InstantServer {
        InstantServer(clients: context.clientCount, schema: context.schema)
    }
}
