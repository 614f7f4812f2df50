/// Debug builds: stops the process (with a message naming the call-out, where it is made and
/// the locks held) if the calling thread holds a library lock. Called right before every call
/// out of the library to user code, to Foundation's `didChangeValue` and to the other
/// call-outs the lock rule names (Documentation/Internals.md, "Locks: which guards what").
/// Release builds compile it to nothing: `what` is never evaluated.
// Public, not package: Swift 6.3.1 does not find an inlinable package function from the other
// modules when the package is built in release as a dependency (Benchmarks/, Integrations/).
@inlinable @inline(__always)
public func assertNoLibraryLockHeld(
    _ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) {
    #if DEBUG
    HeldLocks.check(what, file: file, line: line)
    #endif
}

#if DEBUG
/// The lock rule's debug check, for tests: what it counts, and a hook that reports a
/// violation instead of stopping the process.
package enum LockRule {
    /// How many library locks this thread holds now.
    package static var heldLockCount: Int {
        HeldLocks.Kind.allCases.reduce(0) { $0 + HeldLocks.count($1) }
    }

    /// Runs `body` with this thread's lock-rule violations handed to `report` instead of
    /// stopping the process.
    package static func reportingViolations<T>(to report: @escaping (String) -> Void, during body: () throws -> T) rethrows -> T {
        let reporter = HeldLocks.reporters.current
        let previous = reporter.report
        reporter.report = report
        defer { reporter.report = previous }
        return try body()
    }
}
#endif
