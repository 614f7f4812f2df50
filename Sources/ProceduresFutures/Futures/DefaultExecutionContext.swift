import Foundation
import ProceduresSupport

/// The context used when a handler or combinator is given `context: nil` (the default).
///
/// Out of the box this is `DispatchQueue.global()`: it works in a plain command-line process
/// on Linux, unlike the main queue, which only runs if something services it. Tests (or a
/// server that wants no hops) can make every closure run inline:
///
/// ```swift
/// DefaultExecutionContext.current = .immediate
/// ```
///
/// Changing it affects closures registered afterwards, process-wide; set it once at start-up
/// or in a test's `setUp` and restore it in `tearDown`. Reading it costs one lock.
public enum DefaultExecutionContext {
    private static let storage = LockedValue<any ExecutionContext>(DispatchQueue.global())

    /// The context that `context: nil` resolves to.
    public static var current: any ExecutionContext {
        get { storage.withLock { $0 } }
        set {
            var old: any ExecutionContext = newValue
            storage.withLock { swap(&$0, &old) }
            _ = old  // the previous context is released after unlocking
        }
    }

    /// Restores the out-of-the-box default, `DispatchQueue.global()`.
    public static func reset() {
        current = DispatchQueue.global()
    }
}
