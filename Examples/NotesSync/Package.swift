// swift-tools-version:6.0
import PackageDescription

// A notes app's sync engine, simulated with SyncSim as a user would: its own schema and
// strategies, an executable built on SyncSimCLI, and tests built on SyncSimTesting.
let package = Package(
    name: "NotesSync",
    products: [
        .library(name: "NotesSync", targets: ["NotesSync"]),
    ],
    dependencies: [.package(name: "SyncSim", path: "../..")],
    targets: [
        .target(name: "NotesSync", dependencies: [.product(name: "SyncSim", package: "SyncSim")]),
        .testTarget(name: "NotesSyncTests", dependencies: ["NotesSync", .product(name: "SyncSim", package: "SyncSim")]),
    ],
    swiftLanguageModes: [.v6]
)
