import Foundation

/// A value behind a lock, for collecting results from callbacks on any thread.
public final class LockedBox<T>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: T
    public init(_ value: T) { stored = value }
    public var value: T { lock.withLock { stored } }
    @discardableResult
    public func mutate<R>(_ body: (inout T) -> R) -> R { lock.withLock { body(&stored) } }
}
