struct ListCommand: Command {
    static let name = "list"
    static let summary = "List the strategies (with contracts) or the invariants"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) list strategies|invariants

        strategies   each strategy this tool knows, a one-line summary, its arbitration order and
                     the invariants it promises (its contract)
        invariants   the invariant catalog: id, safety or liveness, one-line definition
        """
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let what = args.positionals()
        try args.finish()
        guard what.count <= 1 else { throw UsageError("name one list: strategies or invariants") }
        switch what.first ?? "strategies" {
        case "strategies":
            for s in ctx.strategies.strategies {
                let i = s.info
                ctx.print("\(i.name)\(i.knownBad ? "  (known-bad)" : "")")
                ctx.print("  \(i.summary)")
                ctx.print("  arbitration: \(i.arbitration)   transport: \(s.transport.rawValue)")
                let claimed = InvariantID.allCases.filter { i.contract.contains($0) }
                ctx.print("  contract: \(claimed.isEmpty ? "(none)" : claimed.map(\.rawValue).joined(separator: ", "))")
                ctx.print("")
            }
        case "invariants":
            for inv in InvariantID.allCases {
                ctx.print("\(inv.rawValue.rightPad(32)) \(inv.isLiveness ? "liveness" : "safety  ")  \(InvariantCatalog.summary(inv))")
            }
        case let other:
            let close = NameSuggestion.closest(to: other, in: ["strategies", "invariants"])
            throw UsageError("unknown list '\(other)'\(close.isEmpty ? "" : " (did you mean '\(close[0])'?)"); valid values: strategies, invariants")
        }
        return ExitCode.ok
    }
}
