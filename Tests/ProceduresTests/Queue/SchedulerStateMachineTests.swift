import Dispatch
import Foundation
import XCTest

@testable import Procedures

/// The scheduler's decisions, driven by hand without threads: each event on
/// ``SchedulerStateMachine`` and the action it returns. The procedures are stand-ins, never run.
final class SchedulerStateMachineTests: XCTestCase {
    private typealias Machine = SchedulerStateMachine
    private let globalQueue = ProcedureScheduler.globalQueue(for: .default)

    // MARK: - Width, order, loops

    func testAtMostWidthProceduresRunAndAFinishStartsTheNext() {
        var machine = Machine(width: 2)
        let (a, b, c) = (BlockProcedure {}, BlockProcedure {}, BlockProcedure {})
        XCTAssertTrue(machine.submit(a, priority: .normal, now: 0).startsLoop(on: globalQueue))
        XCTAssertTrue(machine.submit(b, priority: .normal, now: 0).isNone, "a loop is on its way")
        XCTAssertTrue(machine.submit(c, priority: .normal, now: 0).isNone)
        XCTAssertTrue(machine.loopStarted(now: 0).runs(a, helperStartsLoop: true), "more can start: a helper loop")
        XCTAssertTrue(machine.nextStep(startedSoFar: 1, now: 0).runs(b, helperStartsLoop: false), "the helper is pending")
        XCTAssertTrue(machine.nextStep(startedSoFar: 2, now: 0).leaves, "the width is full")
        XCTAssertTrue(machine.loopStarted(now: 0).leaves, "the helper finds the width full")
        XCTAssertEqual(machine.running, 2)
        XCTAssertEqual(machine.readyHoldUp.fullWidth, 2)
        XCTAssertTrue(machine.didFinish(now: 0).startsLoop(on: globalQueue))
        XCTAssertTrue(machine.loopStarted(now: 0).runs(c, helperStartsLoop: false))
        XCTAssertEqual(machine.line.count, 0)
    }

    /// A loop that a group left to the thread that ran it is the pending loop starting, as
    /// one Dispatch starts; only the count for tests tells them apart.
    func testAHandedLoopIsThePendingLoopStartingAndIsCounted() {
        var machine = Machine(width: -1, suspended: true)
        let child = BlockProcedure {}
        XCTAssertTrue(machine.submit(child, priority: .normal, now: 0).isNone, "suspended")
        XCTAssertTrue(machine.setSuspended(false, decision: nil, now: 0).action.startsLoop(on: globalQueue))
        XCTAssertTrue(machine.loopStarted(handed: true, now: 0).runs(child, helperStartsLoop: false))
        XCTAssertEqual(machine.handedLoopCount, 1)
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: 0).startsLoop(on: globalQueue),
                      "the pending loop was the handed one: another is started for new work")
        _ = machine.loopStarted(now: 0)
        XCTAssertEqual(machine.handedLoopCount, 1)
    }

    func testAWiderWidthStartsALoopForWaitingWork() {
        var machine = Machine(width: 1)
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0)
        _ = machine.loopStarted(now: 0)
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: 0).isNone, "the width is full")
        XCTAssertTrue(machine.setWidth(2, now: 0).startsLoop(on: globalQueue))
        XCTAssertTrue(machine.setWidth(3, now: 0).isNone, "a loop is on its way already")
    }

    func testHigherPrioritiesStartFirstAndEqualOnesInOrder() {
        var machine = Machine(width: 1, suspended: true)
        let plan: [(String, Operation.QueuePriority)] = [
            ("low", .low), ("normal 1", .normal), ("very high", .veryHigh), ("normal 2", .normal), ("high", .high),
            ("very low", .veryLow),
        ]
        for (name, priority) in plan {
            let procedure = BlockProcedure {}
            procedure.name = name
            XCTAssertTrue(machine.submit(procedure, priority: priority, now: 0).isNone, "suspended")
        }
        XCTAssertTrue(machine.setSuspended(false, decision: nil, now: 0).action.startsLoop(on: globalQueue))
        var order: [String] = []
        var step = machine.loopStarted(now: 0)
        while case .run(let procedure, _) = step {
            order.append(procedure.name ?? "")
            _ = machine.didFinish(now: 0)  // frees the slot: the one loop takes the next
            step = machine.nextStep(startedSoFar: order.count, now: 0)
        }
        XCTAssertEqual(order, ["very high", "high", "normal 1", "normal 2", "low", "very low"])
    }

    func testALoopThatSpentItsBudgetHandsItsThreadBackAndItsHelperCarriesOn() {
        var machine = Machine()
        for _ in 0..<(Machine.loopBudget + 1) { _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0) }
        XCTAssertTrue(machine.loopStarted(now: 0).runs(nil, helperStartsLoop: true))
        for started in 1..<Machine.loopBudget {
            XCTAssertTrue(machine.nextStep(startedSoFar: started, now: 0).runs(nil, helperStartsLoop: false), "one loop pending at most")
        }
        guard case .handBack(let action) = machine.nextStep(startedSoFar: Machine.loopBudget, now: 0) else {
            return XCTFail("a loop that started its budget's worth gives its thread back")
        }
        XCTAssertTrue(action.isNone, "the pending helper carries on")
        XCTAssertEqual(machine.line.count, 1)
        XCTAssertTrue(machine.loopStarted(now: 0).runs(nil, helperStartsLoop: false))
        guard case .handBack(let none) = machine.nextStep(startedSoFar: Machine.loopBudget, now: 0) else {
            return XCTFail("the budget holds whatever remains")
        }
        XCTAssertTrue(none.isNone, "no work left: no other loop")
        XCTAssertEqual(machine.running, Machine.loopBudget + 1)
    }

    func testALoopOnItsOwnQueueStartsThere() {
        var machine = Machine()
        let own = DispatchQueue(label: "scheduler.machine.tests")
        machine.setUnderlyingQueue(own)
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: 0).startsLoop(on: own))
        machine.setQualityOfService(.utility)
        XCTAssertTrue(machine.underlyingQueue === own, "a quality of service leaves the user's queue")
        machine.setUnderlyingQueue(nil)
        _ = machine.loopStarted(now: 0)
        _ = machine.didFinish(now: 0)
        XCTAssertTrue(
            machine.submit(BlockProcedure {}, priority: .normal, now: 0).startsLoop(on: ProcedureScheduler.globalQueue(for: .utility)))
    }

    // MARK: - Work handed to the loop that runs its maker

    func testWorkMadeReadyInsideTheLoopsRunIsTakenByThatLoopWithoutAnotherOne() {
        var machine = Machine(width: 2)
        let (holder, next) = (BlockProcedure {}, BlockProcedure {})
        _ = machine.submit(holder, priority: .normal, now: 0)
        XCTAssertTrue(machine.loopStarted(now: 0).runs(holder, helperStartsLoop: false))
        _ = machine.didFinish(now: 0)  // the holder gives its slot back, then hands its categories on
        let (handed, action) = machine.submitToRunningLoop(next, priority: .normal, now: 0)
        XCTAssertTrue(handed)
        XCTAssertTrue(action.isNone, "no other loop: the one running the holder takes it next")
        XCTAssertEqual(machine.pendingLoops, 0)
        XCTAssertTrue(machine.nextStep(startedSoFar: 1, now: 0).runs(next, helperStartsLoop: false))
    }

    func testHandedWorkGetsALoopBeforeUserCodeRuns() {
        var machine = Machine()
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0)
        _ = machine.loopStarted(now: 0)
        _ = machine.didFinish(now: 0)
        XCTAssertTrue(machine.submitToRunningLoop(BlockProcedure {}, priority: .normal, now: 0).handed)
        XCTAssertTrue(machine.handedWorkNeedsLoop(now: 0).startsLoop(on: globalQueue), "a did-finish observer is about to run")
        XCTAssertTrue(machine.handedWorkNeedsLoop(now: 0).isNone, "one loop on its way is enough")
    }

    func testWorkThatCannotStartNowIsSubmittedAsAnyOther() {
        var full = Machine(width: 1)
        _ = full.submit(BlockProcedure {}, priority: .normal, now: 0)
        _ = full.loopStarted(now: 0)
        let (handedToFull, _) = full.submitToRunningLoop(BlockProcedure {}, priority: .normal, now: 0)
        XCTAssertFalse(handedToFull, "the width is full: it waits for a slot, as a submission does")
        XCTAssertTrue(full.waitsForSlot)

        var suspended = Machine(suspended: true)
        XCTAssertFalse(suspended.submitToRunningLoop(BlockProcedure {}, priority: .normal, now: 0).handed)
        XCTAssertTrue(suspended.setSuspended(false, decision: nil, now: 0).action.startsLoop(on: globalQueue))

        var (released, holder) = givingBack()
        _ = released.releaseDone(now: 0)
        let (handedWithoutSlot, action) = released.submitToRunningLoop(BlockProcedure {}, priority: .normal, now: 0)
        XCTAssertFalse(handedWithoutSlot)
        XCTAssertTrue(action.reacquires(holder), "the holder's slot given back: it is asked for again")
    }

    // MARK: - Suspension

    func testASuspendedMachineStartsNothingAndResumingHandsBackTheParkedChecks() {
        var machine = Machine()
        let gate = BlockProcedure {}
        XCTAssertFalse(machine.parkWhileSuspended(gate), "not suspended: nothing to park")
        XCTAssertTrue(machine.setSuspended(true, decision: nil, now: 0).action.isNone)
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: 0).isNone)
        XCTAssertTrue(machine.readyHoldUp.suspended)
        XCTAssertTrue(machine.parkWhileSuspended(gate))
        let resumed = machine.setSuspended(false, decision: nil, now: 0)
        XCTAssertTrue(resumed.action.startsLoop(on: globalQueue))
        XCTAssertEqual(resumed.resumedGates.map(ObjectIdentifier.init), [ObjectIdentifier(gate)])
        XCTAssertTrue(machine.parkedGates.isEmpty, "handed back once")
        XCTAssertTrue(machine.setSuspended(false, decision: nil, now: 0).resumedGates.isEmpty)
    }

    func testAnOlderDecisionIsIgnored() {
        var machine = Machine()
        _ = machine.setSuspended(true, decision: 2, now: 0)
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0)
        let stale = machine.setSuspended(false, decision: 1, now: 0)
        XCTAssertTrue(stale.action.isNone)
        XCTAssertTrue(machine.isSuspended, "decision 1 came after 2 was applied")
        _ = machine.setSuspended(false, decision: 2, now: 0)
        XCTAssertTrue(machine.isSuspended, "the same decision twice is applied once")
        XCTAssertTrue(machine.setSuspended(false, decision: 3, now: 0).action.startsLoop(on: globalQueue))
        XCTAssertFalse(machine.isSuspended)
        _ = machine.setSuspended(true, decision: nil, now: 0)
        XCTAssertTrue(machine.isSuspended, "a change without a decision is always applied")
    }

    // MARK: - Linger

    func testWorkSoonAfterALoopLeftMakesTheNextLoopLingerAndAPokeEndsIt() {
        var machine = Machine()
        let (first, second, third) = (BlockProcedure {}, BlockProcedure {}, BlockProcedure {})
        _ = machine.submit(first, priority: .normal, now: 0)
        XCTAssertTrue(machine.loopStarted(now: 0).runs(first, helperStartsLoop: false))
        _ = machine.didFinish(now: 0)
        XCTAssertTrue(machine.nextStep(startedSoFar: 1, now: 1_000).leaves, "not streaming yet")
        XCTAssertEqual(machine.linger, .idle(since: 1_000, streaming: false))
        XCTAssertTrue(machine.submit(second, priority: .normal, now: 1_000 + Machine.lingerNanoseconds - 1).startsLoop(on: globalQueue))
        XCTAssertEqual(machine.linger, .streaming, "work came sooner than a linger lasts")
        XCTAssertTrue(machine.loopStarted(now: 0).runs(second, helperStartsLoop: false))
        _ = machine.didFinish(now: 0)
        XCTAssertTrue(machine.nextStep(startedSoFar: 1, now: 0).lingers)
        XCTAssertEqual(machine.lingerCount, 1)
        XCTAssertTrue(machine.submit(third, priority: .normal, now: 0).isPoke, "the lingering loop takes it: no loop started")
        XCTAssertEqual(machine.pendingLoops, 0)
        XCTAssertTrue(machine.lingerEnded(startedSoFar: 1, now: 0).runs(third, helperStartsLoop: false))
        XCTAssertEqual(machine.linger, .streaming, "the linger found work: still streaming")
    }

    func testALingerThatFindsNothingEndsTheStreaming() {
        var machine = streamingMachine()
        XCTAssertTrue(machine.nextStep(startedSoFar: 1, now: 0).lingers)
        XCTAssertTrue(machine.lingerEnded(startedSoFar: 1, now: 5_000).leaves)
        XCTAssertEqual(machine.linger, .idle(since: 5_000, streaming: false))
        XCTAssertEqual(machine.lingerCount, 1, "an idle scheduler lingers once")
    }

    func testWorkLongAfterALoopLeftStartsALoopThatLeavesWithoutLingering() {
        var machine = Machine()
        let (first, second) = (BlockProcedure {}, BlockProcedure {})
        _ = machine.submit(first, priority: .normal, now: 0)
        _ = machine.loopStarted(now: 0)
        _ = machine.didFinish(now: 0)
        _ = machine.nextStep(startedSoFar: 1, now: 1_000)
        XCTAssertTrue(machine.submit(second, priority: .normal, now: 1_000 + Machine.lingerNanoseconds).startsLoop(on: globalQueue))
        XCTAssertEqual(machine.linger, .quiet)
        _ = machine.loopStarted(now: 0)
        _ = machine.didFinish(now: 0)
        XCTAssertTrue(machine.nextStep(startedSoFar: 1, now: 0).leaves)
        XCTAssertEqual(machine.lingerCount, 0)
    }

    func testALoopNeverLingersOnItsOwnQueueNorForAFullWidthOrASuspension() {
        var own = streamingMachine()
        own.setUnderlyingQueue(DispatchQueue(label: "scheduler.machine.tests.own"))
        XCTAssertTrue(own.nextStep(startedSoFar: 1, now: 0).leaves)

        var full = streamingMachine(width: 1, finishFirst: false)
        _ = full.submit(BlockProcedure {}, priority: .normal, now: 0)
        XCTAssertTrue(full.nextStep(startedSoFar: 1, now: 0).leaves, "the finish will start a loop")

        var suspended = streamingMachine()
        _ = suspended.setSuspended(true, decision: nil, now: 0)
        XCTAssertTrue(suspended.nextStep(startedSoFar: 1, now: 0).leaves, "the resume will start a loop")
        XCTAssertEqual(own.lingerCount + full.lingerCount + suspended.lingerCount, 0)
        XCTAssertEqual(suspended.linger, .idle(since: 0, streaming: true), "loops still running go by the streaming")
    }

    func testALoopThatLeavesWhileAnotherLingersLeavesTheLingerToIt() {
        var machine = streamingMachine(width: -1, finishFirst: false)
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0)  // for a second loop
        XCTAssertTrue(machine.loopStarted(now: 0).runs(nil, helperStartsLoop: false))
        _ = machine.didFinish(now: 0)
        XCTAssertTrue(machine.nextStep(startedSoFar: 1, now: 0).lingers, "the second loop lingers")
        _ = machine.didFinish(now: 0)
        XCTAssertTrue(machine.nextStep(startedSoFar: 1, now: 7_000).leaves, "one lingers already")
        XCTAssertEqual(machine.linger, .lingering(idleSince: 7_000))
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: 0).isPoke)
        XCTAssertTrue(machine.lingerEnded(startedSoFar: 1, now: 0).runs(nil, helperStartsLoop: false))
        XCTAssertEqual(machine.linger, .idle(since: 7_000, streaming: true), "the next start measures from the leave")
    }

    func testTheClockIsReadOnlyWhenADecisionNeedsIt() {
        var machine = Machine()
        let clock = CountingClock()
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: clock.read())
        _ = machine.loopStarted(now: clock.read())
        _ = machine.didFinish(now: clock.read())
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: clock.read()).startsLoop(on: globalQueue))
        _ = machine.loopStarted(now: clock.read())
        XCTAssertEqual(clock.reads, 0, "nothing to measure: no loop has left yet")
        _ = machine.didFinish(now: clock.read())
        XCTAssertTrue(machine.nextStep(startedSoFar: 1, now: clock.read()).leaves)
        XCTAssertEqual(clock.reads, 1, "a loop that leaves notes when")
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: clock.read()).startsLoop(on: globalQueue))
        XCTAssertEqual(clock.reads, 2, "the next start measures the gap")
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: clock.read())
        _ = machine.loopStarted(now: clock.read())
        XCTAssertEqual(clock.reads, 2, "measured once")
    }

    // MARK: - The holder's slot

    /// (a) The last child gives its slot back: the holder gives its own back; done, nothing asked.
    func testTheHolderGivesItsSlotBackWhenNothingHoldsOrWantsOne() {
        let (machine, group) = givingBack()
        var released = machine
        XCTAssertTrue(released.releaseDone(now: 0).isNone)
        XCTAssertEqual(released.slot, .released)
        XCTAssertEqual(released.deferredReacquireCount, 0)
        _ = group
    }

    /// (b) A submission while the slot is being given back is deferred; the release's end asks.
    func testASubmissionDuringTheReleaseAsksForTheSlotOnceTheReleaseIsDone() {
        var (machine, group) = givingBack()
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: 0).isNone, "nothing starts, nothing asked yet")
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: 0).isNone)
        XCTAssertEqual(machine.slot, .releasing(requestPending: true))
        XCTAssertEqual(machine.deferredReacquireCount, 2)
        XCTAssertTrue(machine.releaseDone(now: 0).reacquires(group))
        XCTAssertEqual(machine.slot, .reacquiring)
    }

    /// (c) Once given back, the next submission asks for it; (d) once only; (e) granted, work starts.
    func testASubmissionAfterTheReleaseAsksOnceAndTheGrantStartsWork() {
        var (machine, group) = givingBack()
        _ = machine.releaseDone(now: 0)
        let child = BlockProcedure {}
        XCTAssertTrue(machine.submit(child, priority: .normal, now: 0).reacquires(group))
        XCTAssertTrue(machine.submit(BlockProcedure {}, priority: .normal, now: 0).isNone, "asked already")
        XCTAssertEqual(machine.readyHoldUp.suspended, false)
        XCTAssertTrue(machine.reacquired(now: 0).startsLoop(on: globalQueue))
        XCTAssertEqual(machine.slot, .held)
        XCTAssertTrue(machine.loopStarted(now: 0).runs(child, helperStartsLoop: true), "the second waits for a helper")
        XCTAssertEqual(machine.deferredReacquireCount, 0)
    }

    /// (f) A holder cleared (finishing) once its slot is given back leaves nothing to wait for.
    func testAHolderClearedWhileItsSlotIsAwayLetsWorkStartWithoutIt() {
        var released = givingBack().machine
        _ = released.releaseDone(now: 0)
        released.setHolder(nil)
        XCTAssertEqual(released.slot, .none)
        XCTAssertTrue(released.submit(BlockProcedure {}, priority: .normal, now: 0).startsLoop(on: globalQueue))

        var releasing = givingBack().machine
        _ = releasing.submit(BlockProcedure {}, priority: .normal, now: 0)
        releasing.setHolder(nil)
        XCTAssertEqual(releasing.slot, .releasing(requestPending: true), "the release is under way")
        XCTAssertTrue(releasing.releaseDone(now: 0).startsLoop(on: globalQueue), "no holder to ask")
        XCTAssertEqual(releasing.slot, .none)

        var reacquiring = givingBack().machine
        _ = reacquiring.releaseDone(now: 0)
        _ = reacquiring.submit(BlockProcedure {}, priority: .normal, now: 0)
        reacquiring.setHolder(nil)
        XCTAssertTrue(reacquiring.reacquired(now: 0).startsLoop(on: globalQueue))
        XCTAssertEqual(reacquiring.slot, .none)
    }

    /// (g) A slot given back while others hold or want one is not the holder's to give; nor
    /// is a finish ever.
    func testTheHolderKeepsItsSlotWhileAChildHoldsOrWantsOne() {
        var machine = Machine(width: 1)
        let group = BlockProcedure {}
        machine.setHolder(group)
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0)
        _ = machine.loopStarted(now: 0)
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0)
        XCTAssertTrue(machine.slotReleased(now: 0).startsLoop(on: globalQueue), "the slot goes to the next in line")
        XCTAssertEqual(machine.slot, .held)
        _ = machine.loopStarted(now: 0)
        XCTAssertTrue(machine.didFinish(now: 0).isNone, "a finish never gives the holder's slot back")
        XCTAssertEqual(machine.slot, .held)
        var wide = Machine()
        wide.setHolder(group)
        _ = wide.submit(BlockProcedure {}, priority: .normal, now: 0)
        _ = wide.submit(BlockProcedure {}, priority: .normal, now: 0)
        _ = wide.loopStarted(now: 0)
        _ = wide.loopStarted(now: 0)
        XCTAssertTrue(wide.slotReleased(now: 0).isNone, "another child still holds one")
        XCTAssertTrue(wide.slotReleased(now: 0).releases(group))
    }

    func testTheHolderGivesItsSlotBackAgainAfterEachGrant() {
        var (machine, group) = givingBack()
        _ = machine.releaseDone(now: 0)
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0)
        _ = machine.reacquired(now: 0)
        _ = machine.loopStarted(now: 0)
        XCTAssertTrue(machine.slotReleased(now: 0).releases(group))
        XCTAssertEqual(machine.slot, .releasing(requestPending: false))
    }

    // MARK: - Helpers

    /// A machine whose only child (of `group`) has just given its slot back, the holder's
    /// release decided.
    private func givingBack() -> (machine: Machine, group: Procedure) {
        var machine = Machine()
        let group = BlockProcedure {}
        machine.setHolder(group)
        XCTAssertEqual(machine.slot, .held)
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0)
        _ = machine.loopStarted(now: 0)
        XCTAssertTrue(machine.slotReleased(now: 0).releases(group))
        XCTAssertEqual(machine.slot, .releasing(requestPending: false))
        return (machine, group)
    }

    /// A machine whose loop has just run a procedure (finished unless told) while procedures
    /// stream in.
    private func streamingMachine(width: Int = -1, finishFirst: Bool = true) -> Machine {
        var machine = Machine(width: width)
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 0)
        _ = machine.loopStarted(now: 0)
        _ = machine.didFinish(now: 0)
        _ = machine.nextStep(startedSoFar: 1, now: 100)
        _ = machine.submit(BlockProcedure {}, priority: .normal, now: 200)
        XCTAssertEqual(machine.linger, .streaming)
        _ = machine.loopStarted(now: 0)
        if finishFirst { _ = machine.didFinish(now: 0) }
        return machine
    }

    private final class CountingClock {
        var reads = 0
        func read() -> UInt64 {
            reads += 1
            return 1_000
        }
    }
}

extension SchedulerStateMachine.Action {
    fileprivate var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    fileprivate var isPoke: Bool {
        if case .pokeLingeringLoop = self { return true }
        return false
    }

    fileprivate func startsLoop(on queue: DispatchQueue) -> Bool {
        if case .startLoop(let target) = self { return target === queue }
        return false
    }

    fileprivate func releases(_ holder: Procedure) -> Bool {
        if case .releaseHolderSlot(let procedure) = self { return procedure === holder }
        return false
    }

    fileprivate func reacquires(_ holder: Procedure) -> Bool {
        if case .reacquireHolderSlot(let procedure) = self { return procedure === holder }
        return false
    }
}

extension SchedulerStateMachine.Step {
    /// Runs `procedure` (any, if nil), with or without a helper loop.
    fileprivate func runs(_ procedure: Procedure?, helperStartsLoop: Bool) -> Bool {
        guard case .run(let started, let helper) = self else { return false }
        if let procedure, started !== procedure { return false }
        if case .startLoop = helper { return helperStartsLoop }
        return !helperStartsLoop && helper.isNone
    }

    fileprivate var lingers: Bool {
        if case .linger = self { return true }
        return false
    }

    fileprivate var leaves: Bool {
        if case .leave = self { return true }
        return false
    }
}
