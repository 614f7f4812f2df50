import Foundation

/// How long to wait before each repetition: a plain value that answers "how many seconds
/// before the *n*th wait?".
///
/// ``RepeatProcedure`` and ``RetryProcedure`` ask it before every operation after the first;
/// it works just as well on its own (for an HTTP retry that also honours `Retry-After`, take
/// the larger of the two):
///
/// ```swift
/// let backOff = WaitStrategy.exponential(initial: 0.5, maximum: 30, jitter: .full)
/// let seconds = backOff.interval(forWait: 3)  // 2 s at most, with full jitter
/// ```
///
/// Waits are counted from 1 (the wait before the second operation); a count below 1 counts
/// as 1. Every answer is a non-negative number of seconds: a negative or NaN one (from
/// ``custom(_:)``, or a negative increment) becomes zero, "do not wait". Only an uncapped
/// growth (exponential or fibonacci with no `maximum`, far enough along) reaches infinity,
/// which waits until cancelled.
public struct WaitStrategy: Sendable {
    /// How an exponential wait is randomised, to spread out clients that failed together.
    public enum Jitter: Sendable, Equatable {
        /// Exactly the computed wait.
        case none
        /// Anywhere between zero and the computed wait.
        case full
        /// Half the computed wait, plus anywhere up to the other half.
        case equal
    }

    private enum Kind: Sendable {
        case constant(TimeInterval)
        case incrementing(initial: TimeInterval, increment: TimeInterval)
        case exponential(initial: TimeInterval, multiplier: Double, maximum: TimeInterval, jitter: Jitter)
        case fibonacci(period: TimeInterval, maximum: TimeInterval)
        case random(ClosedRange<TimeInterval>)
        case custom(@Sendable (Int) -> TimeInterval)
    }

    private let kind: Kind

    /// No wait at all: the next operation starts as soon as the previous one finished.
    public static let immediate = WaitStrategy(kind: .constant(0))

    /// The same wait every time.
    public static func constant(_ seconds: TimeInterval) -> WaitStrategy {
        WaitStrategy(kind: .constant(seconds))
    }

    /// `initial`, then `initial + increment`, `initial + 2 × increment`, …
    public static func incrementing(initial: TimeInterval, increment: TimeInterval) -> WaitStrategy {
        WaitStrategy(kind: .incrementing(initial: initial, increment: increment))
    }

    /// `initial`, then each wait `multiplier` times the one before, never more than `maximum`,
    /// randomised by `jitter`.
    public static func exponential(
        initial: TimeInterval, multiplier: Double = 2, maximum: TimeInterval = .infinity, jitter: Jitter = .none
    ) -> WaitStrategy {
        WaitStrategy(kind: .exponential(initial: initial, multiplier: multiplier, maximum: maximum, jitter: jitter))
    }

    /// `period` times the Fibonacci numbers (1, 1, 2, 3, 5, 8, …), never more than `maximum`.
    public static func fibonacci(period: TimeInterval, maximum: TimeInterval = .infinity) -> WaitStrategy {
        WaitStrategy(kind: .fibonacci(period: period, maximum: maximum))
    }

    /// A wait drawn uniformly from `range` each time.
    public static func random(in range: ClosedRange<TimeInterval>) -> WaitStrategy {
        WaitStrategy(kind: .random(range))
    }

    /// Your own rule: `interval(n)` is the wait before the (n + 1)th operation. A negative or
    /// NaN answer means "do not wait"; an infinite one waits until cancelled.
    public static func custom(_ interval: @escaping @Sendable (_ wait: Int) -> TimeInterval) -> WaitStrategy {
        WaitStrategy(kind: .custom(interval))
    }

    /// The seconds to wait before the `wait`th repetition (1 for the wait before the second
    /// operation), drawing any randomness from the system's generator.
    public func interval(forWait wait: Int) -> TimeInterval {
        var generator = SystemRandomNumberGenerator()
        return interval(forWait: wait, using: &generator)
    }

    /// The seconds to wait before the `wait`th repetition, drawing any randomness from
    /// `generator` (pass a seeded one for repeatable values).
    public func interval(forWait wait: Int, using generator: inout some RandomNumberGenerator) -> TimeInterval {
        let n = Swift.max(1, wait)
        let raw: TimeInterval
        switch kind {
        case .constant(let seconds):
            raw = seconds
        case .incrementing(let initial, let increment):
            raw = initial + increment * Double(n - 1)
        case .exponential(let initial, let multiplier, let maximum, let jitter):
            let full = Swift.min(maximum, initial * pow(multiplier, Double(n - 1)))
            raw = Self.apply(jitter, to: Self.clamped(full), using: &generator)
        case .fibonacci(let period, let maximum):
            raw = Swift.min(maximum, period * Self.fibonacci(n))
        case .random(let range):
            raw = range.lowerBound == range.upperBound
                ? range.lowerBound : Double.random(in: range, using: &generator)
        case .custom(let body):
            raw = body(n)
        }
        return Self.clamped(raw)
    }

    /// Negative and NaN become zero.
    private static func clamped(_ seconds: TimeInterval) -> TimeInterval {
        seconds > 0 ? seconds : 0
    }

    private static func apply(
        _ jitter: Jitter, to seconds: TimeInterval, using generator: inout some RandomNumberGenerator
    ) -> TimeInterval {
        guard seconds > 0, seconds.isFinite else { return seconds }
        switch jitter {
        case .none: return seconds
        case .full: return Double.random(in: 0...seconds, using: &generator)
        case .equal: return seconds / 2 + Double.random(in: 0...(seconds / 2), using: &generator)
        }
    }

    /// The nth Fibonacci number (1, 1, 2, 3, 5, …) as a Double, without overflow.
    private static func fibonacci(_ n: Int) -> Double {
        var (a, b) = (0.0, 1.0)
        for _ in 1..<n {
            (a, b) = (b, a + b)
            if b.isInfinite { return b }
        }
        return b
    }
}
