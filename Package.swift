// swift-tools-version:6.0
import PackageDescription

// SyncSim has no package dependencies by design: Foundation, XCTest and Swift Testing only.
let package = Package(
    name: "SyncSim",
    products: [
        .library(name: "SyncSim", targets: ["SyncSim"]),
        .executable(name: "syncsim", targets: ["syncsim"]),
    ],
    targets: [
        .target(name: "SyncSim"),
        .executableTarget(name: "syncsim", dependencies: ["SyncSim"], path: "Sources/SyncSimCLI"),
        .testTarget(name: "SyncSimTests", dependencies: ["SyncSim"]),
        .testTarget(name: "SyncSimCLITests", dependencies: ["SyncSim"]),
    ],
    swiftLanguageModes: [.v6]
)
