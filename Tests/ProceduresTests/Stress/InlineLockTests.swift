import Synchronization
import ProceduresTestSupport
import XCTest

@testable import ProceduresSupport

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

    func testManyMoreThreadsThanCoresNeverLoseAnIncrement() {
        // Eight threads on two cores, each holding the lock long enough for the others to spin
        // out: this exercises sleeping and waking, not just spinning.
        Self.assertEightThreadsLoseNoIncrement(rounds: stressIterations(20), perThread: 2_000)
    }

    #if os(Linux) && (arch(x86_64) || arch(arm64))
    func testWithoutTheFutexCallWaitersYieldAndNeverLoseAnIncrement() {
        // What a fully static binary gets, where `syscall` cannot be looked up.
        Futex.yieldsInstead.store(true, ordering: .relaxed)
        defer { Futex.yieldsInstead.store(false, ordering: .relaxed) }
        Self.assertEightThreadsLoseNoIncrement(rounds: stressIterations(10), perThread: 1_000)
    }

    func testEveryThreadAsleepOnAHeldLockIsWokenWhenItIsReleased() {
        // The holder keeps the lock until a waiter has marked it as slept on (the word reads 2),
        // so each round has threads asleep in the kernel when it unlocks; every one of them
        // must get through, or the round never ends.
        let rounds = stressIterations(50)
        let waiters = 6
        let counter = Counter()
        for _ in 0..<rounds {
            let held = Atomic<Bool>(false)
            let done = DispatchGroup()
            done.enter()
            Thread {
                counter.lock.withLock {
                    held.store(true, ordering: .releasing)
                    while counter.lock.word.load(ordering: .relaxed) != 2 {}
                }
                done.leave()
            }.start()
            while !held.load(ordering: .acquiring) {}
            Self.runOnThreads(waiters) { counter.lock.withLock { counter.count += 1 } }
            done.wait()
        }
        XCTAssertEqual(counter.lock.withLock { counter.count }, rounds * waiters)
        XCTAssertEqual(counter.lock.word.load(ordering: .relaxed), 0, "a released lock reads free")
    }
    #endif

    /// Eight threads, started together, each adding 50 `perThread` times in one critical
    /// section: the total must be exact.
    private static func assertEightThreadsLoseNoIncrement(
        rounds: Int, perThread: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        let threads = 8
        let counter = Counter()
        for _ in 0..<rounds {
            runOnThreads(threads) {
                for _ in 0..<perThread { counter.lock.withLock { for _ in 0..<50 { counter.count += 1 } } }
            }
        }
        XCTAssertEqual(counter.lock.withLock { counter.count }, rounds * threads * perThread * 50, file: file, line: line)
    }

    /// Runs `body` on `count` new threads, started together (each waits, yielding, until all
    /// have arrived, so that they contend), and returns when all have returned.
    private static func runOnThreads(_ count: Int, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchGroup()
        let arrived = Atomic<Int>(0)
        for _ in 0..<count {
            done.enter()
            Thread {
                arrived.add(1, ordering: .acquiringAndReleasing)
                var spins = 0
                while arrived.load(ordering: .acquiring) < count, spins < 10_000_000 {
                    sched_yield()
                    spins += 1
                }
                body()
                done.leave()
            }.start()
        }
        done.wait()
    }
}
