import Foundation
import ProceduresTesting
import XCTest

final class WaitStrategyTests: XCTestCase {
    private func waits(_ strategy: WaitStrategy, _ count: Int = 6) -> [TimeInterval] {
        (1...count).map { strategy.interval(forWait: $0) }
    }

    func testImmediateNeverWaits() {
        XCTAssertEqual(waits(.immediate), [0, 0, 0, 0, 0, 0])
    }

    func testConstantWaitsTheSameEveryTime() {
        XCTAssertEqual(waits(.constant(1.5)), [1.5, 1.5, 1.5, 1.5, 1.5, 1.5])
    }

    func testIncrementingAddsTheIncrementEachTime() {
        XCTAssertEqual(waits(.incrementing(initial: 1, increment: 2)), [1, 3, 5, 7, 9, 11])
    }

    func testExponentialMultipliesAndStopsAtTheCap() {
        XCTAssertEqual(waits(.exponential(initial: 1, maximum: 10)), [1, 2, 4, 8, 10, 10])
        XCTAssertEqual(waits(.exponential(initial: 0.5, multiplier: 3), 4), [0.5, 1.5, 4.5, 13.5])
    }

    func testExponentialWithFullJitterStaysBetweenZeroAndTheWait() {
        var random = StressRandom(seed: 7)
        let strategy = WaitStrategy.exponential(initial: 1, maximum: 30, jitter: .full)
        var seen = Set<TimeInterval>()
        for wait in 1...10 {
            let full = min(30, pow(2, Double(wait - 1)))
            for _ in 0..<50 {
                let value = strategy.interval(forWait: wait, using: &random)
                XCTAssertTrue((0...full).contains(value), "\(value) outside 0...\(full)")
                seen.insert(value)
            }
        }
        XCTAssertGreaterThan(seen.count, 400, "full jitter must actually randomise")
    }

    func testExponentialWithEqualJitterKeepsAtLeastHalfTheWait() {
        var random = StressRandom(seed: 8)
        let strategy = WaitStrategy.exponential(initial: 2, maximum: 16, jitter: .equal)
        for wait in 1...8 {
            let full = min(16, 2 * pow(2, Double(wait - 1)))
            for _ in 0..<50 {
                let value = strategy.interval(forWait: wait, using: &random)
                XCTAssertTrue((full / 2...full).contains(value), "\(value) outside \(full / 2)...\(full)")
            }
        }
    }

    func testSeededGeneratorGivesRepeatableJitter() {
        let strategy = WaitStrategy.exponential(initial: 1, jitter: .full)
        var first = StressRandom(seed: 99)
        var second = StressRandom(seed: 99)
        let a = (1...5).map { strategy.interval(forWait: $0, using: &first) }
        let b = (1...5).map { strategy.interval(forWait: $0, using: &second) }
        XCTAssertEqual(a, b)
    }

    func testFibonacciFollowsTheSequenceUpToTheMaximum() {
        XCTAssertEqual(waits(.fibonacci(period: 1), 8), [1, 1, 2, 3, 5, 8, 13, 21])
        XCTAssertEqual(waits(.fibonacci(period: 0.5, maximum: 2)), [0.5, 0.5, 1, 1.5, 2, 2])
    }

    func testRandomStaysWithinItsRange() {
        var random = StressRandom(seed: 3)
        let strategy = WaitStrategy.random(in: 2...5)
        let values = (0..<200).map { _ in strategy.interval(forWait: 1, using: &random) }
        XCTAssertTrue(values.allSatisfy { (2...5).contains($0) })
        XCTAssertGreaterThan(Set(values).count, 150)
        XCTAssertEqual(WaitStrategy.random(in: 3...3).interval(forWait: 1), 3)
    }

    func testCustomGetsTheWaitNumber() {
        XCTAssertEqual(waits(.custom { Double($0) * 10 }, 3), [10, 20, 30])
    }

    func testNegativeAndNaNWaitsMeanNoWait() {
        XCTAssertEqual(waits(.constant(-3), 2), [0, 0])
        XCTAssertEqual(waits(.custom { _ in .nan }, 2), [0, 0])
        XCTAssertEqual(waits(.incrementing(initial: 2, increment: -1), 4), [2, 1, 0, 0])
        XCTAssertEqual(waits(.random(in: -5 ... -1), 2), [0, 0])
    }

    func testAWaitNumberBelowOneCountsAsTheFirst() {
        XCTAssertEqual(WaitStrategy.exponential(initial: 3).interval(forWait: 0), 3)
        XCTAssertEqual(WaitStrategy.fibonacci(period: 2).interval(forWait: -4), 2)
    }

    func testHugeWaitNumbersDoNotOverflow() {
        XCTAssertEqual(WaitStrategy.exponential(initial: 1, maximum: 60).interval(forWait: 10_000), 60)
        XCTAssertEqual(WaitStrategy.fibonacci(period: 1, maximum: 60).interval(forWait: 100_000), 60)
        XCTAssertEqual(WaitStrategy.exponential(initial: 1, jitter: .full).interval(forWait: 5000), .infinity)
    }
}
