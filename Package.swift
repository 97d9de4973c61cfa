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
        .executableTarget(name: "syncsim", dependencies: ["SyncSim"]),
        .testTarget(name: "SyncSimTests", dependencies: ["SyncSim"]),
        .testTarget(name: "syncsimTests", dependencies: ["SyncSim"]),
    ],
    swiftLanguageModes: [.v5]
)
