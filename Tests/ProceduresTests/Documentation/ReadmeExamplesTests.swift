import Foundation
import ProceduresTesting
import XCTest

// README.md's snippets, verbatim (DocumentationSnippetsTests checks that they are here).

final class Download: Procedure, @unchecked Sendable {
    let url: URL
    private(set) var data: Data?

    init(url: URL) {
        self.url = url
        super.init()
    }

    override func execute() {
        DispatchQueue.global().async { [self] in
            do {
                data = try Data(contentsOf: url)
                finish()
            } catch {
                finish(withError: error)
            }
        }
    }
}

final class ReadmeExamplesTests: XCTestCase {
    /// The README's `main.swift`: top-level code that awaits the procedure before it ends.
    func testCommandLineMainAwaitsItsProcedure() async throws {
        let queue = ProcedureQueue()
        let download = Download(url: URL(fileURLWithPath: "/etc/hostname"))
        try await queue.run(download)   // returns once it has finished
        print("downloaded \(download.data?.count ?? 0) bytes")

        XCTAssertTrue(download.isFinished)
        XCTAssertNotNil(download.data)
    }

    func testQuickStart() async throws {
        let queue = ProcedureQueue()
        let download = Download(url: URL(fileURLWithPath: "/etc/hostname"))
        download.addDidFinishBlockObserver { download, errors in
            print("downloaded \(download.data?.count ?? 0) bytes", errors)
        }
        queue.addOperation(download)

        let pause = DelayProcedure(by: 0.1)
        let report = BlockProcedure { print("children done") }
        report.addDependency(pause)
        let group = GroupProcedure(operations: [pause, report])
        queue.addOperation(group)

        let slow = DelayProcedure(by: 60)
        let work = GroupProcedure(operations: [slow])
        queue.addOperation(work)
        work.cancel()   // `slow` is cancelled and finishes at once; then the group finishes

        let answer = ResultProcedure { 6 * 7 }
        let doubled = queue.future(answer).map { $0 * 2 }
        doubled.onSuccess { print($0) }   // 84

        func total() async throws -> Int {
            try await queue.run(ResultProcedure { 20 + 22 })   // Task cancellation cancels the procedure
        }

        try await queue.run(download)
        try await queue.run(group)
        assertProcedureFinished(report)
        do {
            try await queue.run(work)
            XCTFail("a cancelled group throws CancellationError")
        } catch is CancellationError {}
        XCTAssertTrue(slow.isCancelled && slow.isFinished)
        let value = try await doubled.value
        XCTAssertEqual(value, 84)
        let sum = try await total()
        XCTAssertEqual(sum, 42)
    }
}
