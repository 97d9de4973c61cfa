import Foundation

/// The `syncsim` command line as a library: every command (fuzz, run, replay, shrink, merge,
/// list, bench) working on the strategies it is given. A team that implements `SyncStrategy`
/// for its own engine gets the whole tool, with its strategy a peer of the built-ins, from a
/// three-line `main.swift`:
///
/// ```swift
/// import SyncSimCLI
///
/// SyncSimCLI.main(strategies: AnyStrategy.builtIns + [AnyStrategy(NotesSync())], commandName: "notes-sim")
/// ```
///
/// Its own invariants (`CustomInvariant`) join the same way, as peers of the built-ins in every
/// command and report: `SyncSimCLI.main(strategies: […], invariants: [noForbiddenTitle])`.
public enum SyncSimCLI {
    /// Runs the command in `CommandLine.arguments` and exits with its status.
    ///
    /// - Parameters:
    ///   - strategies: the strategies every command knows, by `info.name` (valid, distinct
    ///     names; see `StrategySet`), in the order listings and reports show them.
    ///   - invariants: the tool's user invariants. Every strategy is judged by them
    ///     (`AnyStrategy.judged(by:)`), so all strategies compare like for like; a strategy may
    ///     claim them in its contract. Ids must be distinct, also ignoring case and from the
    ///     built-ins' (checked at startup: exit 2).
    ///   - commandName: the tool's name in help texts.
    ///   - commandPrefix: how printed and reported replay commands start; default
    ///     `swift run <commandName>`.
    public static func main(strategies: [AnyStrategy] = AnyStrategy.builtIns, invariants: [CustomInvariant] = [],
                            commandName: String = "syncsim", commandPrefix: String? = nil) -> Never {
        exit(run(arguments: Array(CommandLine.arguments.dropFirst()), strategies: strategies, invariants: invariants,
                 commandName: commandName, commandPrefix: commandPrefix))
    }

    /// Runs one command in-process and returns its exit status: 0 ok, 1 a violation (or a
    /// failed expectation), 2 bad input (including a bad list of strategies or invariants, found
    /// before any command runs). `arguments` excludes the program name
    /// (`["fuzz", "--seeds", "0..20"]`).
    public static func run(arguments: [String], strategies: [AnyStrategy] = AnyStrategy.builtIns, invariants: [CustomInvariant] = [],
                           commandName: String = "syncsim", commandPrefix: String? = nil, output: CLIOutput = .standard) -> Int32 {
        do {
            _ = try StrategySet(strategies)
        } catch {
            output.standardError("error: \(error)\n")
            return ExitCode.usage
        }
        guard !strategies.isEmpty else {
            output.standardError("error: no strategies: pass at least one to SyncSimCLI\n")
            return ExitCode.usage
        }
        let catalog: InvariantCatalog
        let set: StrategySet
        do {
            catalog = try toolInvariants(invariants, strategies: strategies)
            let judged = strategies.map { $0.judged(by: catalog.custom) }
            try FuzzDriver.checkInvariants(of: judged)
            set = try StrategySet(judged)
        } catch {
            output.standardError("error: invalid user invariants given to SyncSimCLI: \(error)\n")
            return ExitCode.usage
        }
        // Scenario files may name a schema instead of embedding it: the strategies' schemas are
        // the ones this tool knows. One name must mean one schema.
        var schemas: [Schema] = []
        for s in strategies where s.schema != .default && !schemas.contains(s.schema) {
            if schemas.contains(where: { $0.name == s.schema.name }) || s.schema.name == Schema.default.name {
                output.standardError("error: two different schemas are named '\(s.schema.name)' (strategy \(s.name)); give each schema its own name\n")
                return ExitCode.usage
            }
            schemas.append(s.schema)
        }
        let ctx = CLIContext(strategies: set, invariants: catalog, commandName: commandName,
                             commands: ReplayCommands(prefix: commandPrefix ?? "swift run \(commandName)"), output: output)
        // Scenario files (replay, and the ones fuzz and shrink write) may expect a failure of one
        // of this tool's user invariants.
        return Schema.$known.withValue(schemas) {
            Scenario.$knownInvariants.withValue(catalog.custom.map(\.id)) { dispatch(arguments, ctx) }
        }
    }

    /// The tool's invariants: `given` (distinct ids), plus any a strategy already carries
    /// (`judged(by:)` before it was passed in) that `given` does not name — kept rather than
    /// silently dropped, and then every strategy is judged by all of them. One id must mean one
    /// invariant (same summary, documentation and observation needs).
    static func toolInvariants(_ given: [CustomInvariant], strategies: [AnyStrategy]) throws -> InvariantCatalog {
        var all = try InvariantCatalog(custom: given).custom
        for s in strategies {
            for inv in s.invariants {
                guard let same = all.first(where: { $0.id == inv.id }) else { all.append(inv); continue }
                if same.summary != inv.summary || same.documentation != inv.documentation || same.needsObservations != inv.needsObservations {
                    throw InvariantConflict(id: inv.id, strategy: s.name)
                }
            }
        }
        return try InvariantCatalog(custom: all)
    }

    /// A strategy carries a user invariant whose id the tool's `invariants:` gives to another.
    struct InvariantConflict: Error, CustomStringConvertible {
        var id: InvariantID
        var strategy: String
        var description: String {
            "strategy '\(strategy)' is already judged by a user invariant named '\(id)' that differs from the one passed in invariants: (summary, documentation or needsObservations); one id must mean one invariant"
        }
    }

    static var commands: [any Command.Type] { [FuzzCommand.self, RunCommand.self, ReplayCommand.self, CheckCommand.self, ShrinkCommand.self,
                                                 MergeCommand.self, ListCommand.self, BenchCommand.self] }

    static func rootHelp(_ tool: String) -> String {
        """
        \(tool) — deterministic simulation and property testing for offline-first sync engines

        USAGE: \(tool) <command> [options]

        COMMANDS:
        \(commands.map { "  " + $0.name.rightPad(10) + $0.summary }.joined(separator: "\n"))

        Every run is a pure function of (strategy, schedule, seed): the same seed replays byte for byte,
        in any process, on any machine.

        EXAMPLES:
          \(tool) fuzz                                   every strategy, seeds 0..200, reports under Reports/
          \(tool) run --strategy instant --seed 42       one seeded simulation
          \(tool) list strategies                        the strategies and their contracts

        See '\(tool) help <command>' or '\(tool) <command> --help' for a command's options,
        '\(tool) --version' for the version.
        """
    }

    static func dispatch(_ arguments: [String], _ ctx: CLIContext) -> Int32 {
        var argv = arguments
        let tool = ctx.commandName
        if argv.isEmpty || argv == ["--help"] || argv == ["-h"] || argv == ["help"] {
            ctx.print(rootHelp(tool))
            if argv.isEmpty {
                ctx.printError("error: no command given; name one, e.g. '\(tool) fuzz' (the commands are listed above)")
                return ExitCode.usage
            }
            return ExitCode.ok
        }
        if argv == ["--version"] || argv == ["version"] {
            ctx.print(versionLine(tool))
            return ExitCode.ok
        }
        let name = argv.removeFirst()
        // `help fuzz`, as `git help fuzz` and swift-argument-parser tools accept.
        if name == "help" {
            guard argv.count == 1 else {
                ctx.printError("error: 'help' takes one command name, got \(argv.count): \(argv.map { "'\(OptionValues.shown($0))'" }.joined(separator: " "))\nSee '\(tool) --help'.")
                return ExitCode.usage
            }
            guard let command = commands.first(where: { $0.name == argv[0] }) else {
                ctx.printError(unknownCommand(argv[0], tool))
                return ExitCode.usage
            }
            ctx.print(command.help(tool))
            return ExitCode.ok
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            ctx.printError(unknownCommand(name, tool))
            return ExitCode.usage
        }
        if argv.contains("--help") || argv.contains("-h") {
            ctx.print(command.help(tool))
            return ExitCode.ok
        }
        var args = Arguments(argv, command: name)
        do {
            return try command.run(&args, ctx)
        } catch let e as UsageError {
            ctx.printError("error: \(e)\nSee '\(tool) \(name) --help'.")
            return ExitCode.usage
        } catch let e as ReportFileError {
            ctx.printError("error: \(e)")
            return ExitCode.usage
        } catch {
            ctx.printError("error: \(error)")
            return ExitCode.usage
        }
    }

    static func unknownCommand(_ name: String, _ tool: String) -> String {
        let close = NameSuggestion.closest(to: name, in: commands.map { $0.name } + ["help"])
        return "error: unknown command '\(OptionValues.shown(name))'\(close.isEmpty ? "" : " (did you mean '\(close[0])'?)"); valid commands: \(commands.map { $0.name }.joined(separator: ", ")), help\nSee '\(tool) --help'."
    }

    /// `syncsim 0.1.0 (report format 1, scenario format 1, debug build)`.
    static func versionLine(_ tool: String) -> String {
        "\(tool) \(version) (report format \(FuzzReport.currentFormat), scenario format \(Scenario.currentFormat), \(BuildKind.isDebug ? "debug" : "release") build)"
    }

    /// This SyncSim's version: what `--version` prints (with the file formats it reads and writes).
    public static let version = "0.1.0"
}
