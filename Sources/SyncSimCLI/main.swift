import Foundation
import SyncSim

/// `syncsim`: the command-line front of SyncSim. Thin: parsing, printing and files only; every
/// decision about a simulation lives in the SyncSim library.
nonisolated(unsafe) let commands: [Command.Type] = [FuzzCommand.self, RunCommand.self, ReplayCommand.self, ShrinkCommand.self, MergeCommand.self, ListCommand.self, BenchCommand.self]

nonisolated(unsafe) let rootHelp = """
syncsim — deterministic simulation and property testing for offline-first sync engines

USAGE: syncsim <command> [options]

COMMANDS:
\(commands.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

Every run is a pure function of (strategy, schedule, seed): the same seed replays byte for byte,
in any process, on any machine.

EXAMPLES:
  syncsim run --strategy instant --seed 42          one seeded simulation
  syncsim run --strategy instant --seed 42 --json   the same, as one JSON object
  syncsim list strategies                            the built-in strategies and their contracts

See 'syncsim <command> --help' for a command's options.
"""

func runMain() -> Int32 {
    var argv = Array(CommandLine.arguments.dropFirst())
    if argv.isEmpty || argv == ["--help"] || argv == ["-h"] || argv == ["help"] {
        print(rootHelp)
        return argv.isEmpty ? ExitCode.usage : ExitCode.ok
    }
    let name = argv.removeFirst()
    guard let command = commands.first(where: { $0.name == name }) else {
        printError("error: unknown command '\(name)'; valid commands: \(commands.map { $0.name }.joined(separator: ", "))\nSee 'syncsim --help'.")
        return ExitCode.usage
    }
    if argv.contains("--help") || argv.contains("-h") {
        print(command.help)
        return ExitCode.ok
    }
    var args = Arguments(argv, command: name)
    do {
        return try command.run(&args)
    } catch let e as UsageError {
        printError("error: \(e)\nSee 'syncsim \(name) --help'.")
        return ExitCode.usage
    } catch let e as ScheduleError {
        printError("error: \(e)")
        return ExitCode.usage
    } catch {
        printError("error: \(error)")
        return ExitCode.usage
    }

}

exit(runMain())
