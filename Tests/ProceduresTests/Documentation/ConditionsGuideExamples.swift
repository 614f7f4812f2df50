import Foundation
import ProceduresTesting
import XCTest

// The code of Documentation/Conditions.md, verbatim (DocumentationSnippetsTests checks that
// every snippet appears here or in another test file), compiled and run.

private struct Settings: Sendable {
    var uploadsEnabled: Bool
}

private struct Network: Sendable {
    var isReachable: Bool
}

private struct Battery: Sendable {
    var isLow: Bool
}

private struct Session: Sendable {
    var isLoggedIn: Bool
}

private enum AlertCategory {}

private struct Cache: Sendable {
    var isFresh: Bool
}

final class FileExistsCondition: Condition, @unchecked Sendable {
    let url: URL

    init(url: URL) {
        self.url = url
        super.init()
        name = "FileExists(\(url.lastPathComponent))"
    }

    override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        let path = url.path
        DispatchQueue.global().async {
            if FileManager.default.fileExists(atPath: path) {
                completion(.satisfied)
            } else {
                completion(.failed(CocoaError(.fileNoSuchFile)))
            }
        }
    }
}

final class ConditionsGuideExamples: XCTestCase {
    func testAddingACondition() {
        let queue = ProcedureQueue()
        let settings = Settings(uploadsEnabled: false)
        let upload = BlockProcedure { print("uploading") }
        upload.addCondition(BlockCondition { settings.uploadsEnabled })
        queue.addOperation(upload)
        wait(for: upload)
        XCTAssertTrue(upload.isCancelled)
    }

    func testNoFailedDependenciesAndTheErrorItGives() {
        let queue = ProcedureQueue()
        let download = TestProcedure(name: "download", error: TestError())
        let report = BlockProcedure { print("report") }
        report.addDependency(download)
        report.addCondition(NoFailedDependenciesCondition())
        queue.addOperations([download, report], waitUntilFinished: false)
        wait(for: report)
        if case ProcedureError.conditionFailed(let name, let error)? = report.errors.first {
            print("\(name) failed: \(error)")
        }
        XCTAssertEqual(conditionFailure(of: report)?.name, "NoFailedDependencies")
    }

    func testComposition() {
        let network = Network(isReachable: true)
        let battery = Battery(isLow: false)
        let sync = BlockProcedure { print("syncing") }
        sync.addCondition(BlockCondition { network.isReachable } && !BlockCondition { battery.isLow })
        wait(for: sync)
        assertProcedureFinished(sync)
    }

    func testFileExistsCondition() throws {
        let queue = ProcedureQueue()
        let inbox = FileManager.default.temporaryDirectory.appendingPathComponent("inbox-\(UUID().uuidString).json")
        let importer = BlockProcedure { print("importing") }
        importer.addCondition(FileExistsCondition(url: inbox))
        queue.addOperation(importer)
        wait(for: importer)
        XCTAssertEqual((conditionFailure(of: importer)?.error as? CocoaError)?.code, .fileNoSuchFile)

        try Data("{}".utf8).write(to: inbox)
        defer { try? FileManager.default.removeItem(at: inbox) }
        let present = BlockProcedure { print("importing") }
        present.addCondition(FileExistsCondition(url: inbox))
        wait(for: present, on: queue)
        assertProcedureFinished(present)
    }

    func testProducedDependency() {
        let queue = ProcedureQueue()
        let session = Session(isLoggedIn: true)
        let login = BlockProcedure { print("showing the login screen") }
        let loggedIn = BlockCondition { session.isLoggedIn }
        loggedIn.produceDependency(login)
        let fetch = BlockProcedure { print("fetching") }
        fetch.addCondition(loggedIn)
        queue.addOperation(fetch)
        wait(for: fetch)
        XCTAssertTrue(login.isFinished)
        assertProcedureFinished(fetch)
    }

    func testMutualExclusionAcrossQueues() {
        let first = BlockProcedure { print("first alert") }
        let second = BlockProcedure { print("second alert") }
        first.addCondition(MutuallyExclusive<AlertCategory>())
        second.addCondition(MutuallyExclusive<AlertCategory>())
        ProcedureQueue().addOperation(first)
        ProcedureQueue().addOperation(second)
        wait(for: first, second)
        assertProcedureFinished(first)
        assertProcedureFinished(second)
    }

    func testDependencyRequirements() {
        let queue = ProcedureQueue()
        let cache = Cache(isFresh: true)
        let refresh = TestProcedure(name: "refresh", error: TestError())
        let upToDate = BlockCondition { cache.isFresh }
        upToDate.produceDependency(refresh)
        upToDate.dependencyRequirements = .noFailed
        let render = BlockProcedure { print("rendering") }
        render.addCondition(upToDate)
        queue.addOperation(render)
        wait(for: render)
        XCTAssertTrue(render.isCancelled)
        XCTAssertEqual(conditionFailure(of: render)?.error as? ConditionError, .dependenciesFailed(names: ["refresh"]))
    }
}
