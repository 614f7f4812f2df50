import Foundation
import XCTest

@testable import Procedures

/// A queue's member list keeps its procedures in the order they were added, whatever order
/// they leave in, and stays as small as its members however long one of them stays.
final class MemberListTests: XCTestCase {
    private func procedures(_ count: Int) -> [Procedure] {
        (0..<count).map { index in
            let procedure = BlockProcedure {}
            procedure.name = "p\(index)"
            return procedure
        }
    }

    private func names(_ list: MemberList) -> [String] {
        list.procedures.map { $0.name ?? "?" }
    }

    func testMembersStayInTheOrderTheyWereAddedWhateverOrderTheyLeaveIn() {
        var list = MemberList()
        let all = procedures(6)
        for procedure in all { list.append(procedure) }
        XCTAssertTrue(list.remove(all[3]) === all[3])
        XCTAssertTrue(list.remove(all[0]) === all[0])
        XCTAssertTrue(list.remove(all[5]) === all[5])
        XCTAssertEqual(names(list), ["p1", "p2", "p4"])
        XCTAssertEqual(list.count, 3)
        list.append(all[0])  // back again: now the newest
        XCTAssertEqual(names(list), ["p1", "p2", "p4", "p0"])
    }

    func testRemovingANonMemberChangesNothing() {
        var list = MemberList()
        let all = procedures(3)
        list.append(all[0])
        list.append(all[1])
        XCTAssertNil(list.remove(all[2]))
        XCTAssertTrue(list.remove(all[1]) === all[1])
        XCTAssertNil(list.remove(all[1]), "removed twice")
        XCTAssertEqual(names(list), ["p0"])
    }

    func testAMemberWhoseIndexIsAnotherListsIsFoundBySearching() {
        var list = MemberList()
        var other = MemberList()
        let all = procedures(4)
        for procedure in all { list.append(procedure) }
        other.append(all[2])  // overwrites its index with the other list's
        XCTAssertTrue(list.remove(all[2], trustIndex: false) === all[2])
        XCTAssertEqual(names(list), ["p0", "p1", "p3"])
    }

    func testEmptiedListIsEmptyAndReusable() {
        var list = MemberList()
        let all = procedures(100)
        for procedure in all { list.append(procedure) }
        for procedure in all { XCTAssertNotNil(list.remove(procedure)) }
        XCTAssertTrue(list.isEmpty)
        XCTAssertEqual(list.procedures.count, 0)
        list.append(all[7])
        XCTAssertEqual(names(list), ["p7"])
        XCTAssertNotNil(list.remove(all[7]))
    }

    func testAMemberThatStaysAtTheFrontWhileManyLeaveKeepsEveryIndexValid() {
        var list = MemberList()
        let longRunning = procedures(1)[0]
        longRunning.name = "long"
        list.append(longRunning)
        // Many come and go behind the one at the front: the holes they leave are closed, and
        // every member can still be removed through its own index.
        var alive: [Procedure] = []
        for round in 0..<50 {
            let batch = procedures(40)
            for procedure in batch { list.append(procedure) }
            alive.append(contentsOf: batch)
            // All but one of each batch leave, newest first, out of order.
            for procedure in batch.dropFirst().reversed() {
                XCTAssertNotNil(list.remove(procedure), "round \(round)")
                alive.removeAll { $0 === procedure }
            }
        }
        XCTAssertEqual(list.count, 1 + alive.count)
        XCTAssertEqual(list.procedures.first?.name, "long")
        XCTAssertEqual(list.procedures.dropFirst().map(ObjectIdentifier.init), alive.map(ObjectIdentifier.init))
        for procedure in alive { XCTAssertNotNil(list.remove(procedure)) }
        XCTAssertNotNil(list.remove(longRunning))
        XCTAssertTrue(list.isEmpty)
    }
}
