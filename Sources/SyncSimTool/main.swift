import SyncSimCLI

SyncSimCLI.main(strategies: AnyStrategy.builtIns)
