/// `conflictPrompt`: the sideBar iOS app's offline write queue (seed 003, "Offline-First Data +
/// Sync Plan (iOS)"; strategy-semantics.md "sideBar write queue"), over independent REST
/// requests (`.datagram`: each may be lost, duplicated or reordered).
///
/// | rule | seed 003 section |
/// |---|---|
/// | a write is applied locally at once (optimistic overlay) and appended to a durable queue | "Data Flow": apply locally → enqueue write → mark pending |
/// | the queue is durable whether or not the app enabled `persistence`: it is the Core Data `PendingWrite` entity, which the seed has no switch for; the offline list snapshots (`OfflineEntry`, "non-expiring") are durable too | "Layers" 3–4, "1) Persistence + Offline Cache" |
/// | each queued write records the server `modified` of every entity it touches, from the client's cached server copy, at enqueue time (unknown entity: no snapshot, unconditional write) | "Data Flow": conflict trigger; "2) Sync State + Conflict Types" |
/// | the queue is replayed in order, one request at a time, when online; offline = device offline *or* server unreachable (a request timed out and nothing has answered since) | "Data Flow": reconnect → process queue in order; `ConnectivityMonitor.isOffline` |
/// | requests are retried on timeout (2 s, +1 s per failure, at most 6 s) under the same idempotency key | "Current Progress": retry/backoff; "Backend Detail" 4 |
/// | before applying, the server compares its `modified` with the snapshot; a mismatch (a version mismatch) is a conflict: the queue pauses and the user is prompted | "Data Flow", "Conflict rules (shared)": pause until resolved; "Backend Detail" 1 (`client_updated_at` / `expected_version` / If-Match) |
/// | the conflict rule is chosen per entity type (`CPConflictRule`, by namespace name): notes `modified`, websites `updated_at`, todos `client_updated_at`, any other type `expected_version` — the same server-side version check under four names | "Comparison rules"; "2) Conflict rules" |
/// | files: no version; the row keeps a snapshot of the file's fields at enqueue and, before its first send (after the lists fetched on reconnect have answered), the client compares it with its newest server copy; any difference opens the prompt without a request (`ConflictPromptFiles`) | "Files: compare current server fields … to snapshot"; "compare against the latest `/files` response before applying queued writes" |
/// | tasks: the consecutive task rows at the head of the queue go to `/tasks/sync` in one request with `last_sync`; the server judges them in order and stops at the first stale `client_updated_at`, reported as the conflict; the answer carries the tasks changed since `last_sync` and `serverUpdatedSince`, kept durably as the next `last_sync` (`ConflictPromptTaskSync`) | Phase 3: "`/tasks/sync` returns conflicts when `client_updated_at` is stale and updates `serverUpdatedSince`"; "Tasks: rely on `TaskSyncResponse.conflicts`" |
/// | the 409 carries the server's snapshot (its version and record); the client keeps it as its newest copy of the entity, and the prompt shows it beside the snapshot the row was based on (a notice, then `conflictRaised`) | "Backend Detail" 1: "409 Conflict with a structured payload (server snapshot + reason)"; "Store server snapshot in conflict payload to avoid re-fetch loops"; `SyncConflict` local/server/reason |
/// | keep local → the write is replayed forced; keep server → it is dropped, the user is told (`conflictDiscarded`) and the lists are re-fetched | "Conflict rules": resolution chooses server/local and replays if needed |
/// | merge → text fields the row sets on the conflicting entity become the server's text followed by the local one (kept whole when one extends the other); other fields and steps keep local; the merged row is replayed forced, and lists show the merged text once it is applied | "Open Questions": "provide 'merge' only for text content; other fields use choose-server/choose-local" |
/// | a 409 is not final: if the final answer (applied / refused, remembered by the server under the key) for another copy of the request arrives while the prompt is open, it decides the row for every write it carries, the prompt is closed, the queue moves on, and the user's later answer is ignored | "Conflict rules": pause *until resolved*; "Backend Detail" 4 (interpretation: datagrams duplicate) |
/// | after the client's own write is applied, later rows for that entity are rebased onto the new `modified` (they are not conflicts with the user's own edits) | "Phase 1": coalescing, "No regression in … conflict behavior" (interpretation) |
/// | consecutive updates of one entity coalesce into the last unsent row; the server lists every coalesced write id in one transaction | "Phase 1 Acceptance": "preserves note update coalescing" |
/// | at `queueCap` (default 200) rows a new write is refused with a visible error (`queueFull`); nothing queued is dropped by the strategy | "3) Write Queue Expansion": queue overflow policy "block enqueue with a user-visible error" |
/// | the user's "Drop oldest" (`dropOldestWrite`) prunes the oldest row never sent (a sent row may still apply, so it is never dropped) and tells each of its writes rejected (`queueFull`) after a notice; the retry is the user's next write | "Queue overflow policy": "Allow user-initiated 'Drop oldest' action to prune and retry enqueue"; `pruneOldestWrites(keeping:)` "call only after user confirms" |
/// | deleting an entity the server already deleted succeeds (tombstone); updating, linking to or re-creating a tombstoned entity is refused | "Delete ops"; "Backend Detail" 5 |
/// | every write carries an idempotency key (its first write id; a sent row never changes): a retried or duplicated request is applied at most once | "Backend Detail" 4 (creates; extended to every write because datagrams duplicate) |
/// | realtime: the server pushes changed lists; for an entity with a pending row the pushed record is not applied over it (the old server copy is held) until the row leaves the queue, and each such row gets a visible conflict mark once (a notice naming the writes and the server's `modified`) | "Data Flow": "apply only if no local pending; otherwise mark conflict"; `SyncState.conflict`; "Realtime Interaction" |
/// | lists show the offline snapshot at once (also offline, after a restart), then the server's answer, with confirmed-but-unseen and pending writes overlaid; lists are re-fetched on reconnect, when the queue drains and every 5 s | "Data Flow": on app start, on reconnect; "6) Sync coordinator" periodic refresh |
/// | `queryOnce` while offline (device or server) fails at once with the offline error, carrying the offline snapshot of that query (the last server answer) when there is one | `ConnectivityMonitor.isOffline`; chat/offline "shows offline error" |
/// | `forceSync` is reported as invalid input: the seed has no forced sync | — |
/// | the story (`.note`, only when a story is kept) says why: coalescing, a blocked enqueue at the cap, each 409 and its rule, a held realtime change, each answer to a prompt | — |
/// | one local store per user (`Tenancy.databasePerTenant`): a user change opens that user's store, a logout drops it | seed 003 "Persist `last_sync` ... in `OfflineStore` (per user)" |
///
/// **Contract.** Arbitration: server arrival order (the server applies patches in the order
/// requests arrive; a forced write wins by arriving last). Promises: convergence, disjoint-field
/// merge, LWW convergence, no ghost deletion, no resurrection (tombstones), no lost acknowledged
/// write (the queue is always durable), read-your-writes, no duplicate application (idempotency
/// keys), `queryOnce` offline failure, cached subscription offline, no reconnect while offline
/// (it never connects), nested re-yield, queue cap without silent drop, liveness; what the user
/// is told is true (idempotency keys, tombstones), no phantom write, session order (one ordered
/// queue, paused on a conflict), timely feedback, link integrity, no request while offline.
/// Not promised: monotonic reads (each query keeps its own cached result, so a screen opened
/// later can show an older snapshot than another screen already showed).
/// lwwConvergence is claimed when the user does not merge conflicts (`conflictsNotMerged`): a
/// merged text (`Scenarios/conflicts/merge-choice.json`) is a value nobody wrote, so the last
/// writer does not win, by the user's choice.
/// Not promised: typing converges to the last keystroke. An edit queued offline *before* a burst
/// started elsewhere conflicts with it on replay, and if its user answers "keep local" the forced
/// write lands last and wins; that is the prompt doing its job, but the oracle only counts writes
/// made after the burst started as racing it.
public struct ConflictPromptStrategy: SyncStrategy {
    public typealias Client = ConflictPromptClient
    public typealias Server = ConflictPromptServer

    public init() {}

    public var info: StrategyInfo {
        StrategyInfo(
            name: "conflictPrompt",
            summary: "sideBar iOS write queue: durable ordered REST replay, modified-snapshot conflicts prompt the user with the server version (keep local, keep server, merge text), realtime changes marked as conflicts, coalescing, cap with user-initiated drop oldest, tombstones, idempotency keys",
            contract: [.convergence, .disjointFieldMerge, .noGhostDeletion, .noResurrection,
                       .noLostAcknowledgedWrite, .readYourWrites,
                       .noDuplicateApplication, .queryOnceOfflineFails, .cachedSubscriptionOffline,
                       .noReconnectWhileOffline, .nestedSubscriptionReyields, .queueCapNoSilentDrop, .liveness,
                       .toldOutcomeIsTrue, .noPhantomWrite, .neverRevertOwnWrite, .clientWriteOrder, .timelyFeedback,
                       .linkIntegrity, .noRequestWhileOffline, .tenantIsolation],
            arbitration: .serverArrival,
            conditionalContract: [ConditionalClaim(.lwwConvergence, .conflictsNotMerged)])
    }

    public var transport: Transport { .datagram }

    public func makeClient(_ context: ClientContext, restoring durable: ConflictPromptClient.Durable?) -> ConflictPromptClient {
        ConflictPromptClient(context: context, restoring: durable)
    }

    public func makeServer(_ context: ServerContext) -> ConflictPromptServer {
        ConflictPromptServer(clients: context.clientCount, schema: context.schema)
    }
}
