import Foundation
import ProceduresTesting
import XCTest

/// A group (plain, or a `ResultGroupProcedure`) reports one root cause once: a child cancelled because the sibling
/// it injects from failed does not add its `dependencyFailed` (which repeats the sibling's
/// errors) to the group's errors.
final class SiblingEchoTests: XCTestCase {
    private func isDependencyError(_ error: any Error) -> Bool {
        switch error as? ProcedureError {
        case .dependencyFailed?, .dependencyCancelled?: return true
        default: return false
        }
    }

    func testAGroupFailsWithTheFailingSiblingsErrorOnly() {
        let source = ResultProcedure<Int> { throw TestError("root") }
        let double = TransformProcedure { (x: Int) in x * 2 }.injectResult(from: source)
        let group = ResultGroupProcedure<Int>(operations: [source, double])
        group.bind(from: double)
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertEqual(group.errors.first as? TestError, TestError("root"))
        // The consumer keeps its own account of why it did not run.
        assertProcedureCancelled(double, withErrors: true)
        guard case .dependencyFailed? = double.errors.first as? ProcedureError else {
            return XCTFail("expected dependencyFailed, got \(double.errors)")
        }
    }

    func testAPlainGroupFailsWithTheFailingSiblingsErrorOnly() {
        let source = ResultProcedure<Int> { throw TestError("root") }
        let consumer = TransformProcedure { (x: Int) in x * 2 }.injectResult(from: source)
        let group = GroupProcedure(operations: [source, consumer])
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertEqual(group.errors.first as? TestError, TestError("root"))
        assertProcedureCancelled(consumer, withErrors: true)
    }

    func testWhicheverSiblingTheGroupHearsOfFirstTheErrorIsReportedOnce() {
        // The consumer can finish (cancelled) and reach the group before the failed source's
        // own finish does; both orders end with one error.
        for round in 0..<stressIterations(200) {
            let source = ResultProcedure<Int> { throw TestError("root \(round)") }
            let consumers = (0..<3).map { _ in TransformProcedure { (x: Int) in x }.injectResult(from: source) }
            let group = ResultGroupProcedure<Int>(operations: [source] + consumers)
            wait(for: group)
            XCTAssertEqual(group.errors.count, 1, "round \(round): \(group.errors)")
            XCTAssertEqual(group.errors.first as? TestError, TestError("root \(round)"))
        }
    }

    func testAChainOfInjectionsReportsTheFirstFailureOnce() {
        let first = ResultProcedure<Int> { throw TestError("first") }
        let second = TransformProcedure { (x: Int) in x + 1 }.injectResult(from: first)
        let third = TransformProcedure { (x: Int) in x + 1 }.injectResult(from: second)
        let group = ResultGroupProcedure<Int>(operations: [first, second, third])
        group.bind(from: third)
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertEqual(group.errors.first as? TestError, TestError("first"))
    }

    func testASourceOutsideTheGroupKeepsTheConsumersError() {
        // The group never hears of the source's errors: the consumer's error is the only report.
        let source = ResultProcedure<Int> { throw TestError("outside") }
        let double = TransformProcedure { (x: Int) in x * 2 }.injectResult(from: source)
        let group = ResultGroupProcedure<Int>(operations: [double])
        group.bind(from: double)
        wait(for: source, group)
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertTrue(isDependencyError(group.errors[0]), "\(group.errors)")
    }

    func testASiblingCancelledWithoutErrorsLeavesTheConsumersErrorAsTheReport() {
        let source = ResultProcedure<Int> { 1 }
        source.cancel()
        let double = TransformProcedure { (x: Int) in x * 2 }.injectResult(from: source)
        let group = ResultGroupProcedure<Int>(operations: [source, double])
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
        guard case .dependencyCancelled(_, let errors)? = group.errors.first as? ProcedureError else {
            return XCTFail("expected dependencyCancelled, got \(group.errors)")
        }
        XCTAssertTrue(errors.isEmpty)
    }

    func testGatheringInAGroupReportsTheFailingSiblingOnce() {
        let good = ResultProcedure { 1 }
        let bad = ResultProcedure<Int> { throw TestError("bad") }
        let all = [good, bad].gathered()
        let group = ResultGroupProcedure<[Int]>(operations: [good, bad, all])
        group.bind(from: all)
        wait(for: group)
        XCTAssertEqual(group.errors.count, 1, "\(group.errors)")
        XCTAssertEqual(group.errors.first as? TestError, TestError("bad"))
    }

    func testAGroupThatSucceedsIsUnaffected() {
        let source = ResultProcedure { 21 }
        let double = TransformProcedure { (x: Int) in x * 2 }.injectResult(from: source)
        let group = ResultGroupProcedure<Int>(operations: [source, double])
        group.bind(from: double)
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(group.output, 42)
    }
}
