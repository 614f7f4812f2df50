import Foundation
import XCTest

/// The `swift test` steps of Examples/build.json, read against this very test program's list of
/// tests. SwiftPM hands a selection (`--filter`, `--skip`) to the test program as one argument
/// of comma-separated names, and Linux refuses any single argument over 128 KiB, so a
/// selection that grows past it fails the whole step before a test runs.
final class BuildExampleTestSelectionTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Well under Linux's `MAX_ARG_STRLEN` (128 KiB), so that the split is redone in time.
    private let budget = 96 * 1024

    func testEveryTestIsRunByAStepWhoseSelectionFitsInOneArgument() throws {
        let tests = try listedTests()
        XCTAssertGreaterThan(tests.count, 1_000, "the test program lists its tests")
        let data = try Data(contentsOf: root.appendingPathComponent("Examples/build.json"))
        let pipeline = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let steps = try XCTUnwrap(pipeline["steps"] as? [[String: Any]])
        var unrun = Set(tests)
        for step in steps {
            guard let command = step["run"] as? String, command.hasPrefix("swift test") else { continue }
            let name = try XCTUnwrap(step["name"] as? String)
            let filters = try patterns(after: "--filter", in: command)
            let skips = try patterns(after: "--skip", in: command)
            let selected = tests.filter { test in
                (filters.isEmpty || filters.contains { $0.matches(test) }) && !skips.contains { $0.matches(test) }
            }
            XCTAssertFalse(selected.isEmpty, "\(name) selects no test")
            // Only a filtered or skipping run names its tests; a plain `swift test` passes none.
            if !filters.isEmpty || !skips.isEmpty {
                let bytes = selected.reduce(0) { $0 + $1.utf8.count + 1 }
                XCTAssertLessThan(
                    bytes, budget,
                    "\(name) names \(selected.count) tests in one argument of \(bytes) bytes; Linux refuses more than 131,072: split its selection")
            }
            unrun.subtract(selected)
        }
        XCTAssertTrue(unrun.isEmpty, "no step of Examples/build.json runs \(unrun.sorted().prefix(5).joined(separator: ", "))")
    }

    /// This test program's own list (`--list-tests`), as `Module.Class/testMethod`.
    private func listedTests() throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--list-tests"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let listing = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "--list-tests")
        return String(decoding: listing, as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.contains("/") }
    }

    /// The regular expressions given to `option` in a shell command (quoted with `'` or bare).
    private func patterns(after option: String, in command: String) throws -> [NSRegularExpression] {
        let argument = try NSRegularExpression(pattern: NSRegularExpression.escapedPattern(for: option) + #" +(?:'([^']*)'|(\S+))"#)
        let whole = NSRange(command.startIndex..., in: command)
        return try argument.matches(in: command, range: whole).map { match in
            let range = match.range(at: 1).location != NSNotFound ? match.range(at: 1) : match.range(at: 2)
            return try NSRegularExpression(pattern: String(command[Range(range, in: command)!]))
        }
    }
}

extension NSRegularExpression {
    fileprivate func matches(_ text: String) -> Bool {
        firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
