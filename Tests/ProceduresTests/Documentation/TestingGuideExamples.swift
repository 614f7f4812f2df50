import Foundation
import ProceduresTesting
import XCTest

// Documentation/TestingProcedures.md and GettingStarted.md, verbatim.

final class GreetingWaitTests: XCTestCase {
    func testFinishes() {
        let greeting = Greeting(who: "waiter")
        wait(for: greeting, timeout: 5)
        assertProcedureFinished(greeting)
    }
}

final class TestProcedureExampleTests: XCTestCase {
    func testDependentWaitsForSlowDependency() {
        let slow = TestProcedure(name: "slow", delay: 0.05)
        let dependent = TestProcedure(name: "dependent")
        dependent.addDependency(slow)
        wait(for: slow, dependent)
        XCTAssertTrue(slow.didExecute && dependent.didExecute)
    }

    func testFailurePropagatesToTheGroup() {
        let failing = TestProcedure(error: TestError("boom"))
        let group = GroupProcedure(operations: [failing])
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
    }
}

final class EventRecorderExampleTests: XCTestCase {
    func testEventOrder() {
        let recorder = ProcedureEventRecorder()
        let procedure = TestProcedure(recorder: recorder)
        wait(for: procedure)
        XCTAssertEqual(recorder.events(of: procedure), [.willExecute, .execute, .didExecute, .willFinish, .didFinish])
        XCTAssertTrue(recorder.overlaps.isEmpty)
    }
}

final class MisuseReportExampleTests: XCTestCase {
    func testFinishingTwiceIsReported() {
        let misuse = ProcedureMisuseRecorder()
        defer { misuse.stop() }
        let procedure = BlockProcedure {}
        wait(for: procedure)
        procedure.finish()
        XCTAssertEqual(misuse.kinds(about: procedure), [.finishedTwice])
    }
}

final class GettingStartedExamplesTests: XCTestCase {
    func testGettingStarted() async throws {
        let queue = ProcedureQueue()
        let hello = BlockProcedure { print("Hello from a procedure") }
        queue.addOperation(hello)
        let fetch = BlockProcedure { print("1. fetch") }
        let store = BlockProcedure { print("2. store") }
        store.addDependency(fetch)
        queue.addOperations([store, fetch], waitUntilFinished: false)
        func measure() async throws -> Int {
            try await queue.run(ResultProcedure { "procedures".count })
        }

        try await queue.run(hello)
        try await queue.run(store)
        XCTAssertTrue(fetch.isFinished)
        let count = try await measure()
        XCTAssertEqual(count, 10)
    }
}
