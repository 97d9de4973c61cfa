import SyncSim

/// What both notes strategies share: the machines, the transport and the schema. They differ
/// only in whether a push whose ack timed out is retried.
public protocol NotesEngine: SyncStrategy where Client == NotesClient, Server == NotesServer {
    var retriesTimedOutPushes: Bool { get }
}

extension NotesEngine {
    public var transport: Transport { .stream }
    public var schema: Schema { notesSchema }
    public func makeClient(_ context: ClientContext, restoring durable: [UserWrite]?) -> NotesClient {
        NotesClient(context: context, retry: retriesTimedOutPushes, restoring: durable)
    }
    public func makeServer(_ context: ServerContext) -> NotesServer {
        NotesServer(clients: context.clientCount, schema: context.schema)
    }
}

/// Last-writer-wins notes sync with a durable, retried, idempotent outbox. Meets its contract.
public struct NotesLWW: NotesEngine {
    public init() {}
    public var retriesTimedOutPushes: Bool { true }
    public var info: StrategyInfo {
        StrategyInfo(name: "notesLWW",
                     summary: "notes app: durable outbox, pushes retried until acknowledged, server-arrival LWW",
                     contract: [.convergence, .lwwConvergence, .noLostAcknowledgedWrite, .noDuplicateApplication,
                                .noGhostDeletion, .noResurrection, .readYourWrites, .noReconnectWhileOffline,
                                .queryOnceOfflineFails, .liveness],
                     arbitration: .serverArrival)
    }
}

/// The same engine with a bug a team could well ship: when a push's ack times out (the
/// connection dropped with the push in flight), the write is dropped from the outbox instead of
/// being retried — and the user is not told. It still claims convergence and that no accepted
/// write is lost; SyncSim catches it (see the README).
public struct NotesLWWNoRetry: NotesEngine {
    public init() {}
    public var retriesTimedOutPushes: Bool { false }
    public var info: StrategyInfo {
        var i = NotesLWW().info
        i.name = "notesLWWNoRetry"
        i.summary = "notesLWW, but a write whose ack times out is silently dropped (planted bug)"
        return i
    }
}
