// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Procedures",
    products: [
        .library(name: "Procedures", targets: ["Procedures"]),
        .library(name: "ProceduresTesting", targets: ["ProceduresTesting"]),
        .executable(name: "steps", targets: ["steps"]),
    ],
    targets: [
        .target(name: "Procedures"),
        .target(name: "ProceduresTesting", dependencies: ["Procedures"]),
        .executableTarget(
            name: "steps", dependencies: ["Procedures"],
            // The bundled example pipeline, compiled into the binary (`PackageResources.demo_json`).
            resources: [.embedInCode("demo.json")]),
        .testTarget(
            name: "ProceduresTests",
            // `steps` is a dependency so that `swift test` builds it for its end-to-end tests.
            dependencies: ["Procedures", "ProceduresTesting", "steps"]),
    ],
    swiftLanguageModes: [.v6]
)
