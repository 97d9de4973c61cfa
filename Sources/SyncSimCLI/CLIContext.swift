/// What every command runs with: the tool's strategies (looked up by name only here, each
/// already judged by the tool's user invariants), its invariant catalog, its command name for
/// help texts, the prefix of printed replay commands, and where to write.
struct CLIContext: Sendable {
    let strategies: StrategySet
    /// The built-ins, then the tool's user invariants by id: what `list invariants` shows and
    /// `--invariant` accepts.
    let invariants: InvariantCatalog
    /// As typed by users: `syncsim`, `notes-sim`.
    let commandName: String
    let commands: ReplayCommands
    let output: CLIOutput

    /// A line on standard output.
    func print(_ s: String = "") { output.standardOutput(s + "\n") }

    /// A line on standard error.
    func printError(_ s: String) { output.standardError(OptionValues.visible(s) + "\n") }

    /// Says on standard error that this is a debug build (long commands call it once their
    /// options are accepted, so a usage error stays the only line).
    func noteIfDebugBuild() {
        if BuildKind.isDebug { printError(BuildKind.debugNote(commandName)) }
    }

    /// The strategy named by an option's value, or a usage error naming the option, close
    /// names and the valid ones.
    func strategy(named name: String, option: String) throws -> AnyStrategy {
        do {
            return try strategies.resolve(name)
        } catch let e as UnknownStrategyError {
            throw UsageError(e.message(for: option))
        }
    }

    /// Names given to a repeatable `--strategy` (none or `all`: every strategy).
    func strategies(named names: [String], option: String) throws -> [AnyStrategy] {
        do {
            return try strategies.select(names)
        } catch let e as UnknownStrategyError {
            var e = e
            e.validNames = ["all"] + e.validNames
            throw UsageError(e.message(for: option))
        }
    }

    /// The invariant named by an option's value (a built-in or one of the tool's user
    /// invariants), or a usage error naming the option, close names and the valid ones.
    func invariant(named name: String, option: String) throws -> InvariantID {
        if let e = invariants.entry(named: name) { return e.id }
        let names = invariants.ids.map(\.rawValue)
        let close = NameSuggestion.closest(to: name, in: names)
        throw UsageError("unknown invariant '\(name)' for \(option)\(close.isEmpty ? "" : " (did you mean '\(close[0])'?)"); valid values: \(names.joined(separator: ", "))")
    }

    /// `--strategy is required; valid values: …`.
    func missingStrategy(_ option: String = "--strategy") -> UsageError {
        UsageError("\(option) is required; valid values: \(strategies.names.joined(separator: ", "))")
    }
}
