// swift-tools-version:6.0
import PackageDescription

// The benchmarks live in their own package so the library keeps zero dependencies: only this
// package pulls in swift-nio (for the EventLoopFuture baselines).
// SwiftPM names a path dependency after its directory (the checkout's folder name, which
// differs between clones and worktrees), not after its manifest's name.
let libraryIdentity = Context.packageDirectory.split(separator: "/").dropLast().last.map { String($0).lowercased() } ?? "procedures"

let package = Package(
    name: "ProceduresBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "procedures-benchmarks",
            dependencies: [
                .product(name: "Procedures", package: libraryIdentity),
                .product(name: "ProceduresNetwork", package: libraryIdentity),
                .product(name: "ProceduresProcess", package: libraryIdentity),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "CHeap",
            ]
        ),
        // glibc's mallinfo2(), which Swift's Glibc module does not expose, for S7.
        .target(name: "CHeap"),
    ],
    swiftLanguageModes: [.v6]
)
