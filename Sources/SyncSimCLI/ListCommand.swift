import SyncSim

struct ListCommand: Command {
    static let name = "list"
    static let summary = "List built-in strategies (with contracts) or invariants"
    static let help = """
    USAGE: syncsim list strategies|invariants

    strategies   each built-in strategy, a one-line summary, its arbitration order and the
                 invariants it promises (its contract)
    invariants   the invariant catalog: id, safety or liveness, one-line definition
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let what = args.positionals()
        try args.finish()
        switch what.first ?? "strategies" {
        case "strategies":
            for s in StrategyRegistry.builtIn {
                let i = s.info
                print("\(i.name)\(i.knownBad ? "  (known-bad)" : "")")
                print("  \(i.summary)")
                print("  arbitration: \(i.arbitration)   transport: \(s.transport.rawValue)")
                let claimed = InvariantID.allCases.filter { i.contract.contains($0) }
                print("  contract: \(claimed.isEmpty ? "(none)" : claimed.map(\.rawValue).joined(separator: ", "))")
                print("")
            }
        case "invariants":
            for inv in InvariantID.allCases {
                print("\(inv.rawValue.padding(toLength: 32, withPad: " ", startingAt: 0)) \(inv.isLiveness ? "liveness" : "safety  ")  \(InvariantCatalog.summary(inv))")
            }
        case let other:
            throw UsageError("unknown list '\(other)'; valid values: strategies, invariants")
        }
        return ExitCode.ok
    }
}
