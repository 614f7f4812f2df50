// swift-tools-version:6.0
import PackageDescription

// Layers (arrows point one way; the targets enforce them):
//   ProceduresSupport <- ProceduresFutures <- Procedures <- ProceduresTesting, ProceduresNetwork,
//   ProceduresProcess; the `steps` tool: ProceduresProcess <- StepsCore <- steps.
// ProceduresSupport is internal to the package (no product): locks, per-thread storage, the
// loops that keep callbacks off the stack and small generic helpers. ProceduresFutures is usable on its own.
let package = Package(
    name: "Procedures",
    // The Synchronization module (`Atomic`, and `Mutex` in every procedure's lock) needs these
    // on Apple platforms; Linux has no minimum. Only Linux is built and tested here.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Procedures", targets: ["Procedures"]),
        .library(name: "ProceduresFutures", targets: ["ProceduresFutures"]),
        .library(name: "ProceduresTesting", targets: ["ProceduresTesting"]),
        .library(name: "ProceduresNetwork", targets: ["ProceduresNetwork"]),
        .library(name: "ProceduresProcess", targets: ["ProceduresProcess"]),
        .executable(name: "steps", targets: ["steps"]),
    ],
    targets: [
        .target(name: "ProceduresSupport"),
        .target(name: "ProceduresFutures", dependencies: ["ProceduresSupport"]),
        .target(name: "Procedures", dependencies: ["ProceduresSupport", "ProceduresFutures"]),
        // Helpers for XCTest and Swift Testing in one target (both ship with the toolchain, and
        // Testing links from a library on Linux): one product, and one core both call.
        .target(name: "ProceduresTesting", dependencies: ["Procedures", "ProceduresSupport"]),
        // Its own target so that only users of the network procedures link FoundationNetworking (libcurl).
        .target(name: "ProceduresNetwork", dependencies: ["Procedures"]),
        // Child processes (spawning, containment with cgroups and a subreaper): a library of
        // its own, so that the core stays what every procedure needs.
        .target(name: "ProceduresProcess", dependencies: ["Procedures", "ProceduresSupport"]),
        // The `steps` tool's stages (parse, check, plan, run, display), a library of its own so
        // that tests call them in process; the executable only maps its errors to exit statuses.
        .target(
            name: "StepsCore", dependencies: ["ProceduresSupport", "Procedures", "ProceduresProcess"],
            // The bundled example pipeline, compiled into the library (`PackageResources.demo_json`).
            resources: [.embedInCode("demo.json")]),
        .executableTarget(name: "steps", dependencies: ["StepsCore"]),
        // Small helpers shared by the test targets (locked boxes, stress-test scaling).
        .target(
            name: "ProceduresTestSupport", dependencies: ["ProceduresFutures"], path: "Tests/ProceduresTestSupport"),
        .testTarget(
            name: "ProceduresFuturesTests",
            dependencies: ["ProceduresFutures", "ProceduresSupport", "ProceduresTestSupport"]),
        .testTarget(
            name: "ProceduresTests",
            dependencies: ["Procedures", "ProceduresSupport", "ProceduresTesting", "ProceduresTestSupport"]),
        .testTarget(
            name: "ProceduresNetworkTests",
            // The guide's example runs a program on a download: it needs both libraries.
            dependencies: ["ProceduresNetwork", "ProceduresProcess", "ProceduresTesting", "ProceduresTestSupport"]),
        .testTarget(
            name: "ProceduresProcessTests",
            dependencies: ["ProceduresProcess", "ProceduresTesting", "ProceduresTestSupport"]),
        .testTarget(
            name: "StepsCoreTests", dependencies: ["StepsCore", "Procedures", "ProceduresTesting", "ProceduresTestSupport"]),
        .testTarget(
            name: "StepsTests",
            // Runs the real `steps` binary, which `swift test` builds because of this dependency.
            dependencies: ["steps", "Procedures", "ProceduresProcess", "ProceduresTesting", "ProceduresTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
