import Foundation
import ProceduresTesting
import XCTest

// `stressIterations(_:)` (scaled by PROCEDURES_STRESS_SCALE) lives in ProceduresTestSupport.

/// A small seeded generator (SplitMix64), so a failing run can be replayed from its seed.
struct StressRandom: RandomNumberGenerator {
    private var state: UInt64
    let seed: UInt64

    /// Uses `PROCEDURES_STRESS_SEED` if set, else a fresh random seed.
    init() {
        let fromEnvironment = ProcessInfo.processInfo.environment["PROCEDURES_STRESS_SEED"].flatMap(UInt64.init)
        self.init(seed: fromEnvironment ?? UInt64.random(in: 0...UInt64.max))
    }

    init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func nextInt(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }
}

/// Per-index counters, for "exactly once" checks over thousands of procedures.
final class StressCounters: Sendable {
    private let counts: LockedBox<[Int]>
    init(count: Int) { counts = LockedBox(Array(repeating: 0, count: count)) }
    func increment(_ index: Int) { counts.mutate { $0[index] += 1 } }
    var values: [Int] { counts.value }
    func value(_ index: Int) -> Int { counts.mutate { $0[index] } }
}

/// An expectation for `count` events of a stress run (each procedure or group finishing):
/// fulfilled by exactly `count` of them, and failing the test if fulfilled once more.
func exactCountExpectation(_ description: String, count: Int) -> XCTestExpectation {
    let expectation = XCTestExpectation(description: description)
    expectation.expectedFulfillmentCount = count
    expectation.assertForOverFulfill = true
    return expectation
}

extension XCTestCase {
    /// Runs `bodies` at the same time, each on a thread of its own (not a pool thread, so a
    /// body may spin waiting for another), and returns when all have returned.
    func stressConcurrently(_ bodies: [@Sendable () -> Void]) {
        let group = DispatchGroup()
        for body in bodies {
            group.enter()
            let thread = Thread {
                body()
                group.leave()
            }
            thread.start()
        }
        group.wait()
    }
}

extension XCTestCase {
    /// Adds `count` procedures to `queue` from a thread of its own, each the moment the one
    /// before it ran, so that additions land just before, during and after the queue runs out
    /// of work; waits until all ran (the test fails if one did not run within 10 seconds).
    func addEachAsThePreviousRuns(_ count: Int, to queue: ProcedureQueue) {
        let allRan = expectation(description: "every procedure ran")
        let adder = Thread {
            for _ in 0..<count {
                let ran = DispatchSemaphore(value: 0)  // test-only: the adding thread waits
                queue.addOperation(BlockProcedure { ran.signal() })
                guard ran.wait(timeout: .now() + 10) == .success else { return }
            }
            allRan.fulfill()
        }
        adder.start()
        wait(for: [allRan], timeout: 120)
    }
}
