// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Procedures",
    // The async API (Task, continuations) needs these on Apple platforms; Linux has no minimum.
    // Only Linux is built and tested here.
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "Procedures", targets: ["Procedures"]),
        .library(name: "ProceduresTesting", targets: ["ProceduresTesting"]),
        .executable(name: "procedures-demo", targets: ["procedures-demo"]),
    ],
    targets: [
        .target(name: "Procedures"),
        .target(name: "ProceduresTesting", dependencies: ["Procedures"]),
        .executableTarget(name: "procedures-demo", dependencies: ["Procedures"]),
        .testTarget(
            name: "ProceduresTests",
            // The demo is a dependency so that `swift test` builds it for the end-to-end test.
            dependencies: ["Procedures", "ProceduresTesting", "procedures-demo"]),
    ],
    swiftLanguageModes: [.v6]
)
