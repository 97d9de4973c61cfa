/// `pushPull`: a WatermelonDB-style push/pull engine as designed by seed 004 ("Offline-First
/// Architecture Design"), on WatermelonDB's sync mechanics (Nozbe/WatermelonDB src/sync/impl/).
///
/// | rule | source |
/// |---|---|
/// | local rows carry `_status` (synced/created/updated/deleted) and `_changed` (columns really changed locally, tracked for created rows too) | WatermelonDB `RawRecord` `setRawColumnChange`; semantics §1 |
/// | a local delete leaves a tombstone until the server confirms it | WatermelonDB `markAsDeleted`, `fetchLocal.js`; seed 004 §6.2 (soft delete) |
/// | new rows get a time-ordered client id (ms + random bits from the seeded stream); the server maps it to a server id; logical `EntityID`s stay the only ids oracles see | seed 004 §6.1, §6.4 |
/// | every local change stamps the row's `updatedAt` with the client clock (skew included) | seed 004 §6.2 `updatedAt: Date.now()` |
/// | every write enqueues one `operation_queue` row per entity (pending → sending → success/failed); failed rows are retried by the next sync; refused ones are removed | seed 004 §1.3 |
/// | a write removed without being applied is told "discarded" only if no push may have applied it; one that a push carried without an answer that it was not written (timeout, lost answer, crash before the answer was persisted, a refused push: the refusal may answer a network duplicate of an applied push), or with another row already applied, goes without a notice (a note in the story says why) | the model's own rule, so that what the user is told is true; WatermelonDB and seed 004 say nothing in these cases |
/// | sync triggers: app open, network regained, periodic (`syncIntervalMs`: 30 s by default so generated runs settle within the 120 s bound; seed 004's 5 minutes is `300000` in a file), the user's "sync now" (offline: a notice, the sync waits for the network), 500 ms after a local write, again at once if rows changed during a sync | seed 004 §2.2, §6.2 |
/// | one sync at a time: **pull** since `lastPulledAt`, apply in one step, **push** the full rows, mark pushed rows synced only if unchanged since pushed | WatermelonDB `synchronize.js`, `markAsSynced.js` (the default, `pushPullOrder` = `pullThenPush`) |
/// | with `pushPullOrder` = `pushThenPull`: **push** first, clear the successful queue rows, then **pull** and merge; the server judges each row and never refuses a whole push | seed 004 §2.1 "Sync Sequence", `SyncService` |
/// | push-then-pull merge of a pulled row into a locally changed one: server `updatedAt` newer → the server's row replaces it without a prompt; local newer → kept whole for the next push; equal with different data → stored and put to the user | seed 004 §5.1, §5.2 `mergeRecords` → `detectConflict` → `ConflictStore` (synced rows simply take the pulled row: the model's reading, as a synced row has nothing to conflict) |
/// | applying a remote row: a synced row takes it; a locally changed row keeps its changed columns and stays unsynced; a tombstone ignores it; a remote delete destroys the row even with local edits (their writes are reported rejected) | WatermelonDB `applyRemote.js`, `helpers.js` `resolveConflict` |
/// | the server refuses a whole push if a pushed row changed after `lastPulledAt`; the client retries the whole sync | WatermelonDB docs "Sync backend"; semantics §4 |
/// | per pushed row: server `updatedAt` newer → server wins without a prompt (the local row is replaced); pushed newer → the full row is written; equal with different data → conflict prompt | seed 004 §5.1 "auto safe", §5.2 (conflict resolution follows seed 004, not WatermelonDB's per-column merge on the server) |
/// | conflict answer "keep local" force-pushes the row; "keep server" takes the server's row | seed 004 §5.3 `resolveConflict` |
/// | force from server: skip push, pull everything, replace the local DB, drop the queue (reported) | seed 004 §3.1 |
/// | force push: every locally changed row is pushed past the server's checks (after the usual pull) | seed 004 §3.2 (pull-first, as WatermelonDB's loop) |
/// | a push goes in batches of at most `pushBatchSize` rows (default: one batch), each sent once the previous one is answered and its rows cleared; with several batches the rows are grouped by type, link targets' types first | seed 004 §2.1 "group by entity, batch max 100", `pushLocalMutations` |
/// | a pull reads pages of at most `pullPageSize` rows (default: one page); while the answer says `hasMore` the client pulls again from the page's cursor, and `lastPulledAt` is stored (persisted) after every page | seed 004 `pullRemoteChanges` (`hasMore` → pull again), `SyncState.update` per response |
/// | a drop between batches or pages: answered batches stay cleared, the batch in flight is pushed again by the next sync (the server maps it by client id: unchanged, no second row), rows not yet sent wait; the next pull resumes from the last page's cursor | seed 004 testing matrix "Network flakiness … no duplicates", "App killed during sync … resume" |
/// | the server answers each created row with its server id; the client records it next to its client id | seed 004 §6.1 "Server ID mapping", `updateLocalRecords` |
/// | per-entity-type `sync_state` (`lastSyncAt` per type) and `versionHash` are not modelled: one `lastPulledAt` covers every type, pulled in one stream. Per-type cursors would change when rows of different types appear, not which rows arrive or what they hold (each cursor resumes where it stopped), and no step of seed 004 reads `versionHash` (§5.2 `detectConflict` compares `updatedAt`) | seed 004 §1.4 (the model's reading) |
/// | failed syncs back off exponentially (1 s … 30 s, jitter) | seed 004 §1.3 "exponential backoff" |
/// | subscriptions evaluate their query over the local DB and yield on change; `queryOnce` answers from the local DB online and fails with the offline error offline | WatermelonDB `Query.observe`/`fetch`; seed 000 contract for `queryOnce` |
/// | with persistence off the database is in memory (LokiJS without persistence): a restart loses it | WatermelonDB `LokiJSAdapter` |
/// | at the queue cap a new write is refused with `queueFull` | seed 004 §1.3 (a bounded queue; cap from the options) |
/// | story notes (only when the run keeps a story): each pull and push phase, backoff waits, rows resolved by timestamp, conflicts stored, writes dropped and why | — (explanation, not behaviour) |
/// | one local database per tenant: a switch opens the tenant's database, a logout drops it with its queue (`Tenancy.databasePerTenant`, carried out by the simulator); a tenant's server is its own | seed 004 §1.1 (`getDatabaseForTenant`, "Initialize new DB instance when switching tenants"), §4.1 `dropTenantDatabase` |
///
/// Where seed 004 and WatermelonDB differ: conflict resolution follows seed 004 (record-level
/// `updatedAt`, newer wins, equal → the user); the sync loop follows WatermelonDB by default
/// (pull → push → mark synced, server refusal on changes after `lastPulledAt`, full rows pushed)
/// and seed 004 with `pushPullOrder` = `pushThenPull` (push → pull → merge with client-side
/// conflict detection).
///
/// **Contract.** Arbitration: `.recordTimestamp` (record-level `updatedAt` from the client clock:
/// the newest row wins whole; forced pushes and back-office writes apply over any stamp).
/// Promises: convergence, noGhostDeletion, noResurrection (server tombstones),
/// readYourWrites, cachedSubscriptionOffline, noReconnectWhileOffline,
/// nestedSubscriptionReyields, queueCapNoSilentDrop, liveness, noPhantomWrite, monotonicReads
/// (one local database, pulled forward only), linkIntegrity, noRequestWhileOffline, and
/// lwwConvergence under that record rule (claimed once the server set links to rows created
/// later in the same push: before, it dropped them, post#14 → profile#15 in seed 76),
/// noDuplicateRows (a create pushed again for a client id the server has is the same row; the
/// option `pushPullIdempotentCreates` = false breaks this on purpose).
/// Not promised: disjointFieldMerge
/// (full rows with one timestamp per row: the newest row overwrites concurrent edits of other
/// columns), typingConvergesToLastKeystroke (a row with a newer timestamp from
/// another column's edit makes the burst's row lose), noDuplicateApplication (no idempotency
/// key: a row re-pushed after a lost answer is written again with its writes),
/// noLostAcknowledgedWrite (with persistence off a restart loses the queue), toldOutcomeIsTrue
/// (force-from-server reports a write "discarded" that a push already applied),
/// neverRevertOwnWrite (a write that sets a column to its current value does not mark it
/// changed, so a pull overwrites it while the write is pending), clientWriteOrder (a push is
/// judged per record: a conflicted record is applied later, after records written after it; and
/// a push of several batches goes in type and id order, not write order — 177 of 300 generated
/// runs with `WorkloadGenerator.Config.bulk`, against 9 with one batch),
/// timelyFeedback (failed syncs back off up to 30 s, and a datagram client whose device stayed
/// online gets no "network regained" trigger when the server becomes reachable again: after an
/// outage a pending write can wait silently on that timer for longer than the 20 s bound, e.g.
/// seed 28, where A's write waits from heal at 69.8 s to the next attempt at 90 s),
/// queryOnceOfflineFails (offline it fails at once, but online it answers from the local
/// database with no round trip, also while the server cannot be reached: a possibly stale
/// result presented as fresh, which the widened oracle flags; WatermelonDB's `fetch` reads the
/// local database by design, so the claim, not the model, was wrong).
public struct PushPullStrategy: SyncStrategy {
    public typealias Client = PushPullClient
    public typealias Server = PushPullServer

    public init() {}

    public var info: StrategyInfo {
        StrategyInfo(
            name: "pushPull",
            summary: "WatermelonDB-style pull/push of full rows with record-level client timestamps (seed 004)",
            contract: [.convergence, .noGhostDeletion, .noResurrection, .readYourWrites,
                       .cachedSubscriptionOffline, .noReconnectWhileOffline, .nestedSubscriptionReyields,
                       .queueCapNoSilentDrop, .liveness, .noPhantomWrite, .monotonicReads,
                       .linkIntegrity, .noRequestWhileOffline, .lwwConvergence, .noDuplicateRows,
                       .tenantIsolation],
            arbitration: .recordTimestamp)
    }

    public var transport: Transport { .datagram }

    public func makeClient(_ context: ClientContext, restoring durable: PushPullClient.Durable?) -> PushPullClient {
        PushPullClient(context: context, restoring: durable)
    }

    public func makeServer(_ context: ServerContext) -> PushPullServer {
        PushPullServer(schema: context.schema, order: context.options.pushPullOrder, pageSize: context.options.pullPageSize,
                       idempotentCreates: context.options.pushPullIdempotentCreates)
    }
}
