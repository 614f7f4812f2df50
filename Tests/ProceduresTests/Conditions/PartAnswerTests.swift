import Foundation
import XCTest

@testable import Procedures

/// Where a compound condition's part answer goes, driven by hand without threads: back to the
/// loop if it came before the part's `evaluate` returned, on from the answer otherwise, once.
final class PartAnswerTests: XCTestCase {
    func testAnAnswerBeforeEvaluateReturnsGoesBackToTheLoop() {
        var answer = PartAnswer.pending
        XCTAssertFalse(answer.deliver(.satisfied), "the loop carries on")
        guard case .satisfied? = answer.takeInline() else { return XCTFail("the loop takes the answer") }
        XCTAssertFalse(answer.deliver(.ignored), "a second answer is ignored")
    }

    func testAnAnswerAfterEvaluateReturnedCarriesOnFromItOnce() {
        var answer = PartAnswer.pending
        XCTAssertNil(answer.takeInline())
        XCTAssertTrue(answer.deliver(.satisfied), "the completion carries on")
        XCTAssertFalse(answer.deliver(.satisfied), "a second answer is ignored")
    }

    func testASecondAnswerBeforeEvaluateReturnsKeepsTheFirst() {
        var answer = PartAnswer.pending
        XCTAssertFalse(answer.deliver(.ignored))
        XCTAssertFalse(answer.deliver(.satisfied))
        guard case .ignored? = answer.takeInline() else { return XCTFail("the first answer counts") }
    }
}
