import Foundation
import XCTest

@testable import Procedures

/// The exclusivity manager's state, driven by hand without threads: each event on
/// ``ExclusivityState`` and the grants it returns. The procedures are stand-ins, never run.
final class ExclusivityStateTests: XCTestCase {
    private func submit(_ state: inout ExclusivityState, _ categories: [String], by procedure: Procedure) -> (ExclusivityRequest, waits: Bool) {
        let request = ExclusivityRequest()
        let (waits, granted) = state.submit(request, for: CategoryList(categories), by: procedure)
        XCTAssertTrue(waits ? granted.first == nil : granted.first === procedure, "a submit grants only the submitting request")
        XCTAssertTrue(granted.more.isEmpty && granted.waitsToCheck.isEmpty)
        return (request, waits)
    }

    func testAFreeCategoryIsGrantedAtOnceAndATakenOneWaitsForItsHolder() {
        var state = ExclusivityState()
        let (holder, waiter) = (Procedure(), Procedure())
        let (first, firstWaits) = submit(&state, ["a"], by: holder)
        XCTAssertFalse(firstWaits)
        XCTAssertEqual(first.claim.status, .granted)
        let (second, secondWaits) = submit(&state, ["a"], by: waiter)
        XCTAssertTrue(secondWaits)
        XCTAssertEqual(second.claim.status, .waiting)
        XCTAssertTrue(state.line(named: "a")?.queue.first === first)

        let (dropped, granted) = state.withdraw(first, unlessGranted: false)
        XCTAssertTrue(dropped === holder, "the withdrawn request's procedure is released after unlocking")
        XCTAssertTrue(granted.first === waiter, "the next in line is granted, and told after unlocking")
        XCTAssertEqual(second.claim.status, .granted)

        _ = state.withdraw(second, unlessGranted: false)
        XCTAssertNil(state.line(named: "a"), "an emptied line is dropped")
        XCTAssertEqual(state.lineCount, 0)
    }

    func testARequestIsGrantedOnlyOnceFirstInEveryLine() {
        var state = ExclusivityState()
        let procedures = [Procedure(), Procedure(), Procedure()]
        let (a, _) = submit(&state, ["a"], by: procedures[0])
        let (b, _) = submit(&state, ["b"], by: procedures[1])
        let (both, waits) = submit(&state, ["a", "b"], by: procedures[2])
        XCTAssertTrue(waits)
        XCTAssertEqual(both.claim.missingHeads, 2)

        let afterA = state.withdraw(a, unlessGranted: false).granted
        XCTAssertNil(afterA.first, "still behind b's holder")
        XCTAssertEqual(both.claim.missingHeads, 1)
        let afterB = state.withdraw(b, unlessGranted: false).granted
        XCTAssertTrue(afterB.first === procedures[2])
        XCTAssertEqual(both.claim.status, .granted)
    }

    func testWithdrawingUnlessGrantedKeepsAGrantedRequest() {
        var state = ExclusivityState()
        let (granted, _) = submit(&state, ["a"], by: Procedure())
        let (dropped, grants) = state.withdraw(granted, unlessGranted: true)
        XCTAssertNil(dropped)
        XCTAssertNil(grants.first)
        XCTAssertEqual(granted.claim.status, .granted)
    }

    func testAGrantedRequestThatStepsAsideLetsTheNextInAndRejoinsAheadOfLaterWaiters() {
        var state = ExclusivityState()
        let procedures = [Procedure(), Procedure(), Procedure()]
        let (early, _) = submit(&state, ["a"], by: procedures[0])
        let (next, _) = submit(&state, ["a"], by: procedures[1])
        let (later, _) = submit(&state, ["a"], by: procedures[2])

        let granted = state.stepAside(early)
        XCTAssertEqual(early.claim.status, .steppedAside)
        XCTAssertTrue(granted.first === procedures[1], "the next in line takes the category")

        XCTAssertFalse(state.rejoin(early), "it waits for the holder")
        XCTAssertEqual(early.claim.status, .waiting)
        XCTAssertTrue(early.claim.isReturning)

        let afterNext = state.withdraw(next, unlessGranted: false).granted
        XCTAssertTrue(afterNext.first === procedures[0], "the returning request comes before later waiters")
        XCTAssertTrue(early.claim.started, "a returning request holds its slot, so it has started")
        XCTAssertEqual(later.claim.status, .waiting)
        XCTAssertTrue(state.stepAside(early).first == nil && early.claim.status == .granted, "a started request never steps aside")
    }

    func testARequestThatStartedBeforeItsSteppingAsideWasDoneKeepsItsCategories() {
        var state = ExclusivityState()
        let (request, _) = submit(&state, ["a"], by: Procedure())
        XCTAssertTrue(state.rejoin(request))
        XCTAssertTrue(request.claim.started)
        XCTAssertNil(state.stepAside(request).first)
        XCTAssertEqual(request.claim.status, .granted)
    }

    func testAWaiterThatBecomesFirstButStillWaitsHasItsWaitsChecked() {
        var state = ExclusivityState()
        let procedures = [Procedure(), Procedure(), Procedure()]
        let (a, _) = submit(&state, ["a"], by: procedures[0])
        _ = submit(&state, ["b"], by: procedures[1])
        _ = submit(&state, ["a", "b"], by: procedures[2])
        let granted = state.withdraw(a, unlessGranted: false).granted
        XCTAssertNil(granted.first)
        XCTAssertEqual(granted.waitsToCheck.count, 1)
        XCTAssertTrue(granted.waitsToCheck.first === procedures[2])
    }
}
