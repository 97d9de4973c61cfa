import SyncSimCLI

/// A user's strategy as a user would write it in their own package, against the public API
/// only: here, InstantDB's machines under the user's name and contract. `NotesSync(claims:)`
/// decides what it promises; claiming `noResurrection` is a lie (instant resurrects a deleted
/// entity at seed 1), which every command must report as a contract violation.
struct NotesSync: SyncStrategy {
    var name = "notesSync"
    var claims: Set<InvariantID> = [.convergence, .noResurrection]

    var info: StrategyInfo {
        StrategyInfo(name: name, summary: "our notes app's sync engine", contract: claims, arbitration: .serverArrival)
    }
    var transport: Transport { .stream }

    func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> InstantClient {
        InstantStrategy().makeClient(context, restoring: durable)
    }

    func makeServer(_ context: ServerContext) -> InstantServer { InstantStrategy().makeServer(context) }
}

/// The tool a user builds: the built-ins plus their own strategies.
enum NotesTool {
    static let liar = AnyStrategy(NotesSync())
    static let honest = AnyStrategy(NotesSync(name: "notesHonest", claims: [.convergence, .readYourWrites]))
    static let strategies = AnyStrategy.builtIns + [liar, honest]

    /// Runs `notes-sim ARGS` in this process, capturing its output.
    static func run(_ arguments: [String], strategies: [AnyStrategy] = strategies) -> (status: Int32, stdout: String, stderr: String) {
        let captured = CapturedOutput()
        let status = SyncSimCLI.run(arguments: arguments, strategies: strategies, commandName: "notes-sim", output: captured.output)
        return (status, captured.stdout, captured.stderr)
    }
}
