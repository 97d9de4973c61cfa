import NotesSync
import SyncSimCLI
SyncSimCLI.main(strategies: [AnyStrategy(NotesLWW()), AnyStrategy(NotesLWWNoRetry())] + AnyStrategy.builtIns, commandName: "notes-sim")
