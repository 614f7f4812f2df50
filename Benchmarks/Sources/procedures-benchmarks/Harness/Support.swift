import CHeap
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes the process has allocated with malloc and not freed.
enum Heap {
    /// glibc's `mallinfo2`, summed over all arenas: `uordblks` (in-use heap chunks) plus
    /// `hblkhd` (chunks big enough to get their own mmap, such as a queue's growing arrays).
    static func bytesInUse() -> Int { Int(cheap_bytes_in_use()) }
}

/// A one-shot slot for a value produced on another thread; a semaphore (or the operation's
/// own completion) orders the write before the read.
final class Slot<Value: Sendable>: @unchecked Sendable {
    // @unchecked: written once before `done` is signalled, read only after waiting on it.
    var value: Value?
    let done = DispatchSemaphore(value: 0)

    func fill(_ value: Value) {
        self.value = value
        done.signal()
    }

    func wait() -> Value {
        done.wait()
        return value!
    }
}

/// Signals once `count` calls to `arrive()` have happened.
final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    let reachedZero = DispatchSemaphore(value: 0)

    init(_ count: Int) { remaining = Atomic(count) }

    func arrive() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { reachedZero.signal() }
    }
}

/// Runs async code from the (synchronous) harness. Blocking the benchmark's main thread is
/// fine: the benchmark is not the library, and the task runs on the cooperative pool.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let slot = Slot<T>()
    Task { slot.fill(await body()) }
    return slot.wait()
}

/// Drops the operations of a dependency chain without freeing it recursively.
///
/// Each operation holds its predecessor strongly (Foundation's and ours alike), so whoever
/// drops the last reference to a link frees every link below it that nothing else holds,
/// recursively, a few stack frames per link: 100,000 links overflow a dispatch worker's
/// stack (seen here, in corelibs' own `BlockOperation` chain). A worker can still hold a
/// finished operation for a moment (the block that started it), so drop the links tail
/// first and only once the array holds the link alone: each then frees on its own.
func releaseChain<T: AnyObject>(_ operations: inout [T]) {
    let deadline = Stopwatch.now() + 5_000_000_000
    while !operations.isEmpty {
        while !isKnownUniquelyReferenced(&operations[operations.count - 1]) {
            if Stopwatch.now() > deadline {
                // Something keeps the chain alive for good; leave it to whoever does.
                FileHandle.standardError.write(Data("note: a chain link stayed referenced; not waiting for it\n".utf8))
                return
            }
            usleep(50)
        }
        operations.removeLast()
    }
}
