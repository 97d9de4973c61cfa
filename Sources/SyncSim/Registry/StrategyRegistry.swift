/// The built-in strategies as existentials, for callers written before `AnyStrategy` (tests,
/// small scripts). New code should use `AnyStrategy.builtIns` and `StrategySet`, which also hold
/// user strategies; the fuzz driver and the reports never consult this registry.
public enum StrategyRegistry {
    public static var builtIn: [any SyncStrategy] { AnyStrategy.builtIns.map(\.base) }

    public static var names: [String] { StrategySet.builtIns.names }

    public static func named(_ name: String) -> (any SyncStrategy)? {
        StrategySet.builtIns.named(name)?.base
    }
}

/// Runs any strategy known only as an existential. Built-ins keep their specialised simulator
/// (see `AnyStrategy.init(erasing:)`); other types open the existential once per run.
/// `invariants`: user invariants to judge the run by too.
public func simulate(_ strategy: any SyncStrategy, _ schedule: Schedule, seed: UInt64, trace: TraceMode = .hashOnly,
                     invariants: [CustomInvariant] = []) throws -> RunResult {
    try AnyStrategy(erasing: strategy).judged(by: invariants).run(schedule, seed: seed, trace: trace)
}
