import Foundation
import ProceduresTesting
import XCTest

// The example from ProcedureKit's "Handling Cancellation in Asynchronous Procedures", with only
// the Linux / Swift 6 spelling changes: `override func execute()`, the timer created with
// `DispatchSource.makeTimerSource(flags: [], queue: .global())` and scheduled with
// `schedule(deadline: .now() + .seconds(60))`, and `final class …: Procedure, @unchecked Sendable`.

// NOTE: This is a limited example of handling cancellation.
// Use `DelayProcedure` if you need a delay.
final class BetterOneMinuteDelay: Procedure, @unchecked Sendable {

    var timer: DispatchSourceTimer? = nil

    override init() {
        super.init()
        addDidCancelBlockObserver { procedure, _ in
            procedure.timer?.cancel()
            // since cancelling the timer prevents it from calling its event handler
            // this will prevent the Procedure from finishing
            // thus, we must call finish() after we've cancelled the timer
            // to ensure that the Procedure always finishes
            procedure.finish()
        }
    }

    override func execute() {
        timer = DispatchSource.makeTimerSource(flags: [], queue: .global())
        timer?.setEventHandler { [weak self] in
            guard let strongSelf = self else { return }
            strongSelf.finish()
        }
        timer?.schedule(deadline: .now() + .seconds(60))
        timer?.resume()
    }
}

final class BetterOneMinuteDelayTests: ProcedureTestCase {
    func testCancelledWhileExecutingItFinishesLongBeforeTheTimer() {
        let delay = BetterOneMinuteDelay()
        let executed = expectExecuted(delay)
        let queue = ProcedureQueue()
        queue.addOperation(delay)
        wait(for: [executed], timeout: 10)
        XCTAssertNotNil(delay.timer, "execute() started the timer")
        XCTAssertFalse(delay.isFinished)

        delay.cancel()
        wait(for: delay)  // 10 s timeout: far less than the 60 s timer
        assertProcedureCancelled(delay)
        XCTAssertTrue(delay.isCancelled)
        XCTAssertEqual(misuse.kinds(about: delay), [])
    }

    func testCancelledBeforeItStartsItFinishesWithoutStartingTheTimer() {
        let delay = BetterOneMinuteDelay()
        delay.cancel()
        wait(for: delay)
        assertProcedureCancelled(delay)
        XCTAssertNil(delay.timer, "execute() never ran")
        XCTAssertEqual(misuse.kinds(about: delay), [], "its did-cancel finish and the framework's must not clash")
    }
}
