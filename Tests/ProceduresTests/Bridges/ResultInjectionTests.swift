import Foundation
import ProceduresTesting
import XCTest

/// `b.injectResult(from: a)`.
final class ResultInjectionTests: MisuseRecordingTestCase {
    func testPassesTheValueAndMakesTheSourceADependency() {
        let source = ResultProcedure { 20 }
        let add = TransformProcedure { (x: Int) in x + 22 }
        add.injectResult(from: source)
        XCTAssertTrue(add.dependencies.contains { $0 === source })
        wait(for: source, add)
        assertProcedureFinished(add)
        XCTAssertEqual(add.input, 20)
        XCTAssertEqual(add.output, 42)
    }

    func testWaitsForASlowSource() {
        let source = Blocker<String>("slow")
        let upper = TransformProcedure { (s: String) in s.uppercased() }
        upper.injectResult(from: source)
        let queue = ProcedureQueue()
        queue.addOperations([source, upper], waitUntilFinished: false)
        wait(for: [source.executed], timeout: 10)
        XCTAssertNil(upper.input)
        XCTAssertFalse(upper.isExecuting || upper.isFinished)
        source.release("hi")
        wait(for: upper)
        XCTAssertEqual(upper.output, "HI")
    }

    func testFailedSourceCancelsTheTargetWithDependencyFailed() {
        let source = ResultProcedure<Int> { throw TestError("e1") }
        source.name = "Source"
        let ran = LockedBox(false)
        let target = TransformProcedure { (x: Int) -> Int in
            ran.mutate { $0 = true }
            return x
        }
        target.injectResult(from: source)
        wait(for: source, target)
        assertProcedureCancelled(target, withErrors: true)
        XCTAssertFalse(ran.value, "the target never executes")
        XCTAssertNil(target.output)
        guard case .dependencyFailed(let name, let errors)? = target.errors.first as? ProcedureError else {
            return XCTFail("expected dependencyFailed, got \(target.errors)")
        }
        XCTAssertEqual(name, "Source")
        XCTAssertEqual(errors.first as? TestError, TestError("e1"))
    }

    func testCancelledSourceCancelsTheTargetWithDependencyCancelled() {
        let source = Blocker<Int>("Source")
        let target = TransformProcedure { (x: Int) in x }
        target.injectResult(from: source)
        ProcedureQueue().addOperations([source, target], waitUntilFinished: false)
        wait(for: [source.executed], timeout: 10)
        source.cancel(withError: TestError("e3"))
        wait(for: target)
        assertProcedureCancelled(target, withErrors: true)
        guard case .dependencyCancelled(let name, let errors)? = target.errors.first as? ProcedureError else {
            return XCTFail("expected dependencyCancelled, got \(target.errors)")
        }
        XCTAssertEqual(name, "Source")
        XCTAssertEqual(errors.first as? TestError, TestError("e3"))
    }

    func testSourceWithoutOutputCancelsTheTarget() {
        let source = ResultProcedure<Int>()  // subclass form that never sets an output
        source.name = "Empty"
        let target = TransformProcedure { (x: Int) in x }
        target.injectResult(from: source)
        wait(for: source, target)
        assertProcedureCancelled(target, withErrors: true)
        guard case .noOutput(let name)? = target.errors.first as? ProcedureError else {
            return XCTFail("expected noOutput, got \(target.errors)")
        }
        XCTAssertEqual(name, "Empty")
    }

    func testInjectingFromAFinishedSource() {
        let source = ResultProcedure { "early" }
        wait(for: source)
        let target = TransformProcedure { (s: String) in s + "!" }
        target.injectResult(from: source)
        wait(for: target)
        XCTAssertEqual(misuse.reports(aboutAny: [source, target]).map(\.kind), [])
        assertProcedureFinished(target)
        XCTAssertEqual(target.output, "early!")
    }

    func testInjectingFromAFinishedFailedSource() {
        let source = ResultProcedure<String> { throw TestError("e4") }
        wait(for: source)
        let target = TransformProcedure { (s: String) in s }
        target.injectResult(from: source)
        wait(for: target)
        assertProcedureCancelled(target, withErrors: true)
        XCTAssertNotNil(target.errors.first as? ProcedureError)
    }

    func testChainOfThreeInjections() {
        let a = ResultProcedure { 1 }
        let b = TransformProcedure { (x: Int) in x + 1 }
        let c = TransformProcedure { (x: Int) in "\(x * 10)" }
        b.injectResult(from: a)
        c.injectResult(from: b)
        wait(for: c, b, a)  // added in reverse order on purpose: dependencies order them
        XCTAssertEqual(c.output, "20")
    }

    func testFailureTravelsDownAChainOfInjections() {
        let a = ResultProcedure<Int> { throw TestError("e5") }
        a.name = "A"
        let b = TransformProcedure { (x: Int) in x + 1 }
        b.name = "B"
        let c = TransformProcedure { (x: Int) in x * 2 }
        c.injectResult(from: b)
        b.injectResult(from: a)
        wait(for: a, b, c)
        assertProcedureCancelled(b, withErrors: true)
        assertProcedureCancelled(c, withErrors: true)
        guard case .dependencyCancelled(let name, _)? = c.errors.first as? ProcedureError else {
            return XCTFail("expected dependencyCancelled(B), got \(c.errors)")
        }
        XCTAssertEqual(name, "B")
    }
}

final class TransformWithoutInputTests: XCTestCase {
    func testATransformWithNeitherInputNorInjectionFailsWithMissingInput() {
        let transform = TransformProcedure { (x: Int) in x * 2 }
        transform.name = "double"
        wait(for: transform)
        assertProcedureFinishedWithErrors(transform, count: 1)
        guard case .missingInput(let name)? = transform.errors.first as? ProcedureError else {
            return XCTFail("expected missingInput, got \(transform.errors)")
        }
        XCTAssertEqual(name, "double")
        XCTAssertNil(transform.output)
    }
}
