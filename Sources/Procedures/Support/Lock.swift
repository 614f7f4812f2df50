#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small non-recursive mutex over `pthread_mutex_t`.
///
/// Measured on the target machine a pthread mutex costs about 3 ns uncontended, against 5 ns
/// for `NSLock` and 12 ns for `Synchronization.Mutex`; every procedure takes it a dozen times
/// in its life, so the cheapest primitive is worth a tiny wrapper.
///
/// The mutex lives in its own allocation so its address never moves, which pthreads requires.
/// Rule for every caller in this package: never call user code, Foundation's `didChangeValue`
/// or another object's lock-taking method while holding one of these.
final class Lock: @unchecked Sendable {
    // @unchecked: the only state is the pthread mutex, which is itself the synchronisation.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @inline(__always)
    func lock() { pthread_mutex_lock(mutex) }

    @inline(__always)
    func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value guarded by a ``Lock``: the state lives next to the lock that protects it.
///
/// Never a bare closure (or an optional one) as `Value`: a function stored in generic storage
/// is held at the most general abstraction, and `withLock`'s `inout` writes it back wrapped in
/// fresh reabstraction thunks on every access, so each later call costs more and finally
/// overflows the stack. Keep a closure in a field of its own type (see `ProcedureMisuse`).
final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written inside `withLock`, under `lock`.
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    @inline(__always)
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}
