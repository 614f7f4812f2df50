import Foundation
import Synchronization

/// Two closures released at the same moment on two threads of their own, for tests of races.
///
/// Never on the Dispatch pool: each side spins until the other arrives, and spinning on the
/// pool's few threads (two cores here; libdispatch adds about one thread a second) starves the
/// very work the race waits for. One race at a time, so at most two threads spin.
enum ThreadRace {
    /// Runs `first` and `second` on two new threads, each spinning (a bounded while) until
    /// both have arrived, then returns once both have returned. `skew` delays `second` by that
    /// many small steps after the meeting, to sweep the window between the two.
    static func run(skew: Int = 0, _ first: @escaping @Sendable () -> Void, _ second: @escaping @Sendable () -> Void) {
        let meeting = Meeting()
        let done = DispatchGroup()
        for (side, body) in [first, second].enumerated() {
            done.enter()
            Thread {
                meeting.arriveAndSpin()
                if side == 1 { for _ in 0..<skew { meeting.touch() } }
                body()
                done.leave()
            }.start()
        }
        done.wait()
    }

    private final class Meeting: Sendable {
        private let arrived = Atomic<Int>(0)
        private let scratch = Atomic<Int>(0)

        func arriveAndSpin() {
            arrived.add(1, ordering: .acquiringAndReleasing)
            var spins = 0
            while arrived.load(ordering: .acquiring) < 2 && spins < 2_000_000 { spins += 1 }
        }

        /// A little work that the optimiser cannot drop.
        func touch() { scratch.add(1, ordering: .relaxed) }
    }
}
