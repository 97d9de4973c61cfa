// swift-tools-version:6.0
import PackageDescription

// A notes app's sync engine, simulated with SyncSim as a user would: its own schema and
// strategies (library NotesSync), a `notes-sim` tool built on SyncSimCLI, and tests built on
// SyncSimTesting. SyncSim is a dependency by relative path; a real app names its URL instead.
let package = Package(
    name: "NotesSync",
    products: [
        .library(name: "NotesSync", targets: ["NotesSync"]),
        .executable(name: "notes-sim", targets: ["NotesSim"]),
    ],
    dependencies: [.package(name: "SyncSim", path: "../..")],
    targets: [
        .target(name: "NotesSync", dependencies: [.product(name: "SyncSim", package: "SyncSim")]),
        .executableTarget(name: "NotesSim", dependencies: ["NotesSync", .product(name: "SyncSimCLI", package: "SyncSim")]),
        .testTarget(name: "NotesSyncTests", dependencies: [
            "NotesSync", .product(name: "SyncSim", package: "SyncSim"), .product(name: "SyncSimTesting", package: "SyncSim"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
