// swift-tools-version:6.0
import PackageDescription

// Adapters from the Procedures library to the server-side Swift ecosystem. A package of its
// own, so that the library itself keeps zero dependencies.
let package = Package(
    name: "ProceduresIntegrations",
    products: [
        .library(name: "ProceduresLogging", targets: ["ProceduresLogging"]),
        .library(name: "ProceduresMetrics", targets: ["ProceduresMetrics"]),
        .library(name: "ProceduresTracing", targets: ["ProceduresTracing"]),
        .library(name: "ProceduresLifecycle", targets: ["ProceduresLifecycle"]),
    ],
    dependencies: [
        .package(name: "Procedures", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "ProceduresLogging",
            dependencies: [
                .product(name: "Procedures", package: "Procedures"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "ProceduresMetrics",
            dependencies: [
                .product(name: "Procedures", package: "Procedures"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]),
        .target(
            name: "ProceduresTracing",
            dependencies: [
                .product(name: "Procedures", package: "Procedures"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        .target(
            name: "ProceduresLifecycle",
            dependencies: [
                .product(name: "Procedures", package: "Procedures"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "ProceduresIntegrationsTests",
            dependencies: [
                "ProceduresLogging", "ProceduresMetrics", "ProceduresTracing", "ProceduresLifecycle",
                .product(name: "ProceduresTesting", package: "Procedures"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
