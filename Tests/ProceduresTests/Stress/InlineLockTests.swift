import ProceduresSupport
import ProceduresTestSupport
import XCTest

/// The lock inside every procedure, queue, scheduler and group: mutual exclusion under
/// contention, and the value a critical section returns.
final class InlineLockTests: XCTestCase {
    private final class Counter: @unchecked Sendable {
        // @unchecked: `count` and `lastSeen` are touched only under `lock`.
        let lock = InlineLock()
        var count = 0
        var lastSeen: [Int] = [0, 0]
    }

    func testTwoThreadsContendingNeverLoseAnIncrement() {
        let rounds = stressIterations(200)
        let perThread = 5_000
        let counter = Counter()
        for _ in 0..<rounds {
            ThreadRace.run(
                { for _ in 0..<perThread { counter.lock.withLock { counter.count += 1 } } },
                { for _ in 0..<perThread { counter.lock.withLock { counter.count += 1 } } })
        }
        XCTAssertEqual(counter.lock.withLock { counter.count }, rounds * perThread * 2)
    }

    func testACriticalSectionSeesEveryEarlierOneWholly() {
        // Each section writes two fields; a section that saw one without the other would mean
        // two sections overlapped.
        let rounds = stressIterations(200)
        let counter = Counter()
        let torn = LockedBox(0)
        let body: @Sendable () -> Void = {
            for _ in 0..<2_000 {
                let consistent = counter.lock.withLock { () -> Bool in
                    let ok = counter.lastSeen[0] == counter.lastSeen[1]
                    counter.lastSeen[0] += 1
                    counter.lastSeen[1] += 1
                    return ok
                }
                if !consistent { torn.mutate { $0 += 1 } }
            }
        }
        for _ in 0..<rounds { ThreadRace.run(body, body) }
        XCTAssertEqual(torn.value, 0)
        XCTAssertEqual(counter.lock.withLock { counter.lastSeen }, [rounds * 4_000, rounds * 4_000])
    }
}

/// The adaptive lock a queue keeps (`Lock.contended()`): mutual exclusion under contention.
final class ContendedLockTests: XCTestCase {
    private final class Counter: @unchecked Sendable {
        // @unchecked: `count` and `lastSeen` are touched only under `lock`.
        let lock = Lock.contended()
        var count = 0
        var lastSeen: [Int] = [0, 0]
    }

    func testTwoThreadsContendingNeverLoseAnIncrementOrSeeAHalfDoneSection() {
        let rounds = stressIterations(200)
        let perThread = 5_000
        let counter = Counter()
        let torn = LockedBox(0)
        let body: @Sendable () -> Void = {
            for _ in 0..<perThread {
                let consistent = counter.lock.withLock { () -> Bool in
                    let ok = counter.lastSeen[0] == counter.lastSeen[1]
                    counter.lastSeen[0] += 1
                    counter.count += 1
                    counter.lastSeen[1] += 1
                    return ok
                }
                if !consistent { torn.mutate { $0 += 1 } }
            }
        }
        for _ in 0..<rounds { ThreadRace.run(body, body) }
        XCTAssertEqual(torn.value, 0)
        XCTAssertEqual(counter.lock.withLock { counter.count }, rounds * perThread * 2)
    }
}
