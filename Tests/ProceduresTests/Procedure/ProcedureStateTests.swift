import Foundation
import ProceduresTesting
import XCTest

/// The documented state properties: `isReady`, `errors` / `failed`, `name`, `dependencies`.
final class ProcedureStateTests: ProcedureTestCase {
    func testIsReadyFollowsProcedureDependenciesAndCancellation() {
        let gate = makeGate()
        let procedure = TestProcedure(name: "dependent")
        XCTAssertTrue(procedure.isReady)
        procedure.addDependency(gate)
        XCTAssertFalse(procedure.isReady, "an unfinished dependency")
        procedure.cancel()
        XCTAssertTrue(procedure.isReady, "a cancelled procedure no longer waits")
        wait(for: procedure)
        gate.finish()
        wait(for: gate)
    }

    func testIsReadyOnceTheDependencyFinished() {
        let dependency = TestProcedure(name: "dependency")
        let procedure = TestProcedure(name: "dependent")
        procedure.addDependency(dependency)
        XCTAssertFalse(procedure.isReady)
        wait(for: dependency)
        XCTAssertTrue(procedure.isReady)
    }

    func testIsReadyWaitsForAnUnfinishedPlainOperation() {
        let operation = BlockOperation {}
        let procedure = TestProcedure(name: "dependent")
        procedure.addDependency(operation)
        XCTAssertFalse(procedure.isReady)
        XCTAssertTrue(procedure.dependencies.contains { $0 === operation })
    }

    func testIsAsynchronous() {
        XCTAssertTrue(TestProcedure().isAsynchronous)
    }

    func testNameIsStoredAndThreadSafe() {
        let procedure = TestProcedure(name: "initial")
        XCTAssertEqual(procedure.name, "initial")
        DispatchQueue.concurrentPerform(iterations: 100) { index in
            procedure.name = "name \(index)"
            _ = procedure.name
        }
        XCTAssertTrue(procedure.name?.hasPrefix("name ") ?? false)
    }

    func testDependenciesListsEachDependencyOnceProceduresFirst() {
        let first = TestProcedure(name: "first")
        let plain = BlockOperation {}
        let second = TestProcedure(name: "second")
        let procedure = TestProcedure(name: "dependent")
        procedure.addDependency(first)
        procedure.addDependency(plain)
        procedure.addDependency(second)
        procedure.addDependency(first)
        let dependencies = procedure.dependencies
        XCTAssertEqual(dependencies.count, 3, "\(dependencies)")
        XCTAssertTrue(dependencies.first === first)
        XCTAssertTrue(dependencies.last === plain)
    }

    func testRemoveDependencyBeforeEnqueue() {
        let gate = makeGate()
        let procedure = TestProcedure(name: "freed")
        procedure.addDependency(gate)
        procedure.removeDependency(gate)
        XCTAssertTrue(procedure.dependencies.isEmpty)
        XCTAssertTrue(procedure.isReady)
        wait(for: procedure)  // would time out if it still waited for the gate
        assertProcedureFinished(procedure)
        XCTAssertEqual(misuse.kinds(about: procedure), [])
    }

    func testErrorsAreCancelErrorsThenFinishErrors() {
        let cancelError = TestError("cancel")
        let finishError = TestError("finish")
        let procedure = TracedProcedure("both", trace: CallbackTrace(), observed: false) { procedure in
            procedure.cancel(withError: cancelError)
            procedure.finish(withError: finishError)
        }
        wait(for: procedure)
        XCTAssertTrue(procedure.failed)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertTrue(testErrors(procedure.errors, equal: [cancelError, finishError]), "\(procedure.errors)")
    }

    func testFinishBeforeEnqueueWhileWaitingSkipsExecute() {
        // finish() on a procedure that waits for a dependency is remembered; when the queue
        // starts it, it finishes without executing.
        let gate = makeGate()
        let procedure = TestProcedure(name: "finished while waiting")
        procedure.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, procedure], waitUntilFinished: false)
        procedure.finish(withError: TestError("early"))
        XCTAssertFalse(procedure.isFinished)
        gate.finish()
        wait(for: procedure)
        assertProcedureFinishedWithErrors(procedure, count: 1)
        XCTAssertFalse(procedure.didExecute)
    }
}
