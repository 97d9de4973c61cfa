import SyncSimCLI

/// A user's own invariant as a user would write it, against the public API only: "the server
/// never applies a delete" (a product rule of a notes app that archives instead of deleting).
/// Generated schedules delete entities, so most seeds break it under any strategy: claimed, that
/// is a contract violation; unclaimed, an expected, reported finding.
enum NotesInvariants {
    static let noServerDeleteID = try! InvariantID(custom: "noServerDelete")

    static let noServerDelete = try! CustomInvariant(
        id: noServerDeleteID, summary: "the server never applies a delete (notes are archived, not deleted)",
        documentation: "Our notes app archives instead of deleting.\nA delete in the server's log is a bug in the client.") { run in
        run.applied.flatMap { a in
            a.tx.ops.filter(\.isDelete).map { Violation(noServerDeleteID, at: a.time, entity: $0.entity, "tx \(a.tx.txID) deleted \($0.entity.raw)") }
        }
    }

    /// Claims the user invariant (and convergence, which instant's machines keep at these seeds).
    static let strict = AnyStrategy(NotesSync(name: "notesStrict", claims: [.convergence, noServerDeleteID]))

    /// Runs `notes-sim ARGS` with the built-ins, `strict` and the user invariant.
    static func run(_ arguments: [String], strategies: [AnyStrategy] = AnyStrategy.builtIns + [strict],
                    invariants: [CustomInvariant] = [noServerDelete]) -> (status: Int32, stdout: String, stderr: String) {
        let captured = CapturedOutput()
        let status = SyncSimCLI.run(arguments: arguments, strategies: strategies, invariants: invariants, commandName: "notes-sim",
                                    output: captured.output)
        return (status, captured.stdout, captured.stderr)
    }
}
