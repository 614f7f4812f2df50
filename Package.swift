// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Procedures",
    products: [
        .library(name: "Procedures", targets: ["Procedures"]),
        .library(name: "ProceduresTesting", targets: ["ProceduresTesting"]),
    ],
    targets: [
        .target(name: "Procedures"),
        .target(name: "ProceduresTesting", dependencies: ["Procedures"]),
        .testTarget(name: "ProceduresTests", dependencies: ["Procedures", "ProceduresTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
