// swift-tools-version:6.0
import PackageDescription

// SyncSim has no package dependencies by design: Foundation, XCTest and Swift Testing only.
//
// Targets: SyncSim (the library: simulator, strategies, oracles, shrinking, fuzz driver,
// reports), SyncSimCLI (every command, as a library a user's own tool links with its own
// strategies), SyncSimTool (the `syncsim` executable: a three-line main). No two target names
// or paths may be equal ignoring case (they would collide in .build on macOS), so the
// executable target is not called `syncsim`; only the product is.
let package = Package(
    name: "SyncSim",
    products: [
        .library(name: "SyncSim", targets: ["SyncSim"]),
        .library(name: "SyncSimCLI", targets: ["SyncSimCLI"]),
        .library(name: "SyncSimTesting", targets: ["SyncSimTesting"]),
        .executable(name: "syncsim", targets: ["SyncSimTool"]),
    ],
    targets: [
        .target(name: "SyncSim"),
        .target(name: "SyncSimCLI", dependencies: ["SyncSim"]),
        .target(name: "SyncSimTesting", dependencies: ["SyncSim"]),
        .executableTarget(name: "SyncSimTool", dependencies: ["SyncSimCLI"]),
        .testTarget(name: "SyncSimTests", dependencies: ["SyncSim"]),
        .testTarget(name: "SyncSimCLITests", dependencies: ["SyncSimCLI", "SyncSim"]),
        .testTarget(name: "SyncSimTestingTests", dependencies: ["SyncSimTesting", "SyncSim"]),
    ],
    swiftLanguageModes: [.v6]
)
