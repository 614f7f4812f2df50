import Foundation
import ProceduresTesting
import XCTest

// `stressIterations(_:)` (scaled by PROCEDURES_STRESS_SCALE) lives in Futures/StressScale.swift.

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
final class StressCounters: @unchecked Sendable {
    // @unchecked: `counts` is only touched under `lock`.
    private let lock = NSLock()
    private var counts: [Int]
    init(count: Int) { counts = Array(repeating: 0, count: count) }
    func increment(_ index: Int) { lock.withLock { counts[index] += 1 } }
    var values: [Int] { lock.withLock { counts } }
    func value(_ index: Int) -> Int { lock.withLock { counts[index] } }
}

/// A weak reference that can be read from any thread.
final class StressWeak: @unchecked Sendable {
    // @unchecked: Swift's weak references are safe to read and clear concurrently.
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

/// Reads a flag without taking a lock in the reader's way for long (an atomic would do; a
/// lock is enough here and keeps ThreadSanitizer informed).
final class StressFlag: @unchecked Sendable {
    // @unchecked: `raised` is only touched under `lock`.
    private let lock = NSLock()
    private var raised = false
    var isRaised: Bool { lock.withLock { raised } }
    func raise() { lock.withLock { raised = true } }
}

extension XCTestCase {
    /// Waits until `condition` holds, checking it every 10 ms from a timer (no sleeping
    /// thread), and fails with `message()` if it does not within `timeout` seconds.
    func stressWaitUntil(
        timeout: TimeInterval, _ description: String, message: () -> String = { "" },
        file: StaticString = #filePath, line: UInt = #line, condition: @escaping @Sendable () -> Bool
    ) {
        let met = XCTestExpectation(description: description)
        let done = StressFlag()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "stressWaitUntil"))
        timer.setEventHandler {
            guard !done.isRaised, condition() else { return }
            done.raise()
            met.fulfill()
        }
        timer.schedule(deadline: .now(), repeating: .milliseconds(10))
        timer.resume()
        let result = XCTWaiter().wait(for: [met], timeout: timeout)
        timer.cancel()
        if result != .completed {
            XCTFail("\(description): not within \(timeout) s. \(message())", file: file, line: line)
        }
    }

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
