import SyncSim

/// Small hand-built worlds for invariant and strategy tests: todo#1, profile#2 and post#3
/// (authored by profile#2) on the server; clients A and B; fixed 50 ms latency so stories are
/// easy to follow.
enum Fixture {
    static let A = ClientID(0), B = ClientID(1)
    static let todo = EntityID(1), profile = EntityID(2), post = EntityID(3)

    static let initial: [InitialEntity] = [
        InitialEntity(entity: todo, namespace: .todos, values: [FieldAssignment(.title, .string("a")), FieldAssignment(.done, .bool(false)), FieldAssignment(.priority, .int(1))]),
        InitialEntity(entity: profile, namespace: .profiles, values: [FieldAssignment(.name, .string("Ada")), FieldAssignment(.bio, .string("hi"))]),
        InitialEntity(entity: post, namespace: .posts, values: [FieldAssignment(.content, .string("first")), FieldAssignment(.likes, .int(0))],
                      links: [LinkAssignment(.author, profile)]),
    ]

    static func options(clients: Int = 2, persistence: Bool = true) -> SimulationOptions {
        var o = SimulationOptions()
        o.clients = clients
        o.persistence = persistence
        o.latencyMinMs = 50
        o.latencyMaxMs = 50
        return o
    }

    /// Both clients subscribe to todos at t=0.
    static let subscribeTodos: [TimedAction] = [
        TimedAction(at: 0, .subscribe(A, SubscriptionID(1), Query(.todos))),
        TimedAction(at: 0, .subscribe(B, SubscriptionID(2), Query(.todos))),
    ]

    static func set(_ f: FieldID, _ v: FieldValue) -> [FieldAssignment] { [FieldAssignment(f, v)] }

    static func run<S: SyncStrategy>(_ s: S, _ actions: [TimedAction], options: SimulationOptions = options(),
                                     initial: [InitialEntity] = initial) throws -> RunResult {
        try Simulator.run(s, Schedule(options: options, initial: initial, actions: actions), seed: 1, trace: .full)
    }
}

extension RunResult {
    func violates(_ i: InvariantID) -> Bool { violations.contains { $0.invariant == i } }
    var story: String { trace.map { "t=\($0.time)ms \($0.text)" }.joined(separator: "\n") }
}
