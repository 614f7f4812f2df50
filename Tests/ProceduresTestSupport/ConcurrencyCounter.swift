import Foundation

/// Counts how many callers are inside a region at once and remembers the maximum.
public final class ConcurrencyCounter: @unchecked Sendable {
    // @unchecked: the counts live in a LockedBox.
    private let counts = LockedBox<(current: Int, maximum: Int)>((0, 0))

    public init() {}

    public func enter() {
        counts.mutate {
            $0.current += 1
            $0.maximum = max($0.maximum, $0.current)
        }
    }

    public func leave() { counts.mutate { $0.current -= 1 } }

    public var maximum: Int { counts.value.maximum }
}
