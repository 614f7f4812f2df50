import Foundation
import ProceduresTesting
import XCTest

// The code of Documentation/DataFlow.md, verbatim (DocumentationSnippetsTests checks that
// every snippet appears in a test file), compiled and run with assertions around it.

struct FileCount: Sendable {
    let name: String
    let lines: Int
    let bytes: Int
}

struct Summary: Sendable, Equatable {
    var files = 0
    var lines = 0
    var bytes = 0
    var largest: String?
    var largestBytes = 0
}

/// Lists a directory, reads its files `width` at a time, and sums them up.
final class SummarizeDirectory: ResultGroupProcedure<Summary>, @unchecked Sendable {
    // @unchecked: no stored properties of its own.
    init(_ directory: URL, width: Int = 4) {
        let list = ResultProcedure {
            try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
                .sorted { $0.path < $1.path }
        }
        let read = BatchProcedure(width: width) { (file: URL) in
            let data = try Data(contentsOf: file)
            let lines = data.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            return FileCount(name: file.lastPathComponent, lines: lines, bytes: data.count)
        }
        read.injectResult(from: list)
        let summarize = ReduceProcedure(into: Summary()) { (summary: inout Summary, file: FileCount) in
            if summary.largest == nil || file.bytes > summary.largestBytes {
                summary.largest = file.name
                summary.largestBytes = file.bytes
            }
            summary.files += 1
            summary.lines += file.lines
            summary.bytes += file.bytes
        }
        summarize.injectResult(from: read)
        super.init(operations: [list, read, summarize])
        bind(from: summarize)
    }
}
final class Greet: ResultGroupProcedure<String>, InputProcedure, @unchecked Sendable {
    // @unchecked: `input` is set before the group executes and read by a child after.
    var input: String?

    init() {
        let greet = TransformProcedure { (name: String) in "Hello, \(name)!" }
        super.init(operations: [greet])
        bind(to: greet)     // the child gets the group's input
        bind(from: greet)   // the group gets the child's output
    }
}

struct ParseError: Error {}

struct SyncSettings: Codable, Sendable, Equatable {
    var syncEnabled: Bool
}

/// Stands in for a network call in the guide.
func fetchPage(_ page: Int) async throws -> String {
    await Task.yield()
    return "page \(page)"
}

final class DataFlowGuideTests: XCTestCase {
    let queue = ProcedureQueue()
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("DataFlowGuide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in [("a.txt", "one\ntwo\n"), ("b.txt", "three\n"), ("c.txt", "four\nfive\nsix\nseven\n")] {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    func testTheProgram() async throws {
        let directory = self.directory!
        let queue = ProcedureQueue()
        let summary = try await queue.future(SummarizeDirectory(directory)).value
        print("\(summary.files) files, \(summary.lines) lines, \(summary.bytes) bytes")
        XCTAssertEqual(summary, Summary(files: 3, lines: 7, bytes: 34, largest: "c.txt", largestBytes: 20))
    }

    func testTheProgramFailsWithAnUnreadableFile() async throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
        do {
            _ = try await queue.future(SummarizeDirectory(directory)).value
            XCTFail("a directory cannot be read as a file")
        } catch {
            // The error of reading `sub` as a file, once: the reduction that could not run
            // only repeats it, and the group leaves that out.
            XCTAssertFalse(error is ProcedureError, "expected the read error itself, got \(error)")
            XCTAssertEqual((error as NSError).domain, NSCocoaErrorDomain, "\(error)")
        }
    }

    func testInjectingWithATransform() {
        let download = ResultProcedure { Data("42".utf8) }
        let double = TransformProcedure { (x: Int) in x * 2 }
        double.injectResult(from: download) { data in
            guard let x = Int(String(decoding: data, as: UTF8.self)) else { throw ParseError() }
            return x
        }
        wait(for: download, double)
        XCTAssertEqual(double.output, 84)
        let lookup = ResultProcedure<String?> { ProcessInfo.processInfo.environment["HOME"] }
        let home = TransformProcedure { (path: String) in URL(fileURLWithPath: path) }
        home.injectResult(from: lookup)   // a nil output cancels `home` (noOutput)
        wait(for: lookup, home)
        if ProcessInfo.processInfo.environment["HOME"] == nil {
            XCTAssertTrue(home.isCancelled)
        } else {
            XCTAssertNotNil(home.output)
        }
    }

    func testAGroupWithAnInputAndAnOutput() {
        let name = ResultProcedure { "Ada" }
        let greet = Greet()
        greet.injectResult(from: name)
        queue.addOperations([name, greet], waitUntilFinished: false)
        wait(for: greet)
        XCTAssertEqual(greet.output, "Hello, Ada!")
    }

    func testSequences() {
        let words = ResultProcedure { ["apple", "kiwi", "banana", "fig"] }
        let long = FilterProcedure { (word: String) in word.count > 3 }
        long.injectResult(from: words)
        let lengths = MapProcedure { (word: String) in word.count }
        lengths.injectResult(from: long)
        let total = ReduceProcedure(0) { (sum: Int, length: Int) in sum + length }
        total.injectResult(from: lengths)
        queue.addOperations([words, long, lengths, total], waitUntilFinished: false)
        wait(for: total)
        XCTAssertEqual(total.output, 15)
        let numbers = ResultProcedure { Array(1...10) }
        let evens = numbers.filter { $0 % 2 == 0 }
        let sum = evens.reduce(0, +)
        queue.addOperations([numbers, evens, sum], waitUntilFinished: false)
        wait(for: sum)
        XCTAssertEqual(sum.output, 30)
        let sizes = ["a", "bb", "ccc"].map { text in ResultProcedure { text.count } }
        let all = sizes.gathered()
        queue.addOperations(sizes + [all], waitUntilFinished: false)
        wait(for: all)
        XCTAssertEqual(all.output, [1, 2, 3])
    }

    func testBatches() async throws {
        let pages = BatchProcedure(input: Array(1...20), width: 4, operation: { (page: Int) in
            try await fetchPage(page)
        })
        let counts = BatchProcedure(input: ["one two", "three"], width: 2, makeChild: { text in
            CountWords(text)
        })
        queue.addOperations([pages, counts], waitUntilFinished: false)
        switch await queue.future(pages).outcome {
        case .success(let all): print("fetched \(all.count) pages")
        case .failure(let error): print("failed: \(error)")
        case .cancelled: print("kept \(pages.partialOutput?.compactMap { $0 }.count ?? 0) pages")
        }
        XCTAssertEqual(pages.output?.first, "page 1")
        XCTAssertEqual(pages.output?.count, 20)
        let wordCounts = try await queue.future(counts).value
        XCTAssertEqual(wordCounts, [2, 1])
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        let strict = BatchProcedure(input: files, width: 4, onFailure: .cancelRemaining) { file in
            try Data(contentsOf: file)
        }
        let contents = try await queue.future(strict).value
        XCTAssertEqual(contents.count, 3)
    }

    func testWrapping() {
        let syncEnabled = false
        let cacheFile = directory.appendingPathComponent("missing")
        let legacy = ComposedProcedure(BlockOperation { print("an Operation from elsewhere") })
        legacy.addDidFinishBlockObserver { _, _ in print("legacy work done") }

        let sync = GatedProcedure(BlockProcedure { print("syncing") }) { syncEnabled }
        let prefetch = IgnoreErrorsProcedure(ResultProcedure { try Data(contentsOf: cacheFile) })
        wait(for: legacy, sync, prefetch)
        assertProcedureFinished(legacy)
        assertProcedureFinished(sync)
        XCTAssertTrue(sync.operation.isCancelled)
        assertProcedureFinished(prefetch)
        let sources: [any OutputProcedure<Int>] = [ResultProcedure { 1 }, CountWords("two words")]
        let total = sources.map { AnyOutputProcedure($0) }.gathered()
        wait(forAll: total.dependencies.compactMap { $0 as? Procedure } + [total])
        XCTAssertEqual(total.output, [1, 2])
    }

    func testJSON() {
        let encode = EncodeJSONProcedure(input: SyncSettings(syncEnabled: true)) { $0.outputFormatting = .sortedKeys }
        let decode = DecodeJSONProcedure<SyncSettings>()
        decode.injectResult(from: encode)
        wait(for: encode, decode)
        XCTAssertEqual(decode.output, SyncSettings(syncEnabled: true))
    }
}
