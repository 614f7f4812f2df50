import Foundation

/// Scales a stress test's iteration count by `PROCEDURES_STRESS_SCALE` (a Double, default 1;
/// CI runs ThreadSanitizer at 0.2). Never returns less than 1.
public func stressIterations(_ base: Int) -> Int {
    let raw = ProcessInfo.processInfo.environment["PROCEDURES_STRESS_SCALE"]
    let scale = raw.flatMap(Double.init) ?? 1
    return max(1, Int((Double(base) * scale).rounded()))
}
