import Foundation

/// Counts how many callers are inside a region at once and remembers the maximum.
final class ConcurrencyCounter: @unchecked Sendable {
    // @unchecked: the counts live in a LockedBox.
    private let counts = LockedBox<(current: Int, maximum: Int)>((0, 0))

    func enter() {
        counts.mutate {
            $0.current += 1
            $0.maximum = max($0.maximum, $0.current)
        }
    }

    func leave() { counts.mutate { $0.current -= 1 } }

    var maximum: Int { counts.value.maximum }
}
