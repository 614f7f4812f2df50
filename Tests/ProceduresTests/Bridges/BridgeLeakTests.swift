import Foundation
import ProceduresTesting
import XCTest

/// Nothing outlives a finished chain once the caller lets go.
final class BridgeLeakTests: XCTestCase {
    func testACompletedChainReleasesItsProceduresAndFutures() {
        let refs = WeakRefs()
        do {
            let queue = ProcedureQueue()
            let a = ResultProcedure { 1 }
            refs.track(a, "A")
            let tail = queue.future(a)
                .flatMap { (x: Int) -> Future<Int> in
                    let b = ResultProcedure { x + 1 }
                    refs.track(b, "B")
                    let future = queue.future(b)
                    refs.track(future, "B.future")
                    return future
                }
                .flatMap { (y: Int) -> Future<Int> in
                    let c = FutureProcedure(Future(value: y * 10))
                    refs.track(c, "C")
                    return queue.future(c)
                }
            refs.track(a.future, "A.future")
            refs.track(tail, "tail")
            XCTAssertEqual(waitForResult(of: tail)?.value, 20)
        }
        XCTAssertEqual(refs.count, 6)
        waitUntilReleased(refs)
    }

    func testACancelledChainReleasesEverything() {
        let refs = WeakRefs()
        do {
            let queue = ProcedureQueue()
            let a = Blocker<Int>("A")
            refs.track(a, "A")
            let tail = queue.future(a).flatMap { x in queue.future(ResultProcedure { x }) }
            refs.track(tail, "tail")
            let token = tail.cancellationToken()
            refs.track(token, "token")
            wait(for: [a.executed], timeout: 10)
            token.cancel()
            XCTAssertEqual(waitForResult(of: tail)?.isCancelled, true)
            wait(for: a)
        }
        waitUntilReleased(refs)
    }

    func testAnAwaitedProcedureIsReleased() {
        // A synchronous test around a Task: on corelibs XCTest a predicate expectation is only
        // polled by a waiting run loop, so `await fulfillment(of:)` would never see it.
        let refs = WeakRefs()
        let awaited = expectation(description: "awaited")
        do {
            let procedure = ResultProcedure { () async -> Int in 5 }
            refs.track(procedure, "procedure")
            Task {
                let value = try await ProcedureQueue().run(procedure)
                XCTAssertEqual(value, 5)
                awaited.fulfill()
            }
        }
        wait(for: [awaited], timeout: 10)
        waitUntilReleased(refs)
    }

    func testAnInjectedPairIsReleased() {
        let refs = WeakRefs()
        do {
            let source = ResultProcedure { 2 }
            let target = TransformProcedure { (x: Int) in x * 2 }
            target.injectResult(from: source)
            refs.track(source, "source")
            refs.track(target, "target")
            wait(for: source, target)
            XCTAssertEqual(target.output, 4)
        }
        waitUntilReleased(refs)
    }

    func testAFutureProcedureAndItsPromiseAreReleased() {
        let refs = WeakRefs()
        do {
            let promise = Promise<Int>()
            promise.onRequestCancel { _ in .complete(.cancelled) }
            let procedure = FutureProcedure(promise.future)
            refs.track(promise.future, "future")
            refs.track(procedure, "procedure")
            ProcedureQueue().addOperation(procedure)
            procedure.cancel()
            wait(for: procedure)
        }
        waitUntilReleased(refs)
    }
}
