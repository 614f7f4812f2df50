import Foundation
import ProceduresTesting
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `queue.cancelAllOperations(onSignals:)`: real signals, sent to this test process, cancel a
/// dedicated queue's work; removing the trap restores what the signal did before.
final class SignalTrapTests: MisuseRecordingTestCase {
    /// Traps `signals` for `queue` and waits until a signal sent from now on is seen.
    private func trap(_ queue: ProcedureQueue, _ signals: [Int32]) -> SignalTrap {
        let trap = queue.cancelAllOperations(onSignals: signals)
        let armed = expectation(description: "trap armed")
        trap.whenArmed { armed.fulfill() }
        wait(for: [armed], timeout: 10)
        return trap
    }

    /// Sends `signal` to this process with `raise()` from a thread of its own: the signal then
    /// goes through the same path as one the terminal or a service manager sends, and any
    /// change the delivery makes to the receiving thread's signal mask ends with that thread.
    private func raiseOnOwnThread(_ signal: Int32) {
        let raised = expectation(description: "raised \(signal)")
        let thread = Thread {
            raise(signal)
            raised.fulfill()
        }
        thread.start()
        wait(for: [raised], timeout: 10)
    }

    /// A procedure that runs on `queue` until cancelled, once it is executing.
    private func running(on queue: ProcedureQueue, _ name: String) -> WaitForCancelProcedure {
        let procedure = WaitForCancelProcedure(name: name)
        let executing = expectation(description: "\(name) executing")
        procedure.addDidExecuteBlockObserver { _ in executing.fulfill() }
        queue.addOperation(procedure)
        wait(for: [executing], timeout: 10)
        return procedure
    }

    private func disposition(of signal: Int32) -> UInt {
        var action = sigaction()
        sigaction(signal, nil, &action)
        #if canImport(Darwin)
            let handler = action.__sigaction_u.__sa_handler
        #else
            let handler = action.__sigaction_handler.sa_handler
        #endif
        return handler.map { UInt(bitPattern: unsafeBitCast($0, to: Int.self)) } ?? 0
    }

    private func address(of handler: (@convention(c) (Int32) -> Void)?) -> UInt {
        handler.map { UInt(bitPattern: unsafeBitCast($0, to: Int.self)) } ?? 0
    }

    func testSIGINTCancelsEverythingOnTheQueue() {
        let queue = ProcedureQueue()
        let trap = trap(queue, [SIGINT, SIGTERM])
        defer { trap.remove() }
        let first = running(on: queue, "first")
        let second = running(on: queue, "second")
        raiseOnOwnThread(SIGINT)  // what the terminal sends on Ctrl-C
        wait(for: first, second)
        assertProcedureCancelled(first)
        assertProcedureCancelled(second)
    }

    func testEachSignalCancelsWhatIsOnTheQueueWhenItArrives() {
        let queue = ProcedureQueue()
        let trap = trap(queue, [SIGUSR1])
        defer { trap.remove() }
        for round in 0..<3 {
            let procedure = running(on: queue, "round \(round)")
            raiseOnOwnThread(SIGUSR1)
            wait(for: procedure)
            assertProcedureCancelled(procedure)
        }
    }

    func testRemoveRestoresTheDispositionTheSignalHadBefore() {
        let previous = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, previous) }
        let trap = trap(ProcedureQueue(), [SIGUSR2])
        trap.remove()
        XCTAssertEqual(disposition(of: SIGUSR2), address(of: SIG_IGN))

        signal(SIGUSR2, SIG_DFL)
        let second = self.trap(ProcedureQueue(), [SIGUSR2])
        XCTAssertNotEqual(disposition(of: SIGUSR2), address(of: SIG_DFL), "the default action is replaced while trapped")
        second.remove()
        XCTAssertEqual(disposition(of: SIGUSR2), address(of: SIG_DFL))
    }

    func testATrapSetUpAfterAnotherWasRemovedStillWorks() {
        // On Linux libdispatch installs the handler that feeds its signal sources only with
        // the first source for a signal; the trap puts it back after restoring the default.
        let firstQueue = ProcedureQueue()
        let first = trap(firstQueue, [SIGUSR1])
        let before = running(on: firstQueue, "before removal")
        raiseOnOwnThread(SIGUSR1)
        wait(for: before)
        first.remove()

        let secondQueue = ProcedureQueue()
        let second = trap(secondQueue, [SIGUSR1])
        defer { second.remove() }
        let untrapped = running(on: firstQueue, "on the queue whose trap was removed")
        let trapped = running(on: secondQueue, "on the trapped queue")
        raiseOnOwnThread(SIGUSR1)
        wait(for: trapped)
        assertProcedureCancelled(trapped)
        XCTAssertFalse(untrapped.isCancelled, "a removed trap cancels nothing")
        untrapped.cancel()
        wait(for: untrapped)
    }

    func testTwoTrapsOnOneSignalBothCancelAndRemovingOneLeavesTheOther() {
        let (firstQueue, secondQueue) = (ProcedureQueue(), ProcedureQueue())
        let first = trap(firstQueue, [SIGUSR2])
        let second = trap(secondQueue, [SIGUSR2])
        defer { second.remove() }
        let a = running(on: firstQueue, "a")
        let b = running(on: secondQueue, "b")
        raiseOnOwnThread(SIGUSR2)
        wait(for: a, b)
        assertProcedureCancelled(a)
        assertProcedureCancelled(b)

        first.remove()
        XCTAssertNotEqual(disposition(of: SIGUSR2), address(of: SIG_DFL), "still trapped by the second")
        let c = running(on: firstQueue, "c")
        let d = running(on: secondQueue, "d")
        raiseOnOwnThread(SIGUSR2)
        wait(for: d)
        assertProcedureCancelled(d)
        XCTAssertFalse(c.isCancelled)
        c.cancel()
        wait(for: c)
    }

    func testRemovingTwiceIsHarmless() {
        let trap = trap(ProcedureQueue(), [SIGUSR1])
        trap.remove()
        trap.remove()
        XCTAssertTrue(misuse.all.isEmpty)
    }

    func testUncatchableSignalsAreReportedAndLeftOut() {
        let trap = ProcedureQueue().cancelAllOperations(onSignals: [SIGKILL, SIGUSR1, SIGSTOP, SIGUSR1])
        defer { trap.remove() }
        XCTAssertEqual(trap.signals, [SIGUSR1])
        XCTAssertEqual(misuse.all.map(\.kind), [.uncatchableSignal, .uncatchableSignal])
    }

    func testASignalAfterTheQueueWasReleasedDoesNothing() {
        var queue: ProcedureQueue? = ProcedureQueue()
        weak let released = queue
        let trap = trap(queue!, [SIGUSR1])
        defer { trap.remove() }
        queue = nil
        XCTAssertNil(released, "the trap does not keep the queue")
        // The trap still holds the signal: this raise would stop the process otherwise.
        let witness = ProcedureQueue()
        let witnessTrap = self.trap(witness, [SIGUSR1])
        defer { witnessTrap.remove() }
        let procedure = running(on: witness, "witness")
        raiseOnOwnThread(SIGUSR1)
        wait(for: procedure)
        assertProcedureCancelled(procedure)
    }
}
