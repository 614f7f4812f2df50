import Foundation
import Procedures
import ProceduresSupport
import XCTest

/// The debug check of the lock rule: every library lock is counted on the thread that holds
/// it, and a call-out made while one is held is reported, naming the rule, the call-out and
/// where it is made. Violations go to a per-thread hook here, so nothing stops the process.
final class LockRuleTests: XCTestCase {
    #if DEBUG
    func testEveryKindOfLibraryLockIsCountedWhileHeldOnItsThreadOnly() {
        let inline = InlineLock()
        let mutex = Lock()
        let value = LockedValue(0)
        let anchor = NSObject()
        XCTAssertEqual(LockRule.heldLockCount, 0)
        inline.withLock {
            XCTAssertEqual(LockRule.heldLockCount, 1)
            mutex.withLock {
                XCTAssertEqual(LockRule.heldLockCount, 2)
                value.withLock { _ in
                    XCTAssertEqual(LockRule.heldLockCount, 3)
                    StripedLock.withLock(for: anchor) {
                        XCTAssertEqual(LockRule.heldLockCount, 4)
                        let elsewhere = Thread.detachedCount { LockRule.heldLockCount }
                        XCTAssertEqual(elsewhere, 0, "another thread holds none of this thread's locks")
                    }
                }
            }
        }
        mutex.lock()
        XCTAssertEqual(LockRule.heldLockCount, 1)
        mutex.unlock()
        XCTAssertEqual(LockRule.heldLockCount, 0)
    }

    func testALockLeftByAThrowIsNoLongerCounted() {
        struct Thrown: Error {}
        let mutex = Lock()
        XCTAssertThrowsError(try mutex.withLock { throw Thrown() })
        XCTAssertThrowsError(try StripedLock.withLock(for: NSObject()) { throw Thrown() })
        XCTAssertEqual(LockRule.heldLockCount, 0)
    }

    func testReadingAnOpenNameUnderALibraryLockReportsTheRuleTheCallOutAndWhere() {
        let procedure = NamedProcedure()
        let lock = InlineLock()
        var reports: [String] = []
        LockRule.reportingViolations(to: { reports.append($0) }) {
            lock.withLock { _ = procedure.displayName }
        }
        XCTAssertEqual(reports.count, 1)
        let report = reports.first ?? ""
        XCTAssertTrue(report.contains("lock rule broken at Procedures/Procedure.swift:"), report)
        XCTAssertTrue(report.contains("name (an open property, read for displayName)"), report)
        XCTAssertTrue(report.contains("holds 1 InlineLock"), report)
        XCTAssertTrue(report.contains("no library lock may be held while calling user code"), report)
        XCTAssertEqual(procedure.nameReads, 1, "the check reports; it does not skip the call-out")
    }

    func testEveryLockHeldIsNamedInTheReport() {
        let inline = InlineLock()
        let mutex = Lock()
        var reports: [String] = []
        LockRule.reportingViolations(to: { reports.append($0) }) {
            inline.withLock { mutex.withLock { StripedLock.withLock(for: self) { assertNoLibraryLockHeld("a test's call-out") } } }
        }
        XCTAssertEqual(reports.count, 1)
        XCTAssertTrue(reports.first?.contains("a test's call-out is called while this thread holds 1 InlineLock and 1 Lock (or LockedValue) and 1 StripedLock stripe") ?? false, reports.first ?? "")
    }

    func testTakingASecondStripeIsReported() {
        // Found at the second take, before it locks: with both objects on one stripe it would hang.
        let first = NSObject(), second = NSObject()
        guard let other = sequence(first: second, next: { _ in NSObject() }).first(where: {
            StripedLock.mutex(for: $0) != StripedLock.mutex(for: first)
        }) else { return XCTFail("no object on another stripe") }
        var reports: [String] = []
        LockRule.reportingViolations(to: { reports.append($0) }) {
            StripedLock.withLock(for: first) { StripedLock.withLock(for: other) {} }
        }
        XCTAssertEqual(reports.count, 1)
        XCTAssertTrue(reports.first?.contains("a StripedLock stripe is taken while this thread holds one") ?? false, reports.first ?? "")
    }

    func testACallOutHoldingNoLockIsNotReported() {
        let procedure = NamedProcedure()
        var reports: [String] = []
        LockRule.reportingViolations(to: { reports.append($0) }) {
            _ = procedure.displayName
            InlineLock().withLock {}
            assertNoLibraryLockHeld("a test's call-out")
        }
        XCTAssertEqual(reports, [])
    }
    #else
    func testTheCheckIsCompiledOutOfReleaseBuilds() throws {
        throw XCTSkip("the lock rule is checked in debug builds only")
    }
    #endif
}

/// A procedure whose `name` is user code that counts its reads.
private final class NamedProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `nameReads` is only touched by the test's own thread.
    private(set) var nameReads = 0

    override var name: String? {
        get {
            nameReads += 1
            return "named"
        }
        set {}
    }
}

extension Thread {
    /// Runs `body` on a new thread and waits for its answer (tests only).
    fileprivate static func detachedCount(_ body: @escaping @Sendable () -> Int) -> Int {
        let answer = LockedValue(-1)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let count = body()
            answer.withLock { $0 = count }
            done.signal()
        }
        done.wait()
        return answer.withLock { $0 }
    }
}
