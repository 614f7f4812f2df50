import Foundation
import ProceduresTesting
import XCTest

/// `produce(_:before:)`: an operation produced while an event is pending is on the queue
/// before that event completes (ProcedureKit's `produce(operation:before:)`).
final class ProduceBeforeEventTests: MisuseRecordingTestCase {
    func testAnOperationProducedBeforeFinishIsAddedBeforeTheProducerFinishes() {
        let queue = ProcedureQueue()
        let produced = TestProcedure(name: "produced")
        let producer = TestProcedure(name: "producer")
        let seenByWillAdd = LockedBox<[String]>([])
        producer.addWillFinishBlockObserver { producer, _ in
            do { try producer.produce(produced, before: .finish) } catch { XCTFail("produce threw \(error)") }
        }
        producer.addWillAddOperationBlockObserver { producer, _ in
            seenByWillAdd.mutate { $0.append("finished=\(producer.isFinished)") }
        }
        queue.addOperation(producer)
        wait(for: producer)  // `produced` was added before it finished
        wait(for: produced)
        assertProcedureFinished(produced)
        XCTAssertEqual(seenByWillAdd.value, ["finished=false"])
    }

    func testAGroupCountsAnOperationItsChildProducedBeforeFinishing() {
        let produced = TestProcedure(name: "produced")
        let child = TestProcedure(name: "child")
        child.addWillFinishBlockObserver { child, _ in
            do { try child.produce(produced, before: .finish) } catch { XCTFail("produce threw \(error)") }
        }
        let group = GroupProcedure(operations: [child])
        wait(for: group)
        XCTAssertTrue(group.children.contains { $0 === produced })
        XCTAssertTrue(produced.isFinished, "the group waited for the produced operation")
    }

    func testAnOperationProducedBeforeExecuteIsAddedBeforeExecute() {
        let queue = ProcedureQueue()
        let produced = TestProcedure(name: "produced")
        let producer = TestProcedure(name: "producer")
        let executingWhenAdded = LockedBox<[Bool]>([])
        producer.addWillExecuteBlockObserver { producer in
            do { try producer.produce(produced, before: .execute) } catch { XCTFail("produce threw \(error)") }
        }
        producer.addDidAddOperationBlockObserver { producer, _ in
            executingWhenAdded.mutate { $0.append(producer.didExecute) }
        }
        queue.addOperation(producer)
        // Not `wait(for: producer, produced)`: that would add `produced` to a queue of its own
        // if it got there before the producer did. Once the producer finished, it had.
        wait(for: producer)
        wait(for: produced)
        XCTAssertEqual(executingWhenAdded.value, [false])
        XCTAssertTrue(producer.didExecute)
    }

    func testProducingBeforeAnEventThatIsNotPendingThrowsAndIsReported() {
        let produced = TestProcedure(name: "produced")
        let thrown = LockedBox<Bool>(false)
        let producer = BlockProcedure { procedure in
            do { try procedure.produce(produced, before: .execute) } catch { thrown.mutate { $0 = true } }
            procedure.finish()
        }
        wait(for: producer)
        XCTAssertTrue(thrown.value, "execute() is not among the hooks before execute")
        XCTAssertFalse(produced.isEnqueued)
        XCTAssertEqual(misuse.kinds(about: producer), [.produceWithoutQueue])
    }
}

/// `GroupProcedure.addChild(_:)` adopts the child before it returns, so called from another
/// procedure's will-execute hook the child is the group's before that procedure executes
/// (what ProcedureKit's `addChild(_:before:)` waited for).
final class AddChildBeforeEventTests: MisuseRecordingTestCase {
    func testAChildAddedFromAnotherProceduresWillExecuteIsTheGroupsBeforeThatProcedureExecutes() {
        let group = GroupProcedure(operations: [TestProcedure(name: "first")])
        group.isSuspended = true
        let added = TestProcedure(name: "added")
        let childAtExecute = LockedBox<Bool>(false)
        let procedure = BlockProcedure {}
        procedure.addWillExecuteBlockObserver { _ in group.addChild(added) }
        procedure.addDidExecuteBlockObserver { _ in childAtExecute.mutate { $0 = group.children.contains { $0 === added } } }
        let queue = ProcedureQueue()
        queue.addOperations([group, procedure], waitUntilFinished: false)
        wait(for: procedure)
        XCTAssertTrue(childAtExecute.value)
        group.isSuspended = false
        wait(for: group)
        assertProcedureFinished(added)
    }
}
