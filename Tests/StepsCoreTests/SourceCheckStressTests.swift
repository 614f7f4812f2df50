import Foundation
import Procedures
import ProceduresTestSupport
import XCTest
@testable import StepsCore

/// Many steps checking overlapping sources at once share one hash cache and one hashing
/// queue: every check gets every file's true hash, while files are being rewritten.
final class SourceCheckStressTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("source-check-stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("src/sub"), withIntermediateDirectories: true)
        for index in 0..<200 {
            try Data("file \(index)\n".utf8).write(to: root.appendingPathComponent(index % 2 == 0 ? "src/f\(index).txt" : "src/sub/f\(index).txt"))
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    func testConcurrentChecksOfSharedSourcesAllSeeTrueHashes() throws {
        let cache = FileHashCache()
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 4
        let patterns = [
            GlobPatternList(patterns: [try GlobPattern("src/**/*.txt")]),
            GlobPatternList(patterns: [try GlobPattern("src/sub")]),
            GlobPatternList(patterns: [try GlobPattern("src/*.txt"), try GlobPattern("!src/f1*.txt")]),
        ]
        let base = root.path
        let wrong = LockedBox<[String]>([])
        for round in 0..<stressIterations(20) {
            // A file rewritten between rounds, with the same size, within moments of being
            // hashed: the next checks must see its new content.
            try Data((round % 2 == 0 ? "FILE 0\n" : "file 0\n").utf8).write(to: root.appendingPathComponent("src/f0.txt"))
            let checks = 12
            let done = (0..<checks).map { expectation(description: "check \($0) of round \(round)") }
            for index in 0..<checks {
                let list = patterns[index % patterns.count]
                SourceCheck.run(patterns: list, base: base, cache: cache, trust: true, queue: queue, name: "c\(index)") { hashes in
                    guard let hashes else {
                        wrong.mutate { $0.append("check \(index) got no answer") }
                        return done[index].fulfill()
                    }
                    let expected = GlobExpansion(list, in: base).files
                    if hashes.files.map(\.path) != expected { wrong.mutate { $0.append("check \(index) listed other files") } }
                    for file in hashes.files {
                        let content = (try? Data(contentsOf: URL(fileURLWithPath: base + "/" + file.path))) ?? Data()
                        if XXHash64.hash(content) != file.hash { wrong.mutate { $0.append("\(file.path): a stale hash") } }
                    }
                    done[index].fulfill()
                }
            }
            wait(for: done, timeout: 30)
        }
        XCTAssertEqual(wrong.value, [])
    }

    func testThreadsHashingTheSameFilesThroughOneCacheAgree() throws {
        let paths = (0..<200).map { root.appendingPathComponent($0 % 2 == 0 ? "src/f\($0).txt" : "src/sub/f\($0).txt").path }
        let cache = FileHashCache()
        let wrong = LockedBox(0)
        let finished = (0..<4).map { expectation(description: "thread \($0)") }
        for thread in 0..<4 {
            Thread.detachNewThread {
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
                defer { buffer.deallocate() }
                for _ in 0..<stressIterations(20) {
                    for (index, path) in paths.enumerated() {
                        let expected = XXHash64.hash("file \(index)\n")
                        if cache.hash(of: path, trust: true, buffer: buffer) != .hashed(expected) { wrong.mutate { $0 += 1 } }
                    }
                }
                finished[thread].fulfill()
            }
        }
        wait(for: finished, timeout: 60)
        XCTAssertEqual(wrong.value, 0)
        XCTAssertEqual(cache.entriesToKeep(everythingSeen: true).count, 200)
    }
}
