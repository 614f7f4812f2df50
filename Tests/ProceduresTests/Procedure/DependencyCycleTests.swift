import Foundation
import ProceduresTesting
import XCTest

/// A dependency cycle never hangs silently: it is detected wherever it is closed (adding to a
/// queue, starting by hand, two threads at once), reported once, and every member is cancelled
/// with `ProcedureError.dependencyCycle` without executing.
final class DependencyCycleTests: ProcedureTestCase {
    /// A dependency cycle added to a running queue: every procedure on the cycle is cancelled with
    /// `dependencyCycle` and none executes. The members are cancelled together, before any of them
    /// can become ready: cancelled one after another, the first would finish on a worker and release
    /// the next, which could start before its own cancel arrived.
    func testDependencyCycleOnARunningQueueLetsNoMemberExecute() {
        var executed: [String] = []
        for round in 0..<100 {
            let a = TestProcedure(name: "A\(round)")
            let b = TestProcedure(name: "B\(round)")
            a.addDependency(b)
            b.addDependency(a)
            let queue = ProcedureQueue()
            queue.addOperations([a, b], waitUntilFinished: false)
            wait(for: a, b)
            executed += [a, b].filter { $0.didExecute || !$0.isCancelled }.compactMap(\.name)
        }
        XCTAssertTrue(
            executed.isEmpty,
            "in \(executed.count) of 100 two-procedure cycles a member ran instead of being cancelled, e.g. \(executed.prefix(5))")
    }

    /// A cycle closed by a procedure started by hand (A on a queue depends on B, B depends on A and
    /// is started by hand) is detected and reported as when B is added to a queue: `start()` waits
    /// for dependencies, so it must look for a cycle too, never hang silently.
    func testCycleClosedByAProcedureStartedByHandIsReported() {
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        a.addDependency(b)
        b.addDependency(a)
        ProcedureQueue().addOperation(a)
        b.start()
        // Cycle detection is synchronous when the closing procedure is added to a queue.
        let kinds = misuse.kinds(about: a) + misuse.kinds(about: b)
        XCTAssertEqual(kinds, [.dependencyCycle], "A: \(a.stateSummary); B: \(b.stateSummary)")
        XCTAssertTrue(a.isCancelled && b.isCancelled, "A: \(a.stateSummary); B: \(b.stateSummary)")
        // Clean up either way: cancelled procedures stop waiting and finish.
        a.cancel()
        b.cancel()
        wait(for: a, b)
    }

    /// A two-procedure cycle closed by two threads at once is reported once: when both members are
    /// claimed concurrently, both see themselves waited on and both find the cycle, and only one of
    /// them may report it.
    func testCycleClosedByTwoThreadsAtOnceIsReportedOnce() {
        let iterations = stressIterations(500)
        var doubles = 0
        var all: [Procedure] = []
        for _ in 0..<iterations {
            let a = BlockProcedure {}
            let b = BlockProcedure {}
            a.addDependency(b)
            b.addDependency(a)
            let queue = ProcedureQueue()
            ThreadRace.run({ queue.addOperation(a) }, { queue.addOperation(b) })
            let reports = misuse.reports(aboutAny: [a, b]).filter { $0.kind == .dependencyCycle }
            if reports.count > 1 { doubles += 1 }
            all += [a, b]
        }
        wait(forAll: all)
        XCTAssertEqual(doubles, 0, "cycles reported twice in \(doubles) of \(iterations) iterations")
    }
}
