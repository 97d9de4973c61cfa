/// One step of a schedule: a user action on a client, a server-side write, or a fault.
public enum Action: Hashable, Sendable {
    // User writes on a client.
    case create(ClientID, EntityID, NamespaceID, [FieldAssignment])
    case update(ClientID, EntityID, [FieldAssignment])
    case delete(ClientID, EntityID)
    case link(ClientID, EntityID, LinkID, EntityID)
    case unlink(ClientID, EntityID, LinkID, EntityID)
    /// Rapid typing: one update per keystroke prefix of `text`, `everyMs` apart (`T`, `Te`, …).
    case type(ClientID, EntityID, FieldID, String, everyMs: Int64)

    // Server-side writes (admin SDK, back office): applied straight to the server.
    case serverCreate(EntityID, NamespaceID, [FieldAssignment])
    case serverUpdate(EntityID, [FieldAssignment])
    case serverDelete(EntityID)

    // Reads.
    case subscribe(ClientID, SubscriptionID, Query)
    case unsubscribe(ClientID, SubscriptionID)
    case queryOnce(ClientID, Query)

    // Faults and lifecycle.
    /// The device loses its network (the OS reports offline).
    case goOffline(ClientID)
    case goOnline(ClientID)
    /// The device believes it is online but cannot reach the server (seed 003's distinction).
    case serverUnreachable(ClientID)
    case serverReachable(ClientID)
    /// Crash and relaunch: volatile state is lost, durable storage is kept.
    case restart(ClientID)
    /// Seed 004 §3: force from server (`keepServer`) or force push (`keepLocal`).
    case forceSync(ClientID, ConflictChoice)
    /// Seed 004 §2.2: a plain manual "sync now" (nothing forced).
    case syncNow(ClientID)
    /// Seed 003: the user drops the oldest queued write ("Drop oldest" on a full queue).
    case dropOldestWrite(ClientID)
    /// A fault aimed at a protocol point (FoundationDB's BUGGIFY): armed now, it strikes at the
    /// client's next such point (see `CrashPoint`).
    case crash(ClientID, CrashPoint)
    /// Seed 004's "Large batch": the user creates `count` entities of one namespace at once,
    /// with ids `firstEntity`, `firstEntity + 1`, …, each with the same values. One action in
    /// the story; one write (intent) per entity for the oracles (see `BulkCreate`).
    case bulkCreate(ClientID, firstEntity: EntityID, count: Int, NamespaceID, [FieldAssignment])
    /// Seed 004 §1.1 / seed 000's user change: the client's user switches to `tenant` (logging in
    /// if logged out). How the client's local data follows is the strategy's `Tenancy`.
    case switchTenant(ClientID, TenantID)
    /// Seed 004 §4.1 "drop DB on logout": the user logs out of the current tenant, whose local
    /// data is dropped; until the next `switchTenant` the client's user actions are skipped.
    case logout(ClientID)

    /// The client the action happens on, if any.
    public var client: ClientID? {
        switch self {
        case .create(let c, _, _, _), .update(let c, _, _), .delete(let c, _), .link(let c, _, _, _),
            .unlink(let c, _, _, _), .type(let c, _, _, _, _), .subscribe(let c, _, _), .unsubscribe(let c, _),
            .queryOnce(let c, _), .goOffline(let c), .goOnline(let c), .serverUnreachable(let c),
            .serverReachable(let c), .restart(let c), .forceSync(let c, _), .crash(let c, _), .dropOldestWrite(let c), .syncNow(let c),
            .bulkCreate(let c, _, _, _, _), .switchTenant(let c, _), .logout(let c):
            return c
        case .serverCreate, .serverUpdate, .serverDelete:
            return nil
        }
    }

    /// The schedule-file name of the action (`"do"` key).
    public var kind: ActionKind {
        switch self {
        case .create: return .create
        case .update: return .update
        case .delete: return .delete
        case .link: return .link
        case .unlink: return .unlink
        case .type: return .type
        case .serverCreate: return .serverCreate
        case .serverUpdate: return .serverUpdate
        case .serverDelete: return .serverDelete
        case .subscribe: return .subscribe
        case .unsubscribe: return .unsubscribe
        case .queryOnce: return .queryOnce
        case .goOffline: return .offline
        case .goOnline: return .online
        case .serverUnreachable: return .unreachable
        case .serverReachable: return .reachable
        case .restart: return .restart
        case .forceSync: return .forceSync
        case .crash: return .crash
        case .syncNow: return .syncNow
        case .dropOldestWrite: return .dropOldest
        case .bulkCreate: return .bulkCreate
        case .switchTenant: return .switchTenant
        case .logout: return .logout
        }
    }

    /// True for the actions that change the network (used by the shrinker and coverage).
    public var isFault: Bool {
        switch kind {
        case .offline, .online, .unreachable, .reachable, .restart, .crash: return true
        default: return false
        }
    }
}

/// Action kinds, as spelled in scenario files (`"do": "update"`).
public enum ActionKind: String, CaseIterable, Sendable, Codable {
    case create, update, delete, link, unlink, type
    case serverCreate, serverUpdate, serverDelete
    case subscribe, unsubscribe, queryOnce
    case offline, online, unreachable, reachable, restart, forceSync, crash
    case syncNow
    case dropOldest
    case bulkCreate
    case switchTenant, logout

    /// Kinds the default generator does not draw: `syncNow` only with
    /// `WorkloadGenerator.Config.syncNow`, `bulkCreate` only with `WorkloadGenerator.Config.bulk`,
    /// `dropOldest` only with `WorkloadGenerator.Config.userChoices` (seed 003's user-pruned
    /// queue exists in one strategy), `switchTenant` and `logout` only with
    /// `WorkloadGenerator.Config.tenants`. Coverage lists them apart from what fuzzing failed to
    /// reach, so "never reached" keeps meaning a gap in what the generator explores.
    public var isDrawnByDefault: Bool {
        switch self {
        case .syncNow, .dropOldest, .bulkCreate, .switchTenant, .logout: return false
        default: return true
        }
    }
}

/// Where a `crash` action strikes. Ordinary restarts fall between events; real sync bugs live at
/// the moments in between, which these name.
public enum CrashPoint: String, CaseIterable, Hashable, Sendable, Codable {
    /// The client crashes right after its next message reaches the server, before it persisted
    /// anything since sending it: the server has the request, the device forgot it sent it.
    case afterSend
    /// The client crashes while applying the next message it receives (a pull, a refresh, an
    /// ack): applied in memory, never persisted.
    case duringApply
    /// The server's path crashes between applying the client's next transaction and
    /// acknowledging it ("commit unknown"): the acks are lost and the connection resets, so the
    /// client retries a write that is already committed.
    case commitUnknown
}

/// An action and the virtual time (ms) at which it happens.
public struct TimedAction: Hashable, Sendable {
    public var at: Int64
    public var action: Action
    public init(at: Int64, _ action: Action) { self.at = at; self.action = action }
}

/// An entity that exists on the server before the run starts.
public struct InitialEntity: Hashable, Sendable {
    public var entity: EntityID
    public var namespace: NamespaceID
    public var values: [FieldAssignment]
    public var links: [LinkAssignment]
    public init(entity: EntityID, namespace: NamespaceID, values: [FieldAssignment], links: [LinkAssignment] = []) {
        self.entity = entity
        self.namespace = namespace
        self.values = values
        self.links = links
    }
}

public struct LinkAssignment: Hashable, Sendable {
    public var link: LinkID
    public var target: EntityID
    public init(_ link: LinkID, _ target: EntityID) { self.link = link; self.target = target }
}

/// A complete, replayable description of a run: the data model, options, initial server data
/// and actions.
public struct Schedule: Hashable, Sendable {
    /// The data model the run syncs; every id in the schedule is one of its ids.
    public var schema: Schema
    public var options: SimulationOptions
    public var initial: [InitialEntity]
    public var actions: [TimedAction]

    public init(schema: Schema = .default, options: SimulationOptions = .init(), initial: [InitialEntity] = [], actions: [TimedAction] = []) {
        self.schema = schema
        self.options = options
        self.initial = initial
        self.actions = actions
    }

    /// Time of the last action (a typing burst ends at its last keystroke).
    public var lastActionTime: Int64 {
        var t: Int64 = 0
        for a in actions {
            var end = a.at
            if case .type(_, _, _, let text, let every) = a.action { end += Int64(max(0, text.count - 1)) * every }
            t = max(t, end)
        }
        return t
    }
}
