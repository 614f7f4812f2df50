import Foundation
import XCTest
@testable import StepsCore

/// `sources` and `generates` patterns: what they match, as paths and as a walk of a real
/// directory tree.
final class GlobPatternTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("glob-tests-\(UUID().uuidString)")
        for file in [
            "Package.swift", "README.md", "Sources/a.swift", "Sources/b.txt", "Sources/deep/er/c.swift",
            "Sources/.hidden/d.swift", "Sources/.e.swift", ".build/f.swift", "Tests/g.swift", "Sources/generated/h.swift",
        ] {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.utf8).write(to: url)
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func pattern(_ text: String) -> GlobPattern { try! GlobPattern(text) }

    private func files(_ patterns: [String], in base: String? = nil) -> [String] {
        GlobExpansion(GlobPatternList(patterns: patterns.map(pattern)), in: base ?? root.path).files
    }

    func testWildcardsMatchWithinOneSegmentAndDoubleStarAnyDirectories() {
        XCTAssertTrue(pattern("Sources/*.swift").matches(path: "Sources/a.swift"))
        XCTAssertFalse(pattern("Sources/*.swift").matches(path: "Sources/deep/c.swift"))
        XCTAssertTrue(pattern("Sources/**/*.swift").matches(path: "Sources/a.swift"), "** matches no directory too")
        XCTAssertTrue(pattern("Sources/**/*.swift").matches(path: "Sources/deep/er/c.swift"))
        XCTAssertTrue(pattern("**/*.swift").matches(path: "Package.swift"))
        XCTAssertTrue(pattern("Sources/?.swift").matches(path: "Sources/a.swift"))
        XCTAssertTrue(pattern("Sources/[ab].*").matches(path: "Sources/b.txt"))
        XCTAssertFalse(pattern("Sources/[!ab].*").matches(path: "Sources/b.txt"))
        XCTAssertTrue(pattern("./Sources//a.swift").matches(path: "Sources/a.swift"), "'.' and empty segments are dropped")
        XCTAssertTrue(pattern("../Sources/*.swift").matches(path: "../Sources/a.swift"))
    }

    func testWildcardsLeaveHiddenNamesOutUnlessThePatternSpellsTheDot() {
        XCTAssertFalse(pattern("Sources/*.swift").matches(path: "Sources/.e.swift"))
        XCTAssertFalse(pattern("Sources/**/*.swift").matches(path: "Sources/.hidden/d.swift"))
        XCTAssertFalse(pattern("**").matches(path: ".build/f.swift"))
        XCTAssertTrue(pattern("Sources/.*.swift").matches(path: "Sources/.e.swift"))
        XCTAssertTrue(pattern(".build/*.swift").matches(path: ".build/f.swift"))
    }

    func testALiteralDirectoryStandsForTheFilesUnderIt() {
        XCTAssertTrue(pattern("Sources").matches(path: "Sources/deep/er/c.swift"))
        XCTAssertFalse(pattern("Sources").matches(path: "Sources/.hidden/d.swift"))
        XCTAssertFalse(pattern("Sources/*").matches(path: "Sources/deep/er/c.swift"), "a wildcard matches files only")
        XCTAssertEqual(files(["Sources"]), ["Sources/a.swift", "Sources/b.txt", "Sources/deep/er/c.swift", "Sources/generated/h.swift"])
    }

    func testExpansionWalksTheTreeAndExclusionsTakeFilesAway() {
        XCTAssertEqual(files(["Sources/**/*.swift", "Package.swift"]), [
            "Package.swift", "Sources/a.swift", "Sources/deep/er/c.swift", "Sources/generated/h.swift",
        ])
        XCTAssertEqual(files(["Sources/**/*.swift", "!Sources/generated/**"]), ["Sources/a.swift", "Sources/deep/er/c.swift"])
        XCTAssertEqual(files(["**/*.swift"]).count, 5, "hidden directories are not walked: \(files(["**/*.swift"]))")
        XCTAssertEqual(files(["Sources/*"]), ["Sources/a.swift", "Sources/b.txt"])
        XCTAssertEqual(files(["Sources/a.swift", "Sources/*.swift"]), ["Sources/a.swift"], "each file once")
        XCTAssertEqual(files(["../Sources/*.swift"], in: root.appendingPathComponent("Tests").path), ["../Sources/a.swift"])
        XCTAssertEqual(files([root.path + "/Tests/*.swift"]), [root.path + "/Tests/g.swift"], "absolute patterns stay absolute")
    }

    func testMissingLiteralsAreReportedAndTheirNearestDirectoryWatched() {
        let expansion = GlobExpansion(GlobPatternList(patterns: [pattern("Sources/new/x.swift"), pattern("Nowhere/**")]), in: root.path)
        XCTAssertEqual(expansion.files, [])
        XCTAssertEqual(expansion.missing, ["Sources/new/x.swift"])
        XCTAssertTrue(expansion.directories.contains(root.appendingPathComponent("Sources").path), "\(expansion.directories)")
        XCTAssertTrue(expansion.directories.contains(root.path), "\(expansion.directories)")
    }

    func testALinkedDirectoryIsNotFollowedByDoubleStarSoALoopEnds() throws {
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("Sources/loop").path, withDestinationPath: root.path)
        XCTAssertEqual(files(["Sources/**/*.swift"]), ["Sources/a.swift", "Sources/deep/er/c.swift", "Sources/generated/h.swift"])
        XCTAssertEqual(files(["Sources/loop/Tests/*.swift"]), ["Sources/loop/Tests/g.swift"], "a link named in the pattern is followed")
    }

    func testAbsolutePathsAreMatchedAgainstTheirBaseAsWatchEventsAre() {
        let list = GlobPatternList(patterns: [pattern("../Sources/**/*.swift"), pattern("!../Sources/gen/**"), pattern("/etc/*.conf")])
        XCTAssertTrue(list.matches("/p/Examples/../Sources/a/b.swift", base: "/p/Examples"))
        XCTAssertFalse(list.matches("/p/Examples/../Sources/gen/b.swift", base: "/p/Examples"))
        XCTAssertFalse(list.matches("/p/Sources/a/b.swift", base: "/p/Examples"), "spelt as the walk spells it")
        XCTAssertTrue(list.matches("/etc/x.conf", base: "/p/Examples"))
        XCTAssertFalse(list.matches("/etc/sub/x.conf", base: "/p/Examples"))
    }

    func testProblemsAreNamed() {
        XCTAssertThrowsError(try GlobPattern("")) { XCTAssertEqual(($0 as? GlobPattern.Problem)?.reason, "the pattern is empty") }
        XCTAssertThrowsError(try GlobPattern("!")) { XCTAssertEqual(($0 as? GlobPattern.Problem)?.reason, "'!' needs a pattern after it") }
        XCTAssertThrowsError(try GlobPattern("./")) { XCTAssertEqual(($0 as? GlobPattern.Problem)?.reason, "the pattern names no file") }
        XCTAssertThrowsError(try GlobPattern("a/[bc")) { XCTAssertEqual(($0 as? GlobPattern.Problem)?.reason, "'[' without a closing ']' in '[bc'") }
        XCTAssertNoThrow(try GlobPattern("a/[]x]"), "a leading ] is part of the class")
    }
}
