// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Procedures",
    products: [
        .library(name: "Procedures", targets: ["Procedures"]),
        .library(name: "ProceduresTesting", targets: ["ProceduresTesting"]),
        .library(name: "ProceduresNetwork", targets: ["ProceduresNetwork"]),
        .executable(name: "procedures-demo", targets: ["procedures-demo"]),
    ],
    targets: [
        .target(name: "Procedures"),
        .target(name: "ProceduresTesting", dependencies: ["Procedures"]),
        // Its own target so that only users of the network procedures link FoundationNetworking (libcurl).
        .target(name: "ProceduresNetwork", dependencies: ["Procedures"]),
        .executableTarget(name: "procedures-demo", dependencies: ["Procedures"]),
        .testTarget(
            name: "ProceduresTests",
            // The demo is a dependency so that `swift test` builds it for the end-to-end test.
            dependencies: ["Procedures", "ProceduresTesting", "procedures-demo"]),
        .testTarget(name: "ProceduresNetworkTests", dependencies: ["ProceduresNetwork", "ProceduresTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
