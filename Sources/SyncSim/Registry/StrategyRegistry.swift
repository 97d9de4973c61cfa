/// The built-in strategies by name, and the one place an existential `any SyncStrategy` is
/// opened into a concrete, specialised simulator (once per run, never per event).
public enum StrategyRegistry {
    public static let builtIn: [any SyncStrategy] = [
        InstantStrategy(),
        FullEntityStrategy(),
        SharedDiffStrategy(),
        ConflictPromptStrategy(),
        PushPullStrategy(),
        ReferenceStrategy(),
    ]

    public static var names: [String] { builtIn.map(\.info.name) }

    public static func named(_ name: String) -> (any SyncStrategy)? {
        builtIn.first { $0.info.name == name }
    }
}

/// Runs any strategy (opening the existential once). `invariants`: user invariants to judge the
/// run by too (see `Simulator.init(strategy:schedule:seed:trace:invariants:)`).
public func simulate(_ strategy: any SyncStrategy, _ schedule: Schedule, seed: UInt64, trace: TraceMode = .hashOnly,
                     invariants: [CustomInvariant] = []) throws -> RunResult {
    func open<S: SyncStrategy>(_ s: S) throws -> RunResult {
        try Simulator.run(s, schedule, seed: seed, trace: trace, invariants: invariants)
    }
    // Built-in strategies get a concrete call site each, so the compiler emits a fully
    // specialised simulator for them (an opened existential would run the unspecialised generic
    // code, paying value-witness and metadata look-ups per event). Same code, same behaviour.
    switch strategy {
    case let s as InstantStrategy: return try Simulator.run(s, schedule, seed: seed, trace: trace, invariants: invariants)
    case let s as FullEntityStrategy: return try Simulator.run(s, schedule, seed: seed, trace: trace, invariants: invariants)
    case let s as SharedDiffStrategy: return try Simulator.run(s, schedule, seed: seed, trace: trace, invariants: invariants)
    case let s as ConflictPromptStrategy: return try Simulator.run(s, schedule, seed: seed, trace: trace, invariants: invariants)
    case let s as PushPullStrategy: return try Simulator.run(s, schedule, seed: seed, trace: trace, invariants: invariants)
    case let s as ReferenceStrategy: return try Simulator.run(s, schedule, seed: seed, trace: trace, invariants: invariants)
    default: return try open(strategy)
    }
}
