import Synchronization

/// Two threads meet here and leave together (spinning, with a bounded wait).
final class Rendezvous: @unchecked Sendable {
    private let arrived = Atomic<Int>(0)
    private let scratch = Atomic<Int>(0)

    func arriveAndSpin() {
        arrived.add(1, ordering: .acquiringAndReleasing)
        var spins = 0
        while arrived.load(ordering: .acquiring) < 2 && spins < 2_000_000 { spins += 1 }
    }

    /// A little work that the optimiser cannot drop, to skew one side.
    func touch() { scratch.add(1, ordering: .relaxed) }
}
