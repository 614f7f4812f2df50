import Foundation
import XCTest

@testable import Procedures

/// A procedure's event mailbox on its own: who becomes the drainer, and in what order events
/// come out, driven by hand as a plain value without threads or procedures running. The
/// operations in the events are stand-ins, never run.
final class EventMailboxTests: XCTestCase {
    private struct Failure: Error, Equatable {
        let code: Int
    }

    /// An event's kind and payload, as text to compare.
    private func name(_ event: ProcedureEvent?) -> String {
        switch event {
        case nil: return "nil"
        case .cancel(let errors): return "cancel\(codes(errors))"
        case .start: return "start"
        case .execute: return "execute"
        case .finish: return "finish"
        case .produce(let operation): return "produce(\(operation.name ?? "?"))"
        case .operationFinished(let operation, let errors): return "operationFinished(\(operation.name ?? "?"))\(codes(errors))"
        case .perform: return "perform"
        }
    }

    private func codes(_ errors: [any Error]) -> [Int] {
        errors.map { ($0 as? Failure)?.code ?? -1 }
    }

    private func operation(named name: String) -> Operation {
        let operation = BlockOperation {}
        operation.name = name
        return operation
    }

    /// Hands out every waiting event, as the drainer does, until the mailbox gives up the role.
    private func drain(_ mailbox: inout EventMailbox) -> [String] {
        var handled: [String] = []
        while let (event, loopStartOwed) = mailbox.next() { handled.append((loopStartOwed ? "loop start, " : "") + name(event)) }
        return handled
    }

    // MARK: - post(_:)

    func testTheFirstPosterBecomesTheDrainer() {
        var mailbox = EventMailbox()
        XCTAssertFalse(mailbox.isDraining)
        XCTAssertFalse(mailbox.hasWaitingEvents)
        XCTAssertTrue(mailbox.post(.start))
        XCTAssertTrue(mailbox.isDraining)
        XCTAssertTrue(mailbox.hasWaitingEvents, "the posted event waits for its drainer")
        XCTAssertEqual(name(mailbox.next()?.event), "start")
    }

    func testAnEventQueuedWhileDrainingIsHandledByTheDrainer() {
        var mailbox = EventMailbox()
        XCTAssertTrue(mailbox.post(.start))
        XCTAssertEqual(name(mailbox.next()?.event), "start")
        // A callback inside the handling of `start` (or another thread) queues more.
        XCTAssertFalse(mailbox.post(.cancel(errors: [])), "someone drains already: queue and return")
        XCTAssertFalse(mailbox.post(.finish))
        XCTAssertTrue(mailbox.isDraining)
        XCTAssertEqual(drain(&mailbox), ["cancel[]", "finish"], "handled right after the current event")
        XCTAssertFalse(mailbox.isDraining)
    }

    func testTheDrainerGivesUpTheRoleOnlyOnceTheMailboxIsEmpty() {
        var mailbox = EventMailbox()
        XCTAssertTrue(mailbox.post(.start))
        XCTAssertFalse(mailbox.post(.execute))
        XCTAssertEqual(name(mailbox.next()?.event), "start")
        XCTAssertTrue(mailbox.isDraining, "an event still waits")
        XCTAssertEqual(name(mailbox.next()?.event), "execute")
        XCTAssertTrue(mailbox.isDraining, "the role is given up by the next that finds nothing")
        XCTAssertNil(mailbox.next()?.event)
        XCTAssertFalse(mailbox.isDraining)
        XCTAssertNil(mailbox.next()?.event, "an empty mailbox stays empty")

        XCTAssertTrue(mailbox.post(.finish), "the next poster becomes the drainer again")
        XCTAssertEqual(drain(&mailbox), ["finish"])
    }

    func testEveryKindOfEventComesOutIntactInTheOrderItWasQueued() {
        var mailbox = EventMailbox()
        let performed = LockedBox(0)
        let events: [ProcedureEvent] = [
            .cancel(errors: [Failure(code: 1), Failure(code: 2)]),
            .start,
            .execute,
            .produce(operation(named: "produced")),
            .operationFinished(operation(named: "child"), errors: [Failure(code: 3)]),
            .perform { performed.mutate { $0 += 1 } },
            .finish,
        ]
        XCTAssertTrue(mailbox.post(events[0]))
        for event in events.dropFirst() { XCTAssertFalse(mailbox.post(event)) }

        var handled: [String] = []
        while let event = mailbox.next()?.event {
            if case .perform(let work) = event { work() }
            handled.append(name(event))
        }
        XCTAssertEqual(handled, [
            "cancel[1, 2]", "start", "execute", "produce(produced)", "operationFinished(child)[3]", "perform", "finish",
        ])
        XCTAssertEqual(performed.value, 1, "the closure is the one queued")
    }

    func testOrderHoldsWhenEventsArriveWhileOthersWait() {
        var mailbox = EventMailbox()
        XCTAssertTrue(mailbox.post(.start))
        XCTAssertFalse(mailbox.post(.execute))
        XCTAssertFalse(mailbox.post(.finish))
        XCTAssertEqual(name(mailbox.next()?.event), "start")
        // Two events still wait: a new one must go behind them, never ahead.
        XCTAssertFalse(mailbox.post(.cancel(errors: [Failure(code: 9)])))
        XCTAssertEqual(name(mailbox.next()?.event), "execute")
        XCTAssertFalse(mailbox.post(.perform {}))
        XCTAssertEqual(drain(&mailbox), ["finish", "cancel[9]", "perform"])
    }

    func testAMailboxStaysInOrderAcrossManyBurstsLongAndShort() {
        var mailbox = EventMailbox()
        for size in [100, 3, 40, 1, 17, 2] {
            let sent = (0 ..< size).map { "cancel[\($0)]" }
            XCTAssertTrue(mailbox.post(.cancel(errors: [Failure(code: 0)])), "burst of \(size): a new drainer")
            for code in 1 ..< size { XCTAssertFalse(mailbox.post(.cancel(errors: [Failure(code: code)]))) }
            XCTAssertEqual(drain(&mailbox), sent, "burst of \(size)")
            XCTAssertFalse(mailbox.hasWaitingEvents)
        }
    }

    // MARK: - claimOrPost(_:)

    func testClaimingWithNobodyDrainingHandsTheEventToTheCallerWithoutQueueingIt() {
        var mailbox = EventMailbox()
        XCTAssertTrue(mailbox.claimOrPost(.execute))
        XCTAssertTrue(mailbox.isDraining, "the caller is the drainer while it handles the event")
        XCTAssertFalse(mailbox.hasWaitingEvents, "the claimed event was not queued")
        XCTAssertFalse(mailbox.post(.finish), "an event caused meanwhile waits for the claimer")
        XCTAssertEqual(drain(&mailbox), ["finish"])
        XCTAssertFalse(mailbox.isDraining)
    }

    func testClaimingWhileSomeoneDrainsQueuesTheEventForThem() {
        var mailbox = EventMailbox()
        XCTAssertTrue(mailbox.post(.start))
        XCTAssertEqual(name(mailbox.next()?.event), "start")
        XCTAssertFalse(mailbox.hasWaitingEvents)
        XCTAssertFalse(mailbox.claimOrPost(.execute), "the drainer handles it, in turn")
        XCTAssertTrue(mailbox.hasWaitingEvents)
        XCTAssertFalse(mailbox.claimOrPost(.finish))
        XCTAssertEqual(drain(&mailbox), ["execute", "finish"])
        XCTAssertTrue(mailbox.claimOrPost(.execute), "once the drainer has gone, the next claim succeeds")
    }

    // MARK: - hasWaitingEvents

    func testWaitingEventsAreThoseBehindTheOneBeingHandled() {
        var mailbox = EventMailbox()
        XCTAssertTrue(mailbox.post(.start))
        XCTAssertEqual(name(mailbox.next()?.event), "start")
        XCTAssertFalse(mailbox.hasWaitingEvents, "`start` runs `execute` at once: nothing waits")
        XCTAssertFalse(mailbox.post(.cancel(errors: [])))
        XCTAssertTrue(mailbox.hasWaitingEvents, "a cancel waits: `execute` must queue behind it")
        XCTAssertEqual(drain(&mailbox), ["cancel[]"])
        XCTAssertFalse(mailbox.hasWaitingEvents)
    }

    // MARK: - oweLoopStart()

    func testAnOwedLoopStartComesBeforeTheNextEventThenNotAgain() {
        var mailbox = EventMailbox()
        XCTAssertTrue(mailbox.post(.operationFinished(operation(named: "first"), errors: [])))
        XCTAssertEqual(name(mailbox.next()?.event), "operationFinished(first)[]")
        mailbox.oweLoopStart()  // the handler handed a child to this thread's loop
        XCTAssertFalse(mailbox.post(.perform {}))  // a did-add observer, say
        XCTAssertFalse(mailbox.post(.cancel(errors: [])))
        XCTAssertEqual(drain(&mailbox), ["loop start, perform", "cancel[]"])
        XCTAssertFalse(mailbox.isDraining)
    }

    func testAnOwedLoopStartIsDroppedWhenNoEventFollows() {
        var mailbox = EventMailbox()
        XCTAssertTrue(mailbox.post(.operationFinished(operation(named: "first"), errors: [])))
        XCTAssertEqual(name(mailbox.next()?.event), "operationFinished(first)[]")
        mailbox.oweLoopStart()
        XCTAssertEqual(drain(&mailbox), [], "the handler returns to the loop, which takes the child")
        XCTAssertFalse(mailbox.isDraining)
        XCTAssertTrue(mailbox.post(.start), "a later drainer owes nothing")
        XCTAssertEqual(drain(&mailbox), ["start"])
    }
}
