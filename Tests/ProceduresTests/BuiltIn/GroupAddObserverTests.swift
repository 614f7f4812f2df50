import Foundation
import ProceduresTesting
import XCTest

/// Logs what a group's will-add and did-add observers hear, by child name.
private final class AddLog: ProcedureObserver, @unchecked Sendable {
    // @unchecked: `entries` lives in a LockedBox.
    private let box = LockedBox<[String]>([])
    private let group: GroupProcedure

    init(observing group: GroupProcedure) {
        self.group = group
        group.addObserver(self)
    }

    var entries: [String] { box.value }

    func procedure(_ procedure: Procedure, willAdd operation: Operation) {
        XCTAssertTrue(procedure === group)
        box.mutate { $0.append("willAdd \(operation.name ?? "?")") }
    }

    func procedure(_ procedure: Procedure, didAdd operation: Operation) {
        XCTAssertTrue(procedure === group)
        box.mutate { $0.append("didAdd \(operation.name ?? "?")") }
    }

    /// How many times each of will-add and did-add named `name`.
    func count(_ name: String) -> (will: Int, did: Int) {
        let entries = self.entries
        return (entries.filter { $0 == "willAdd \(name)" }.count, entries.filter { $0 == "didAdd \(name)" }.count)
    }
}

/// A child that produces one operation while it executes.
private final class Producer: Procedure, @unchecked Sendable {
    // @unchecked: `product` is immutable.
    let product: Operation

    init(_ name: String, producing product: Operation) {
        self.product = product
        super.init()
        self.name = name
    }

    override func execute() {
        do {
            try produce(product)
            finish()
        } catch {
            finish(withError: error)
        }
    }
}

/// A group's will-add and did-add observers hear of every child, once: those given to `init`
/// (when the group starts them, as ProcedureKit reports them), those added later, and the
/// operations its children produce.
final class GroupAddObserverTests: MisuseRecordingTestCase {
    func testWillAddObserverHearsOfAChildGivenAtInit() {
        let child = TestProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        let heard = LockedBox<[(Procedure, Operation)]>([])
        group.addWillAddOperationBlockObserver { group, child in heard.mutate { $0.append((group, child)) } }
        wait(for: group)
        XCTAssertEqual(heard.value.count, 1)
        XCTAssertTrue(heard.value.first?.0 === group)
        XCTAssertTrue(heard.value.first?.1 === child)
    }

    func testDidAddObserverHearsOfAChildGivenAtInit() {
        let child = TestProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        let heard = LockedBox<[(Procedure, Operation)]>([])
        group.addDidAddOperationBlockObserver { group, child in heard.mutate { $0.append((group, child)) } }
        wait(for: group)
        XCTAssertEqual(heard.value.count, 1)
        XCTAssertTrue(heard.value.first?.0 === group)
        XCTAssertTrue(heard.value.first?.1 === child)
    }

    func testAChildGivenAtInitThatBelongsToAnotherGroupIsNeverReported() {
        let child = TestProcedure(name: "taken")
        let owner = GroupProcedure(operations: [child])
        let group = GroupProcedure(operations: [child])
        let log = AddLog(observing: group)
        wait(for: group)
        XCTAssertTrue(group.children.isEmpty)
        XCTAssertEqual(log.entries, [], "a refused child is neither will-added nor did-added")
        XCTAssertEqual(misuse.kinds(about: child), [.addedToSecondQueue])
        wait(for: owner)
    }

    func testAChildAddedLaterThatBelongsToAnotherGroupIsNeverReported() {
        let child = TestProcedure(name: "taken")
        let owner = GroupProcedure(operations: [child])
        let group = GroupProcedure(operations: [])
        let log = AddLog(observing: group)
        group.addWillExecuteBlockObserver { group in group.addChild(child) }
        wait(for: group)
        XCTAssertTrue(group.children.isEmpty)
        XCTAssertEqual(log.entries, [], "a refused child is neither will-added nor did-added")
        XCTAssertEqual(misuse.kinds(about: child), [.addedToSecondQueue])
        wait(for: owner)
    }

    func testChildrenGivenAtInitAreReportedWhenTheGroupStartsThemBeforeAnyRuns() {
        let started = LockedBox<[String]>([])
        let children = (0..<3).map { index in
            let child = BlockProcedure { started.mutate { $0.append("child \(index)") } }
            child.name = "child \(index)"
            return child
        }
        let group = GroupProcedure(operations: children)
        group.maxConcurrentOperationCount = 1
        let startedAtWillAdd = LockedBox<[Int]>([])
        group.addWillAddOperationBlockObserver { _, _ in startedAtWillAdd.mutate { $0.append(started.value.count) } }
        let log = AddLog(observing: group)
        XCTAssertEqual(log.entries, [], "not reported before the group starts")
        wait(for: group)
        XCTAssertEqual(startedAtWillAdd.value, [0, 0, 0], "will-add comes before the children can start")
        XCTAssertEqual(log.entries, [
            "willAdd child 0", "willAdd child 1", "willAdd child 2",
            "didAdd child 0", "didAdd child 1", "didAdd child 2",
        ])
    }

    func testChildrenAddedLaterAreReportedWhenAdded() {
        let gate = BlockProcedure(asyncBlock: { _ in })
        gate.name = "gate"
        let group = GroupProcedure(operations: [gate])
        let log = AddLog(observing: group)
        let early = TestProcedure(name: "early")
        group.addChild(early)  // before the group starts
        XCTAssertEqual(log.entries, ["willAdd early", "didAdd early"])

        let executed = expectation(description: "group executed")
        group.addDidExecuteBlockObserver { _ in executed.fulfill() }
        ProcedureQueue().addOperation(group)
        wait(for: [executed], timeout: 10)
        let late = [TestProcedure(name: "late 1"), TestProcedure(name: "late 2")]
        group.addChildren(late)
        let plain = BlockOperation {}
        plain.name = "plain"
        group.addChild(plain)
        gate.finish()
        wait(for: group)
        XCTAssertEqual(log.entries, [
            "willAdd early", "didAdd early",
            "willAdd gate", "didAdd gate",
            "willAdd late 1", "didAdd late 1",
            "willAdd late 2", "didAdd late 2",
            "willAdd plain", "didAdd plain",
        ])
    }

    func testOperationsProducedByChildrenAreReportedOnce() {
        let product = TestProcedure(name: "product")
        let plainProduct = BlockOperation {}
        plainProduct.name = "plain product"
        let group = GroupProcedure(operations: [
            Producer("producer", producing: product), Producer("plain producer", producing: plainProduct),
        ])
        let log = AddLog(observing: group)
        wait(for: group)
        assertProcedureFinished(group)
        assertProcedureFinished(product)
        for name in ["producer", "plain producer", "product", "plain product"] {
            XCTAssertTrue(log.count(name) == (1, 1), "\(name): \(log.entries)")
        }
        XCTAssertLessThan(
            log.entries.firstIndex(of: "willAdd product") ?? .max, log.entries.firstIndex(of: "didAdd product") ?? .max)
    }

    func testAChildOfACancelledGroupIsStillReportedOnce() {
        let child = TestProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        let log = AddLog(observing: group)
        group.cancel()
        wait(for: group)
        XCTAssertEqual(log.entries, ["willAdd child", "didAdd child"])
    }

    func testAddObserversNeverOverlapTheGroupsOtherCallbacks() {
        // Children added from many threads while the group's own callbacks run.
        let recorder = ProcedureEventRecorder()
        let gate = BlockProcedure(asyncBlock: { _ in })
        let group = GroupProcedure(operations: [gate])
        group.addObserver(recorder)
        let executed = expectation(description: "group executed")
        group.addDidExecuteBlockObserver { _ in executed.fulfill() }
        ProcedureQueue().addOperation(group)
        wait(for: [executed], timeout: 10)
        let count = 200
        DispatchQueue.concurrentPerform(iterations: count) { _ in group.addChild(BlockProcedure {}) }
        gate.finish()
        wait(for: group)
        let events = recorder.events(of: group)
        XCTAssertEqual(events.filter { $0 == .willAdd }.count, count + 1)
        XCTAssertEqual(events.filter { $0 == .didAdd }.count, count + 1)
        XCTAssertEqual(recorder.overlaps, [])
    }
}
