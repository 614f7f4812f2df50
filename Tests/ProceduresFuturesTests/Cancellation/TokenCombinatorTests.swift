import Foundation
import XCTest
@testable import ProceduresFutures

/// `map`, `flatMap`, `&&`, `||` (as in couchdeveloper/Cancellation), with this library's rule that `&&`
/// and `||` always complete.
final class TokenCombinatorTests: XCTestCase {
    func testMapCompletesWithTheTransformOnlyWhenCancelled() {
        let request = CancellationRequest()
        let mappedFalse = request.token.map { false }
        let mappedTrue = request.token.map { true }
        request.cancel()
        XCTAssertTrue(mappedFalse.isCompleted)
        XCTAssertFalse(mappedFalse.isCancelled)
        XCTAssertTrue(mappedTrue.isCancelled)

        var released: CancellationRequest? = CancellationRequest()
        let ran = Counter()
        let mapped = released!.token.map { ran.increment(); return true }
        released = nil
        XCTAssertTrue(mapped.isCompleted)
        XCTAssertFalse(mapped.isCancelled)
        XCTAssertEqual(ran.value, 0)
    }

    func testFlatMapTakesOnTheReturnedTokensState() {
        let outer = CancellationRequest()
        let inner = CancellationRequest()
        let chained = outer.token.flatMap { inner.token }
        outer.cancel()
        XCTAssertFalse(chained.isCompleted)
        inner.cancel()
        XCTAssertTrue(chained.isCancelled)
    }

    func testOrCancelsWhenEitherSideIsCancelled() {
        for side in 0..<2 {
            let a = CancellationRequest(), b = CancellationRequest()
            let either = a.token || b.token
            XCTAssertFalse(either.isCompleted)
            [a, b][side].cancel()
            XCTAssertTrue(either.isCancelled)
        }
    }

    func testOrCompletesAsNotCancelledWhenBothSidesDo() {
        var a: CancellationRequest? = CancellationRequest()
        var b: CancellationRequest? = CancellationRequest()
        let either = a!.token || b!.token
        a = nil
        XCTAssertFalse(either.isCompleted)
        b = nil
        XCTAssertTrue(either.isCompleted, "the reference library never completes here")
        XCTAssertFalse(either.isCancelled)
    }

    func testAndCancelsOnlyWhenBothSidesAre() {
        let a = CancellationRequest(), b = CancellationRequest()
        let both = a.token && b.token
        a.cancel()
        XCTAssertFalse(both.isCompleted)
        b.cancel()
        XCTAssertTrue(both.isCancelled)
    }

    func testAndCompletesAsNotCancelledAsSoonAsEitherSideDoesSymmetrically() {
        let a = CancellationRequest()
        var b: CancellationRequest? = CancellationRequest()
        let both = a.token && b!.token
        b = nil
        XCTAssertTrue(both.isCompleted, "the reference library waits for the left side here")
        XCTAssertFalse(both.isCancelled)
    }

    func testThreeWayCombinationsFollowTheBinaryRules() {
        for cancelled in 0..<3 {
            let requests = (0..<3).map { _ in CancellationRequest() }
            let any = requests[0].token || requests[1].token || requests[2].token
            let all = requests[0].token && requests[1].token && requests[2].token
            requests[cancelled].cancel()
            XCTAssertTrue(any.isCancelled)
            XCTAssertFalse(all.isCompleted)
            requests.forEach { $0.cancel() }
            XCTAssertTrue(all.isCancelled)
        }
    }
}

extension TokenCombinatorTests {
    /// `a || b` and `a && b` complete as *not cancelled* once both requests go away uncancelled,
    /// and release their handlers (what the handlers captured is freed).
    func testCombinatorsCompleteWhenBothRequestsAreReleased() {
        weak var captured: Tracked?
        var orResult: CancellationToken?
        var andResult: CancellationToken?
        do {
            let a = CancellationRequest()
            let b = CancellationRequest()
            orResult = a.token || b.token
            andResult = a.token && b.token
            let tracked = Tracked()
            captured = tracked
            a.token.onCancel { withExtendedLifetime(tracked) {} }
        }
        XCTAssertEqual(orResult?.isCompleted, true)
        XCTAssertEqual(orResult?.isCancelled, false)
        XCTAssertEqual(andResult?.isCompleted, true)
        XCTAssertEqual(andResult?.isCancelled, false)
        XCTAssertNil(captured)
    }
}
