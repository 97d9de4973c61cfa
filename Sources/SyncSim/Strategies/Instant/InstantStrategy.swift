/// `instant`: InstantDB's Reactor client and server (seed 000, seed 002).
///
/// **Contract.** Arbitration: server arrival order (the server stamps each transaction; the last
/// applied write per field wins). Promises: convergence, disjoint-field merge (patch updates),
/// LWW convergence in arrival order, no ghost deletion, read-your-writes, nested re-yield,
/// `queryOnce` offline failure, cached subscriptions offline, no reconnect while offline, no
/// request while offline, no phantom write (a refused mutation is removed and its queries
/// re-notified, semantics §7), never reverting its own pending write (the overlay, §5), timely
/// feedback, link integrity (a link to a missing target refuses the transaction).
/// Not promised: no duplicate application (delivery is at least once; the server does not dedup
/// by event id); no resurrection (an update of an entity in no cached store is an upsert, and the
/// admin SDK upserts too: after a delete either one recreates a partial entity, semantics §12);
/// no queue cap; nothing acknowledged lost when persistence is off (a restart then loses the
/// queue) — with persistence on it is promised (a conditional claim: the pending queue is
/// persisted, semantics §10);
/// typing converges to the last keystroke — at-least-once delivery re-applies a replayed prefix
/// of a burst after its last keystroke when a connection resets mid-replay (seeds 22944, 46154,
/// 64185), as InstantDB's Reactor would (§3: no dedup); `toldOutcomeIsTrue` (a retried create
/// already committed is answered "already exists" and reported failed; and a replayed mutation's
/// first send timeout, which Reactor never cancels, rejects it while the replay is in flight and
/// the replay then commits: `Scenarios/sync/instant-timeout-rejects-replayed-write.json`); `clientWriteOrder` (a
/// mutation refused at first, whose error is lost, is replayed and applied after later ones);
/// `monotonicReads` (a new subscription's cached result can be older than what another showed).
///
/// **Options.** `instantCombineTransacts` (off by default, as InstantDB's `combine-transacts?`
/// flag): the server combines a session's queued same-field transacts (`InstantTransactQueue`,
/// session.clj `combine-transact`, `matching-steps?`); the earlier ones are acknowledged and never
/// applied, and the log names them superseded, so the contract is unchanged
/// (`Scenarios/sync/instant-server-combines-rapid-typing.json`). What emerges: a combined write
/// whose acknowledgement is lost is replayed alone and can then be applied after the write that
/// superseded it (`clientWriteOrder`, not claimed: at-least-once delivery; seed 6 with the option
/// on, where w1 "Sh" lands in tx 19 after w6 "Ship it" in tx 3).
public struct InstantStrategy: SyncStrategy {
    public typealias Client = InstantClient
    public typealias Server = InstantServer

    public init() {}

    public var info: StrategyInfo {
        StrategyInfo(
            name: "instant",
            summary: "InstantDB Reactor: durable pending mutations, patch updates, server-ordered per-field LWW",
            contract: [.convergence, .disjointFieldMerge, .lwwConvergence, .noGhostDeletion,
                       .readYourWrites, .queryOnceOfflineFails,
                       .cachedSubscriptionOffline, .noReconnectWhileOffline, .nestedSubscriptionReyields, .liveness,
                       .noPhantomWrite, .neverRevertOwnWrite, .timelyFeedback, .linkIntegrity, .noRequestWhileOffline,
                       .tenantIsolation],
            arbitration: .serverArrival,
            conditionalContract: [ConditionalClaim(.noLostAcknowledgedWrite, .persistenceOn)])
    }

    public var transport: Transport { .stream }
    /// One local store per app; a user change clears cache and queue (`InstantClient+Tenants.swift`).
    public var tenancy: Tenancy { .oneDatabase }

    public func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> InstantClient {
        InstantClient(context: context, fullEntity: false, restoring: durable)
    }

    public func makeServer(_ context: ServerContext) -> InstantServer {
        InstantServer(clients: context.clientCount, schema: context.schema,
                      combineTransacts: context.options.instantCombineTransacts)
    }
}
