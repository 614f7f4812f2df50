import Foundation
import ProceduresTesting
import XCTest

/// Injection with a transform, optional unwrapping, `bind(to:)`, groups with a typed output,
/// and `gathered()`.
final class InjectionAndBindingTests: MisuseRecordingTestCase {
    func testInjectsTheTransformedOutput() {
        let source = ResultProcedure { "hello" }
        let count = TransformProcedure { (text: String) in text.count }
        count.injectResult(from: source) { $0 + ", world" }
        XCTAssertTrue(count.dependencies.contains { $0 === source })
        wait(for: source, count)
        assertProcedureFinished(count)
        XCTAssertEqual(count.output, 12)
    }

    func testAnErrorThrownByTheTransformCancelsTheTargetWithIt() {
        let source = ResultProcedure { "not a number" }
        let ran = LockedBox(false)
        let double = TransformProcedure { (x: Int) -> Int in
            ran.mutate { $0 = true }
            return x * 2
        }
        let error = TestError("parse")
        double.injectResult(from: source) { text -> Int in
            guard let number = Int(text) else { throw error }
            return number
        }
        wait(for: source, double)
        assertProcedureCancelled(double, withErrors: true)
        XCTAssertEqual(double.errors.first as? TestError, error)
        XCTAssertFalse(ran.value, "the target must not run without an input")
    }

    func testTheTransformIsNotCalledWhenTheSourceFails() {
        let source = ResultProcedure<String> { throw TestError("source") }
        let called = LockedBox(false)
        let target = TransformProcedure { (x: Int) in x }
        target.injectResult(from: source) { text -> Int in
            called.mutate { $0 = true }
            return text.count
        }
        wait(for: source, target)
        assertProcedureCancelled(target, withErrors: true)
        guard case .dependencyFailed = target.errors.first as? ProcedureError else {
            return XCTFail("expected dependencyFailed, got \(target.errors)")
        }
        XCTAssertFalse(called.value)
    }

    func testAnOptionalOutputIsUnwrapped() {
        let source = ResultProcedure<String?> { "Hello" }
        let shout = TransformProcedure { (text: String) in text.uppercased() }
        shout.injectResult(from: source)
        wait(for: source, shout)
        XCTAssertEqual(shout.output, "HELLO")
    }

    func testANilOptionalOutputCancelsTheTargetAsNoOutput() {
        let source = ResultProcedure<String?> { nil }
        source.name = "Maybe"
        let shout = TransformProcedure { (text: String) in text.uppercased() }
        shout.injectResult(from: source)
        wait(for: source, shout)
        assertProcedureCancelled(shout, withErrors: true)
        guard case .noOutput(let name) = shout.errors.first as? ProcedureError else {
            return XCTFail("expected noOutput, got \(shout.errors)")
        }
        XCTAssertEqual(name, "Maybe")
    }

    func testEveryInjectionReturnsTheProcedureSoItIsMadeAndWiredInOneExpression() {
        let hello = ResultProcedure { "Hello" }
        let maybe = ResultProcedure<String?> { "maybe" }
        let world = TransformProcedure { (text: String) in "\(text) World" }.injectResult(from: hello)
        let unwrapped = TransformProcedure { (text: String) in text.count }.injectResult(from: maybe)
        let transformed = TransformProcedure { (count: Int) in count * 2 }.injectResult(from: hello) { $0.count }
        XCTAssertTrue(world.dependencies.contains { $0 === hello })
        XCTAssertTrue(unwrapped.dependencies.contains { $0 === maybe })
        wait(for: hello, maybe, world, unwrapped, transformed)
        XCTAssertEqual(world.output, "Hello World")
        XCTAssertEqual(unwrapped.output, 5)
        XCTAssertEqual(transformed.output, 10)
    }

    func testInjectCallsTheBlockWithTheFinishedDependencyBeforeExecuting() {
        let source = TestProcedure(name: "source")
        let target = TestProcedure(name: "target")
        let seen = LockedBox<[String]>([])
        target.inject(dependency: source) { target, source, errors in
            seen.mutate { $0.append("\(source.isFinished) \(errors.count) \(target.didExecute)") }
        }
        XCTAssertTrue(target.dependencies.contains { $0 === source })
        wait(for: source, target)
        assertProcedureFinished(target)
        XCTAssertEqual(seen.value, ["true 0 false"])
    }

    func testInjectPassesTheDependencysErrorsAndTheBlockMayCancel() {
        let source = TestProcedure(name: "source", error: TestError("source"))
        let target = TestProcedure(name: "target").inject(dependency: source) { target, _, errors in
            target.cancel(withErrors: errors)
        }
        wait(for: source, target)
        assertProcedureCancelled(target, withErrors: true)
        XCTAssertEqual(target.errors.first as? TestError, TestError("source"))
        XCTAssertFalse(target.didExecute)
    }

    func testBindToGivesAnotherProcedureTheSameInput() {
        let hello = ResultProcedure { "Hello" }
        let world = TransformProcedure { (text: String) in "\(text) World" }
        world.injectResult(from: hello)
        let dan = TransformProcedure { (text: String) in "\(text) Dan" }
        world.bind(to: dan)
        dan.addDependency(world)  // bind adds no dependency
        wait(for: hello, world, dan)
        XCTAssertEqual(world.output, "Hello World")
        XCTAssertEqual(dan.output, "Hello Dan")
    }

    func testAGroupTakesItsInputToAChildAndItsOutputFromAnother() {
        let hello = ResultProcedure { "Hello" }
        let group = BoundGreeting()
        group.injectResult(from: hello)
        wait(for: hello, group)
        assertProcedureFinished(group)
        XCTAssertEqual(group.output, "Hello World, from a group")
    }

    func testAGroupHasNoOutputUntilItFinishes() {
        let child = ResultProcedure { 7 }
        let blocker = Blocker<Int>("blocker")
        let group = ResultGroupProcedure<Int>(operations: [child, blocker])
        group.bind(from: child)
        let queue = ProcedureQueue()
        queue.addOperation(group)
        wait(for: [blocker.executed], timeout: 10)
        wait(for: child)
        XCTAssertNil(group.output, "the output is published only when the group succeeds")
        blocker.release(1)
        wait(for: group)
        XCTAssertEqual(group.output, 7)
    }

    func testAGroupThatFailsHasNoOutput() {
        let child = ResultProcedure { 7 }
        let failing = ResultProcedure<Int> { throw TestError("child") }
        let group = ResultGroupProcedure<Int>(operations: [child, failing])
        group.bind(from: child)
        wait(for: group)
        assertProcedureFinishedWithErrors(group, count: 1)
        XCTAssertNil(group.output)
    }

    func testACancelledGroupHasNoOutputAndItsFutureIsCancelled() {
        let child = Blocker<Int>("child")
        let group = ResultGroupProcedure<Int>(operations: [child])
        group.bind(from: child)
        let future = ProcedureQueue().future(group)
        wait(for: [child.executed], timeout: 10)
        group.cancel()
        wait(for: group)
        XCTAssertNil(group.output)
        XCTAssertEqual(future.result?.isCancelled, true)
    }

    func testASubclassSetsTheOutputFromAnObserver() {
        let group = WordCountingGroup(words: ["a", "b", "c"])
        let future = ProcedureQueue().future(group)
        wait(for: group)
        XCTAssertEqual(future.result?.value, 3)
    }

    func testGatheredCollectsTheOutputsInOrder() {
        let slow = Blocker<String>("slow")
        let fast = ResultProcedure { "World" }
        let gathered = [slow, fast as ResultProcedure<String>].gathered()
        let queue = ProcedureQueue()
        queue.addOperations([slow, fast, gathered], waitUntilFinished: false)
        wait(for: fast)
        wait(for: [slow.executed], timeout: 10)
        slow.release("Hello")
        wait(for: gathered)
        XCTAssertEqual(gathered.output, ["Hello", "World"])
    }

    func testGatheringFromAFailedProcedureCancelsWithItsError() {
        let good = ResultProcedure { 1 }
        let bad = ResultProcedure<Int> { throw TestError("bad") }
        bad.name = "Bad"
        let gathered = [good, bad].gathered()
        wait(for: good, bad, gathered)
        assertProcedureCancelled(gathered, withErrors: true)
        guard case .dependencyFailed(let name, _) = gathered.errors.first as? ProcedureError else {
            return XCTFail("expected dependencyFailed, got \(gathered.errors)")
        }
        XCTAssertEqual(name, "Bad")
        XCTAssertNil(gathered.output)
    }

    func testGatheringNothingGivesAnEmptyArray() {
        let gathered = [ResultProcedure<Int>]().gathered()
        wait(for: gathered)
        XCTAssertEqual(gathered.output, [])
    }
}

/// A group that is an input and output procedure with no lock of its own.
private final class BoundGreeting: ResultGroupProcedure<String>, InputProcedure, @unchecked Sendable {
    // @unchecked: `input` is set before the group executes (by the injection) and read by a
    // child, which starts after that.
    var input: String?

    init() {
        let world = TransformProcedure { (text: String) in "\(text) World" }
        let result = TransformProcedure { (text: String) in "\(text), from a group" }
        result.injectResult(from: world)
        super.init(operations: [world, result])
        bind(to: world)
        bind(from: result)
    }
}

/// Sets its output from a child's did-finish observer.
private final class WordCountingGroup: ResultGroupProcedure<Int>, @unchecked Sendable {
    // @unchecked: no stored properties of its own.
    init(words: [String]) {
        let count = TransformProcedure(input: words) { $0.count }
        super.init(operations: [count])
        count.addDidFinishBlockObserver { [weak self] count, _ in
            if let value = count.output { self?.setOutput(value) }
        }
    }
}
