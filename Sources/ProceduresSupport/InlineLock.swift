import Synchronization

/// A mutex stored inside the object it guards: no allocation of its own.
///
/// Every procedure has one, so what a ``Lock`` costs on top of the lock itself (a heap object
/// with a pthread mutex in it: 64 bytes, an allocation, `pthread_mutex_init` and `_destroy`)
/// was paid a million times for a million procedures. This one is the standard library's
/// `Mutex` (a 4-byte futex word on Linux, an `os_unfair_lock` on Apple platforms), measured
/// here at about 5 ns a lock and unlock against 6.3 ns for ``Lock``.
///
/// On Linux the `Mutex` is a priority-inheritance futex, whose contended unlock hands the lock
/// to a sleeping waiter: fine for a lock that is seldom contended (a procedure's), a risk of a
/// lock convoy for one that many threads take all the time. Those (a queue's, a scheduler's,
/// a group's, the clock's, the exclusivity manager's…) are ``Lock/contended()``.
///
/// It cannot be copied, so it cannot be shared: an object that must use another's lock is
/// handed that object instead. The rule of ``Lock`` holds: never call user code,
/// Foundation's `didChangeValue` or another object's lock-taking method while holding it.
public struct InlineLock: ~Copyable, Sendable {
    @usableFromInline let mutex = Mutex<Void>(())
    /// Written (release) before every unlock and read (acquire) after every lock, for
    /// ThreadSanitizer only: when `Mutex` is contended it waits and takes over inside the
    /// uninstrumented standard library, so TSan would see no order between two critical
    /// sections and report races in every program that uses the library. A release store and
    /// an acquire load are plain moves on x86 and `stlr`/`ldar` on ARM64: nearly free.
    @usableFromInline let order = Atomic<UInt32>(0)

    public init() {}

    /// Runs `body` holding the lock.
    @inlinable @inline(__always)
    public func withLock<T>(_ body: () -> T) -> T {
        mutex.withLock { _ in
            // `Mutex` asks for a `sending` result so that nothing leaves aliasing the value it
            // guards; this one guards `Void` (the state lives in the owning object, which does
            // its own `Sendable` reasoning), so there is nothing to alias. Returning through an
            // optional local instead cost a procedure about 1,300 instructions in outlined
            // copies.
            _ = order.load(ordering: .acquiring)
            nonisolated(unsafe) let result = body()
            order.store(0, ordering: .releasing)
            return result
        }
    }
}
