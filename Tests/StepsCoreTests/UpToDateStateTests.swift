import Foundation
import XCTest
@testable import StepsCore

/// The state file round-trips, refuses what it cannot trust, and the cache behind it reads a
/// file only when its stamp cannot be trusted.
final class UpToDateStateTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("state-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private let sample = UpToDateState(
        steps: ["build": StepFingerprint(command: 1, environment: 2, directory: 3, sources: .max, needs: 0)],
        files: [
            "/p/Sources/a.swift": CachedFileHash(
                stamp: FileStamp(device: 64768, inode: 1234, size: 99, modified: 1_700_000_000_123_456_789, changed: -5),
                hash: 0xDEAD_BEEF, verified: 1_700_000_001_000_000_000),
            "/p/odd\tname\nwith\\escapes": CachedFileHash(
                stamp: FileStamp(device: 1, inode: .max, size: 0, modified: 0, changed: 0), hash: 0, verified: 0),
        ])

    func testTheStateRoundTripsThroughItsFile() throws {
        let url = root.appendingPathComponent(".steps/pipeline.json.state")
        try sample.write(to: url)
        XCTAssertEqual(try UpToDateState.load(from: url), sample)
        let text = try String(contentsOf: url, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("steps-state 1\nstep\tbuild\t0000000000000001\t"), text)
        XCTAssertTrue(text.contains("\t/p/odd\\tname\\nwith\\\\escapes\n"), text)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path), ["pipeline.json.state"],
            "the temporary file was renamed")
        XCTAssertEqual(try UpToDateState.load(from: root.appendingPathComponent("none")), UpToDateState(), "no file: an empty state")
    }

    func testAnythingButAWholeStateOfThisVersionIsRefusedWithItsReason() {
        let good = sample.encoded()
        let cases: [([UInt8], String)] = [
            (Array("steps-state 2\n".utf8), "was written by another version of steps (2, this one reads 1)"),
            (Array("{\"steps\": 1}".utf8), "is not a steps state file"),
            ([], "is empty"),
            (Array(good.dropLast(30)), "is corrupt (line 4)"),
            (Array("steps-state 1\nstep\tb\t1\t2\t3\t4\t5\n".utf8), "is corrupt (line 2)"),
            (Array("steps-state 1\nfile\t1\t2\t3\t4\t5\t0000000000000000\t7\t\n".utf8), "is corrupt (line 2)"),
            (Array("steps-state 1\nfile\t1\t2\t3\t4\t5\t0000000000000000\t7\tbad\\q\n".utf8), "is corrupt (line 2)"),
            (Array("steps-state 1\nwhat\n".utf8), "is corrupt (line 2)"),
        ]
        for (bytes, reason) in cases {
            XCTAssertThrowsError(try UpToDateState.decode(bytes), String(decoding: bytes, as: UTF8.self)) {
                XCTAssertEqual(($0 as? UpToDateState.Unusable)?.reason, reason)
            }
        }
    }

    func testAFileIsReadOnlyWhenItsStampCannotBeTrusted() throws {
        let path = root.appendingPathComponent("a.txt").path
        try Data("content".utf8).write(to: URL(fileURLWithPath: path))
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        let stamp = FileStamp(info)
        let real = XXHash64.hash("content")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        // A stamp recorded long after the file last changed: trusted, the recorded hash is
        // returned without reading (it is deliberately not the content's).
        let settled = CachedFileHash(stamp: stamp, hash: 42, verified: stamp.changed + 10_000_000_000)
        XCTAssertEqual(FileHashCache(entries: [path: settled]).hash(of: path, trust: true, buffer: buffer), .hashed(42))
        XCTAssertEqual(FileHashCache(entries: [path: settled]).hash(of: path, trust: false, buffer: buffer), .hashed(real), "--force reads")
        // Recorded within the racy margin of its last change: read again.
        let racy = CachedFileHash(stamp: stamp, hash: 42, verified: stamp.changed + 1_000_000_000)
        XCTAssertEqual(FileHashCache(entries: [path: racy]).hash(of: path, trust: true, buffer: buffer), .hashed(real))
        // Another stamp (here: another size): read again, and remembered.
        var other = stamp
        other.size += 1
        let cache = FileHashCache(entries: [path: CachedFileHash(stamp: other, hash: 42, verified: .max / 2)])
        XCTAssertEqual(cache.hash(of: path, trust: true, buffer: buffer), .hashed(real))
        XCTAssertTrue(cache.isDirty)
        XCTAssertEqual(cache.entriesToKeep(everythingSeen: true)[path]?.hash, real)
        XCTAssertEqual(cache.changedSinceLoad(path, hash: real), true)
        guard case .unreadable = cache.hash(of: path + ".missing", trust: true, buffer: buffer) else { return XCTFail("a missing file is unreadable") }
    }

    func testTheFingerprintNamesTheFirstPartThatChangedAndIgnoresInheritedEnvironment() {
        let step = Step(name: "s", command: .shell("make"), environment: ["B": "2"], workingDirectory: "sub")
        let base = StepFingerprint(step: step, pipelineEnvironment: ["A": "1"], sources: 5, needs: 6)
        XCTAssertNil(base.difference(from: base))
        var changed = step
        changed.command = .argv(["make"])
        XCTAssertEqual(StepFingerprint(step: changed, pipelineEnvironment: ["A": "1"], sources: 5, needs: 6).difference(from: base), .command)
        XCTAssertEqual(StepFingerprint(step: step, pipelineEnvironment: ["A": "2"], sources: 5, needs: 6).difference(from: base), .environment)
        XCTAssertEqual(StepFingerprint(step: step, pipelineEnvironment: ["A": "1", "B": "2"], sources: 5, needs: 6), base,
            "the step's own env wins over the pipeline's, and the merged result is what counts")
        changed = step
        changed.workingDirectory = nil
        XCTAssertEqual(StepFingerprint(step: changed, pipelineEnvironment: ["A": "1"], sources: 5, needs: 6).difference(from: base), .directory)
        XCTAssertEqual(StepFingerprint(step: step, pipelineEnvironment: ["A": "1"], sources: 7, needs: 6).difference(from: base), .sources)
        XCTAssertEqual(StepFingerprint(step: step, pipelineEnvironment: ["A": "1"], sources: 5, needs: 7).difference(from: base), .needs)
        XCTAssertNotEqual(
            StepFingerprint.sourcesDigest(files: [("a", 1), ("b", 2)], missing: []),
            StepFingerprint.sourcesDigest(files: [("a", 2), ("b", 1)], missing: []))
        XCTAssertNotEqual(
            StepFingerprint.sourcesDigest(files: [], missing: ["x"]), StepFingerprint.sourcesDigest(files: [], missing: []))
    }
}
