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
            dependencies: ["Procedures", "ProceduresTesting"]),
        .testTarget(
            name: "StepsTests",
            // Runs the real `steps` binary, which `swift test` builds because of this dependency.
            dependencies: ["steps"]),
    ],
    swiftLanguageModes: [.v6]
)
