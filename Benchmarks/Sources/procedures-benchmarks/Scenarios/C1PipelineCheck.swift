import Foundation
import Synchronization

/// C1: reading and checking a pipeline file, as a user does it: `steps FILE --dry-run` (the
/// real binary, a process per run), which parses the file, checks its schema, names,
/// references and cycles, looks up each step's program and prints the plan. It must be linear
/// in the file: the figure is growth, the time at 10N over the time at N (no baseline).
/// C1v: a file whose one unknown field holds N values, which `steps` reads whole and refuses.
///
/// The `steps` binary is the one next to this benchmark's executable (`make bench` builds it).
enum C1PipelineCheck {
    static let chain = Scenario(
        id: "C1", title: "check a chain of N steps (steps --dry-run)", sizes: [10_000, 100_000],
        statistics: [.median(.growthAtMost(12))],
        ours: ifBuilt { size in [check(file(size, chain: true), expectStatus: 0)] }, baseline: nil,
        note: "`steps FILE --dry-run` on a generated pipeline of N steps, each needing the one before "
            + "(`{\"name\":\"sK\",\"needs\":[\"sK-1\"],\"run\":\"true\"}`, one a line; 100,000 steps are 5.6 MB): "
            + "the whole process, from start to the plan's last line. No baseline: the figure is growth.")

    static let values = Scenario(
        id: "C1v", title: "read a list of N values (steps --dry-run)", sizes: [100_000, 1_000_000],
        statistics: [.median(.growthAtMost(12))],
        ours: ifBuilt { size in [check(file(size, chain: false), expectStatus: 2)] }, baseline: nil,
        note: "`steps FILE --dry-run` on `{\"steps\":[{\"name\":\"a\",\"run\":\"true\"}],\"x\":[1,1,…]}` with N "
            + "elements (1,000,000 are 2 MB): read whole, then refused for its unknown field. Sizes ten times "
            + "C1's, since 100,000 values take no longer than the process's start. No baseline: the figure is growth.")

    private static func ifBuilt(_ half: @escaping Half) -> Half? {
        U1UpToDate.binary == nil ? nil : half
    }

    private static let files = Mutex<[String: URL]>([:])

    /// The generated pipeline of `size` steps (or values), written on first use.
    private static func file(_ size: Int, chain: Bool) -> URL {
        files.withLock { files in
            let key = "\(chain ? "chain" : "values")-\(size)"
            if let known = files[key] { return known }
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("procedures-bench-c1-\(getpid())-\(key).json")
            var text: String
            if chain {
                text = #"{"steps":[{"name":"s0","run":"true"}"#
                for index in 1..<max(size, 1) { text += #",\#n{"name":"s\#(index)","needs":["s\#(index - 1)"],"run":"true"}"# }
                text += "]}\n"
            } else {
                text = #"{"steps":[{"name":"a","run":"true"}],"x":["# + Array(repeating: "1", count: size).joined(separator: ",") + "]}\n"
            }
            try! Data(text.utf8).write(to: url)
            files[key] = url
            return url
        }
    }

    /// Runs `steps FILE --dry-run` and returns the seconds it took; its output is read as it
    /// comes (a plan of 100,000 steps would fill a pipe) and thrown away.
    private static func check(_ file: URL, expectStatus: Int32) -> Double {
        let process = Process()
        process.executableURL = U1UpToDate.binary
        process.arguments = [file.path, "--dry-run"]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        let seconds = Stopwatch.time {
            try! process.run()
            process.waitUntilExit()
        }
        precondition(process.terminationStatus == expectStatus, "C1: steps \(file.lastPathComponent) --dry-run exited \(process.terminationStatus)")
        return seconds
    }
}

/// Deletes C1's generated files (called once, from `main.swift`).
func removePipelineFiles() {
    for url in C1PipelineCheck.generated() { try? FileManager.default.removeItem(at: url) }
}

extension C1PipelineCheck {
    /// The files generated so far.
    static func generated() -> [URL] { files.withLock { Array($0.values) } }
}
