struct ListCommand: Command {
    static let name = "list"
    static let summary = "List the strategies (with contracts) or the invariants"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) list strategies|invariants

        strategies   each strategy this tool knows, a one-line summary, its arbitration order and
                     the invariants it promises (its contract; user invariants marked (user))
        invariants   the invariant catalog: id, safety or liveness, one-line definition; this
                     tool's user invariants follow the built-ins, marked user-defined
        """
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let what = args.positionals()
        try args.finish()
        guard what.count <= 1 else {
            throw UsageError("'list' takes one name, 'strategies' or 'invariants'; got \(what.count): \(what.map { "'\(OptionValues.shown($0))'" }.joined(separator: " "))")
        }
        switch what.first ?? "strategies" {
        case "strategies":
            for s in ctx.strategies.strategies {
                let i = s.info
                ctx.print("\(i.name)\(i.knownBad ? "  (known-bad)" : "")")
                ctx.print("  \(i.summary)")
                ctx.print("  arbitration: \(i.arbitration)   transport: \(s.transport.rawValue)")
                // Built-ins in catalog order, then user invariants by id (`InvariantID` order).
                let claimed = i.contract.sorted().map { $0.isBuiltIn ? $0.rawValue : "\($0.rawValue) (user)" }
                ctx.print("  contract: \(claimed.isEmpty ? "(none)" : claimed.joined(separator: ", "))")
                ctx.print("")
            }
        case "invariants":
            // Wide enough for the longest id, so a long user id keeps the columns aligned.
            let width = max(32, (ctx.invariants.ids.map(\.rawValue.count).max() ?? 0) + 1)
            for e in ctx.invariants.entries {
                let line = "\(e.id.rawValue.rightPad(width)) \(e.isLiveness ? "liveness" : "safety  ")  \(e.summary)"
                if e.isBuiltIn { ctx.print(line); continue }
                ctx.print(line + "  (user-defined)")
                // A user invariant's longer text has no other place a user of the tool can read it.
                for l in e.documentation.split(separator: "\n", omittingEmptySubsequences: false) where !e.documentation.isEmpty {
                    ctx.print(String(repeating: " ", count: width + 12) + l)
                }
            }
        case let other:
            let close = NameSuggestion.closest(to: other, in: ["strategies", "invariants"])
            throw UsageError("unknown list '\(OptionValues.shown(other))'\(close.isEmpty ? "" : " (did you mean '\(close[0])'?)"); valid values: strategies, invariants")
        }
        return ExitCode.ok
    }
}
