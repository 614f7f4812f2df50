import XCTest

@testable import Procedures

/// The categories a claim names: each once, in the order first named, however many.
final class CategoryListTests: XCTestCase {
    func testACategoryNamedAgainIsKeptOnceInTheOrderItWasFirstNamed() {
        var list = CategoryList()
        XCTAssertTrue(list.isEmpty)
        list.append("disk")
        list.append(contentsOf: ["net", "disk", "screen", "net"])
        XCTAssertEqual(list.array, ["disk", "net", "screen"])
        XCTAssertEqual(list.count, 3)
        XCTAssertEqual(list[0], "disk")
    }

    func testManyCategoriesAreEachKeptOnceBeyondTheLinearLookups() {
        let names = (0..<100).map { "c\($0)" }
        var list = CategoryList(names)
        list.append(contentsOf: names.reversed())
        list.append("c7")
        XCTAssertEqual(list.array, names, "every name once, in the order first named")
    }

    func testAProcedureClaimingACategoryTwiceThroughTwoConditionsHoldsItOnce() {
        let procedure = BlockProcedure {}
        procedure.addCondition(MutuallyExclusive(category: "CategoryListTests-a"))
        procedure.addCondition(MutuallyExclusive(category: "CategoryListTests-a"))
        let finished = expectation(description: "finished")
        procedure.addDidFinishBlockObserver { _, _ in finished.fulfill() }
        let queue = ProcedureQueue()
        queue.addOperation(procedure)
        wait(for: [finished], timeout: 5)
        XCTAssertFalse(ExclusivityManager.isInUse("CategoryListTests-a"), "released once, and nobody holds it")
    }
}
