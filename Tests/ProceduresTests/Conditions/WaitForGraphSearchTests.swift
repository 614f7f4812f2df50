import Foundation
@testable import Procedures
import XCTest

/// The wait-for graph's search on graphs given as data, without threads: which procedures can
/// go on (all waits for most kinds, any holder for a slot), which cycle it names, and that a
/// procedure whose cancel is already ending a cycle counts as going on.
final class WaitForGraphSearchTests: XCTestCase {
    /// Procedures named by letter, never run: only their identities and names are read.
    private var procedures: [String: Procedure] = [:]
    /// Who waits for whom, and how.
    private var waits: [String: [WaitEdge]] = [:]

    private func procedure(_ name: String) -> Procedure {
        if let procedure = procedures[name] { return procedure }
        let procedure = BlockProcedure {}
        procedure.name = name
        procedures[name] = procedure
        return procedure
    }

    private func wait(_ waiter: String, _ kind: WaitEdge.Kind, for targets: String...) {
        for target in targets {
            waits[waiter, default: []].append(WaitEdge(waiter: procedure(waiter), kind: kind, target: procedure(target)))
        }
    }

    /// The cycle the search names from `start`'s waits, as "waiter>target" pairs.
    private func cycle(from start: String, goingOn: [String] = []) -> [String]? {
        let names = Dictionary(uniqueKeysWithValues: procedures.map { (ObjectIdentifier($0.value), $0.key) })
        let found = WaitForGraph.cycle(
            closedBy: waits[start] ?? [], goingOn: Set(goingOn.map { ObjectIdentifier(procedure($0)) })
        ) { [waits] procedure in waits[names[ObjectIdentifier(procedure)]!] ?? [] }
        return found?.map { "\(names[ObjectIdentifier($0.waiter)]!)>\(names[ObjectIdentifier($0.target)]!)" }
    }

    func testTheCycleThroughTheWaiterIsNamedEvenWhenAnotherCycleComesFirst() {
        // g waits for children a and c; a is stuck in a cycle of its own (a, b), and c closes
        // one through g (c waits for d, d for a slot g holds).
        wait("g", .child, for: "a", "c")
        wait("a", .dependency, for: "b")
        wait("b", .category("B"), for: "a")
        wait("c", .dependency, for: "d")
        wait("d", .slot, for: "g")
        XCTAssertEqual(cycle(from: "g"), ["g>c", "c>d", "d>g"])
    }

    func testTheShortestCycleThroughTheWaiterIsNamed() {
        wait("s", .dependency, for: "a", "x")
        wait("a", .dependency, for: "b")
        wait("b", .dependency, for: "s")
        wait("x", .dependency, for: "s")
        XCTAssertEqual(cycle(from: "s"), ["s>x", "x>s"])
    }

    func testAWaiterStuckOnlyBehindACycleElsewhereIsToldOfThatCycle() {
        wait("s", .dependency, for: "a")
        wait("a", .dependency, for: "b")
        wait("b", .dependency, for: "a")
        XCTAssertEqual(cycle(from: "s"), ["a>b", "b>a"])
    }

    func testAWaiterThatCanGoOnHasNoCycle() {
        wait("s", .dependency, for: "a")
        wait("a", .dependency, for: "b")  // b waits for nothing: it finishes, then a, then s
        XCTAssertNil(cycle(from: "s"))
    }

    func testASlotWaitEndsWhenAnyHolderCanFinish() {
        wait("s", .slot, for: "h1", "h2")
        wait("h1", .child, for: "s")
        wait("h2", .child, for: "c")  // c waits for nothing
        XCTAssertNil(cycle(from: "s"))
        wait("c", .dependency, for: "s")
        XCTAssertEqual(cycle(from: "s"), ["s>h1", "h1>s"])
    }

    func testAProcedureWhoseCancelIsEndingACycleCountsAsGoingOn() {
        wait("s", .dependency, for: "a")
        wait("a", .dependency, for: "s")
        XCTAssertEqual(cycle(from: "s"), ["s>a", "a>s"])
        XCTAssertNil(cycle(from: "s", goingOn: ["a"]))
    }

    func testACycleBeingEndedLeavesTheOtherCycleItsWaitersAreStuckIn() {
        // g waits for a and c; a's cycle with b is being ended (b chosen); c's through g is not.
        wait("g", .child, for: "a", "c")
        wait("a", .dependency, for: "b")
        wait("b", .category("B"), for: "a")
        wait("c", .dependency, for: "g")
        XCTAssertNil(cycle(from: "a", goingOn: ["b"]))
        XCTAssertEqual(cycle(from: "g", goingOn: ["b"]), ["g>c", "c>g"])
    }
}
