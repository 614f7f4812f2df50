import Foundation
import Synchronization

/// U1: the `steps` tool's up-to-date check on a tree of N source files, run as a user runs
/// it (the real binary, a process per run), against reading the same files once with
/// `find | xargs cat` (also processes). U1f: a `--force` run, which reads and hashes every
/// file, against `find | xargs sha256sum`.
///
/// The `steps` binary is the one next to this benchmark's executable: `make bench` builds it
/// (`swift build -c release --product steps` in Benchmarks/).
enum U1UpToDate {
    static let check = Scenario(
        id: "U1", title: "up-to-date check (steps)", sizes: [1_000, 10_000],
        statistics: [.median(.ratioAtMost(1.2))],
        ours: ifBuilt { size in [run(steps: ["pipeline.json"], tree: tree(size), expect: "= build  up to date")] },
        baseline: { size in [shell("find Sources -name '*.swift' -print0 | xargs -0 cat > /dev/null", in: tree(size))] },
        note: "A tree of N Swift files (100 per directory, 2 KB each) and a pipeline of one step with `sources: "
            + "[\"Sources/**/*.swift\"]`, run once before the rounds (and again 2 s later, so that every stamp is "
            + "trusted); each round times a whole `steps pipeline.json` that finds the step up to date (process "
            + "start, pipeline, state file, walk, a `stat` per file). Baseline: `sh -c \"find Sources -name '*.swift' "
            + "-print0 | xargs -0 cat > /dev/null\"`, reading every file once.")

    static let forced = Scenario(
        id: "U1f", title: "forced rehash (steps --force)", sizes: [1_000, 10_000],
        statistics: [.median(.informational)],
        ours: ifBuilt { size in [run(steps: ["pipeline.json", "--force"], tree: tree(size), expect: "✓ build")] },
        baseline: { size in [shell("find Sources -name '*.swift' -print0 | xargs -0 sha256sum > /dev/null", in: tree(size))] },
        note: "U1's tree; `steps pipeline.json --force` reads and hashes (XXH64) every file and runs the step (`true`). "
            + "Baseline: `find … | xargs -0 sha256sum`.")

    /// `half`, if the `steps` binary was built (otherwise the row says "not yet wired").
    private static func ifBuilt(_ half: @escaping Half) -> Half? {
        binary == nil ? nil : half
    }

    /// The `steps` binary built next to this one, if any.
    static let binary: URL? = {
        let url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("steps")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }()

    private static let trees = Mutex<[Int: URL]>([:])

    /// The tree of `size` files, made on first use and checked twice so its stamps are trusted.
    static func tree(_ size: Int) -> URL {
        trees.withLock { trees in
            if let known = trees[size] { return known }
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("procedures-bench-u1-\(getpid())-\(size)")
            let line = String(repeating: "let value = 1 // padding to make a realistic line\n", count: 40)
            for index in 0..<size {
                let directory = root.appendingPathComponent("Sources/Module\(index / 100)")
                if index % 100 == 0 { try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
                try! Data("// file \(index)\n\(line)".utf8).write(to: directory.appendingPathComponent("File\(index).swift"))
            }
            try! Data(#"{ "steps": [ { "name": "build", "sources": ["Sources/**/*.swift"], "run": "true" } ] }"#.utf8)
                .write(to: root.appendingPathComponent("pipeline.json"))
            if binary != nil {
                _ = run(steps: ["pipeline.json"], tree: root, expect: "✓ build")
                Thread.sleep(forTimeInterval: 2.1)  // past the cache's racy margin: stamps become trusted
                _ = run(steps: ["pipeline.json"], tree: root, expect: "= build  up to date")
            }
            trees[size] = root
            let path = root.path
            treesToRemove.withLock { $0.append(path) }
            return root
        }
    }

    /// Runs the binary in `tree` and returns the seconds it took.
    private static func run(steps arguments: [String], tree: URL, expect: String) -> Double {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments + ["--plain"]
        process.currentDirectoryURL = tree
        let output = Pipe()
        process.standardOutput = output
        let seconds = Stopwatch.time {
            try! process.run()
            process.waitUntilExit()
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        precondition(process.terminationStatus == 0 && text.contains(expect), "U1: steps \(arguments) did not say '\(expect)':\n\(text)")
        return seconds
    }

    private static func shell(_ command: String, in tree: URL) -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = tree
        let seconds = Stopwatch.time {
            try! process.run()
            process.waitUntilExit()
        }
        precondition(process.terminationStatus == 0, "U1 baseline: \(command) failed")
        return seconds
    }
}

/// The trees to delete when the benchmarks end.
private let treesToRemove = Mutex<[String]>([])

/// Deletes U1's trees (registered once, from `main.swift`).
func removeUpToDateTrees() {
    for path in treesToRemove.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
}
