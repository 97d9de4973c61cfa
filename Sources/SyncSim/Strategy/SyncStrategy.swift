/// The public protocol a sync engine implements to be simulated. Built-in strategies use only
/// this API, so a user's own strategy is a peer of theirs (see `Tests/SyncSimTests/Support`).
///
/// A strategy is a pair of pure state machines and their wire messages. The simulator is generic
/// over the strategy, so the hot loop calls concrete types: no existential boxing per event.

/// A message on the wire. `stableHash` feeds the trace hash, so it must be canonical (no
/// dictionaries, no `Hasher`); `kind` labels the arrow in sequence diagrams.
public protocol WireMessage: Hashable, Sendable, CustomStringConvertible, StableHashable {
    var kind: String { get }
    /// The user writes whose effect this message carries to the server (for coverage: a
    /// duplicated delivery of a mutation). Default: none.
    var carriedWrites: [WriteID] { get }
}

extension WireMessage {
    @inlinable public var carriedWrites: [WriteID] { [] }
}

/// How client and server talk.
public enum Transport: String, Sendable, Codable {
    /// A connection (WebSocket-like): `connect` first; FIFO within a connection; a network fault
    /// resets the connection instead of losing one message; nothing is duplicated by the network.
    case stream
    /// Independent requests (HTTP-like): each message may be dropped, duplicated or reordered.
    case datagram
}

/// How a strategy decides which of two concurrent writes to one field wins: the order the
/// `lwwConvergence` oracle computes independently.
public enum Arbitration: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The write the server applied last wins (InstantDB).
    case serverArrival
    /// The write with the later client timestamp wins (record- or field-level `updatedAt`).
    case clientTimestamp
    /// Hybrid logical clocks: causality first, then physical time, then node id.
    case hybridLogicalClock
    /// Record-level client timestamps (WatermelonDB / seed 004): the whole row with the newest
    /// `updatedAt` wins, and its full row overwrites every column; a forced push (the user chose
    /// "keep local") and the server's own writes apply over any timestamp.
    case recordTimestamp
    public var description: String { rawValue }

    /// Every rule's name, for help texts and error messages ("a, b, c or d"), derived from the cases
    /// so a new rule can never be left out of them.
    public static var namesForHumans: String {
        let names = allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}

/// A run option a claim can depend on: a strategy may promise an invariant only in the
/// configuration that is meant to keep it (durability with persistence on).
public enum ContractCondition: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The app enabled local persistence (`SimulationOptions.persistence`).
    case persistenceOn
    /// The simulated user does not answer conflict prompts with "merge"
    /// (`SimulationOptions.conflictPolicy` is not `.merge`): a merged value is one nobody wrote,
    /// so a strategy that merges on the user's word promises last-writer-wins only without it.
    case conflictsNotMerged

    /// Whether the condition holds for a run with these options.
    public func holds(in options: SimulationOptions) -> Bool {
        switch self {
        case .persistenceOn: return options.persistence
        case .conflictsNotMerged: return options.conflictPolicy != .merge
        }
    }

    /// How reports state it, after the invariant's name.
    public var description: String {
        switch self {
        case .persistenceOn: return "when persistence is on"
        case .conflictsNotMerged: return "when the user does not merge conflicts"
        }
    }
}

/// An invariant claimed only in runs whose options satisfy a condition. Its violation in such a
/// run is a contract failure; in any other run it is expected and only reported.
public struct ConditionalClaim: Hashable, Sendable {
    public var invariant: InvariantID
    public var condition: ContractCondition
    public init(_ invariant: InvariantID, _ condition: ContractCondition) {
        self.invariant = invariant
        self.condition = condition
    }
}

/// What a strategy says about itself: shown by `syncsim list strategies` and in reports.
public struct StrategyInfo: Sendable {
    public var name: String
    public var summary: String
    /// The invariants the strategy promises to hold. A violation of one of these is a contract
    /// failure (exit 1); a violation of any other is expected and only reported.
    public var contract: Set<InvariantID>
    public var arbitration: Arbitration
    /// Known-bad strategies exist to be caught; reports mark them.
    public var knownBad: Bool
    /// Invariants claimed only under a condition on the run's options (e.g. `instant` promises
    /// `noLostAcknowledgedWrite` when persistence is on). An invariant in `contract` is claimed
    /// in every run whatever this says.
    public var conditionalContract: [ConditionalClaim]

    public init(name: String, summary: String, contract: Set<InvariantID>, arbitration: Arbitration, knownBad: Bool = false,
                conditionalContract: [ConditionalClaim] = []) {
        self.name = name
        self.summary = summary
        self.contract = contract
        self.arbitration = arbitration
        self.knownBad = knownBad
        self.conditionalContract = conditionalContract
    }

    /// Whether the strategy claims `invariant` in a run with these options: unconditionally, or
    /// by a conditional claim whose condition holds.
    public func claims(_ invariant: InvariantID, under options: SimulationOptions) -> Bool {
        contract.contains(invariant) || conditionalContract.contains { $0.invariant == invariant && $0.condition.holds(in: options) }
    }
}

/// What a client machine is told when it is created.
public struct ClientContext: Sendable {
    public var id: ClientID
    /// The data model of the run (the schedule's schema): the fields, kinds and links the
    /// client's records, validation and views follow.
    public var schema: Schema
    public var clientCount: Int
    /// Whether the app enabled local persistence (seed 000: query cache and pending queue are
    /// durable only when it is on).
    public var persistence: Bool
    public var queueCap: Int
    /// This client's own random stream (event ids, client-generated ids). Forked per incarnation,
    /// so a restart does not replay the same ids.
    public var random: SimRandom
    /// Restarts so far (0 for the first launch).
    public var incarnation: Int
    public var options: StrategyOptions
    /// Whether the run keeps a story: only then are `.note` effects shown, so only then is it
    /// worth building their text.
    public var tracesNotes = false

    /// The memberwise initialiser, spelled out to be `@usableFromInline` (the simulator is `@inlinable`).
    @usableFromInline
    init(id: ClientID, schema: Schema, clientCount: Int, persistence: Bool, queueCap: Int, random: SimRandom,
         incarnation: Int, options: StrategyOptions) {
        self.id = id
        self.schema = schema
        self.clientCount = clientCount
        self.persistence = persistence
        self.queueCap = queueCap
        self.random = random
        self.incarnation = incarnation
        self.options = options
    }
}

public struct ServerContext: Sendable {
    /// The data model of the run (the schedule's schema).
    public var schema: Schema
    public var clientCount: Int
    public var random: SimRandom
    public var options: StrategyOptions
    /// Whether the run keeps a story (see `ClientContext.tracesNotes`).
    public var tracesNotes = false

    /// The memberwise initialiser, spelled out to be `@usableFromInline` (the simulator is `@inlinable`).
    @usableFromInline
    init(schema: Schema, clientCount: Int, random: SimRandom, options: StrategyOptions) {
        self.schema = schema
        self.clientCount = clientCount
        self.random = random
        self.options = options
    }
}

/// Knobs a strategy may read; defaults follow the real systems.
public struct StrategyOptions: Sendable, Hashable, Codable {
    /// Instant's minimum send timeout (Reactor: 6 s).
    public var sendTimeoutMs: Int64 = 6_000
    /// Periodic sync interval for pull-based strategies.
    public var syncIntervalMs: Int64 = 30_000
    /// `sharedDiff`: the delay between a collection's change and its `save()` task, drawn per save
    /// from the client's stream in `saveDelayMinMs…saveDelayMaxMs`. Seed 001 says only that two
    /// saves land "milliseconds apart"; equal bounds pin the race so a scenario file can set it.
    public var saveDelayMinMs: Int64 = 2
    public var saveDelayMaxMs: Int64 = 40
    /// `pushPull`: WatermelonDB's pull-then-push loop (the default) or seed 004's push-then-pull
    /// with client-side conflict detection (see `PushPullOrder`).
    public var pushPullOrder: PushPullOrder = .pullThenPush
    /// `pushPull`: rows per push request (seed 004 §2.1 "batch max 100"). The default,
    /// `ScheduleLimits.syncBatchSizes`' upper bound, is more rows than any run has: one batch,
    /// as before batches existed.
    public var pushBatchSize = 100_000
    /// `pushPull`: rows (changed and deleted) per pull page; a fuller answer says `hasMore` and
    /// the client pulls again from the page's cursor (seed 004 `syncPullSpace(limit:)`, default
    /// 1,000 there). The default here is one page, as before pages existed.
    public var pullPageSize = 100_000
    /// `pushPull`'s server: a create pushed again for a client id it already has (a retry after
    /// a lost answer) is the same row (`true`, seed 004's "no duplicates" and WatermelonDB's
    /// backend rule); `false` models a server that inserts a second row, for `noDuplicateRows`
    /// to catch.
    public var pushPullIdempotentCreates = true
    /// `instant`/`fullEntity`: the server combines consecutive queued transacts of a session
    /// whose steps write the same fields of the same entities (InstantDB's `combine-transact`,
    /// behind its `combine-transacts?` flag): the latest is applied, the earlier ones are
    /// acknowledged with its tx id and never applied. Off by default, as the flag is.
    public var instantCombineTransacts = false
    /// `sharedDiff`: whether a save is one transaction (true, as InstantDB's `transact` of one
    /// chunk list) or each of its operations its own (false), so some may apply while others
    /// fail: seed 001 Unknown unknowns 4, "operations might partially succeed".
    public var sharedDiffAtomicSaves = true
    /// `sharedDiff`: whether a save's traversal follows links through every entity the client
    /// knows from any collection (true: seed 001 Problem 3, the embedded author's whole `posts`
    /// array) or only through what the saving collection shows (false, the default: today's
    /// model). Each entity is sent once per save, so a link cycle ends.
    public var sharedDiffTraverseKnown = false
    public init() {}
}

/// A client (device) state machine.
public protocol ClientMachine: Sendable {
    associatedtype Up: WireMessage
    associatedtype Down: WireMessage
    /// What survives a restart. The simulator stores it on every `.persist` effect and hands it
    /// back to `SyncStrategy.makeClient` after a crash.
    associatedtype Durable: Sendable

    mutating func handle(_ input: ClientInput<Down>, now: Int64, out: inout ClientOutbox<Up>)

    var durableState: Durable { get }

    // Observations (read by the oracles; they must not change state).

    /// What the user currently sees for a subscription; nil if it has yielded nothing yet.
    func result(of subscription: SubscriptionID) -> QueryResult?
    /// Writes accepted from the user that are not yet known to the server to be applied and have
    /// not been reported rejected (the "pending queue" as the user would understand it).
    var pendingWrites: [WriteID] { get }
    /// `pendingWrites.count`, without building the array (the simulator reads it after every
    /// client step). The default counts `pendingWrites`.
    var pendingWriteCount: Int { get }
}

extension ClientMachine {
    @inlinable public var pendingWriteCount: Int { pendingWrites.count }
}

extension SyncStrategy {
    public var schema: Schema { .default }
}

/// The server state machine.
public protocol ServerMachine: Sendable {
    associatedtype Up: WireMessage
    associatedtype Down: WireMessage

    mutating func handle(_ input: ServerInput<Up>, now: Int64, out: inout ServerOutbox<Down>)

    /// The authoritative data, in logical entity ids.
    var data: EntityStore { get }
}

/// A client/server protocol under test.
public protocol SyncStrategy: Sendable {
    associatedtype Client: ClientMachine
    associatedtype Server: ServerMachine where Server.Up == Client.Up, Server.Down == Client.Down

    var info: StrategyInfo { get }
    var transport: Transport { get }
    /// The data model `fuzz` generates schedules for. A run uses its schedule's schema (handed
    /// to the machines in their contexts); strategies written against ids only, as the built-ins
    /// are, sync any schema. Default: `Schema.default`.
    var schema: Schema { get }
    /// How the client holds tenants (`Tenancy`); default `.databasePerTenant`, where the
    /// simulator keeps a client instance and a durable store per tenant.
    var tenancy: Tenancy { get }

    func makeClient(_ context: ClientContext, restoring durable: Client.Durable?) -> Client
    func makeServer(_ context: ServerContext) -> Server
}
