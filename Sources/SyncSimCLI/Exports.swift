// A tool's main needs one import: `import SyncSimCLI` brings the SyncSim library with it
// (`SyncStrategy`, `AnyStrategy`, …), so a user's own strategy and `SyncSimCLI.main` meet in
// one file.
@_exported import SyncSim
