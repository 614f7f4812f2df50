#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small non-recursive mutex over `pthread_mutex_t`, shareable by copying.
///
/// An object that owns its lock uses ``InlineLock`` instead, which needs no allocation and
/// never hands a contended lock to a sleeping waiter; this one is for a lock that several
/// objects share (copies share the mutex) and for seldom-taken locks outside the hot paths.
///
/// The mutex lives in the tail of one heap object (a `ManagedBuffer`), so its address never
/// moves, which pthreads requires, and a lock costs one allocation rather than two (an object
/// and a separate mutex).
///
/// Rule for every caller in this package: never call user code, Foundation's `didChangeValue`
/// or another object's lock-taking method while holding one of these, except for the
/// nestings the lock table of Documentation/Internals.md lists.
///
/// `public` rather than `package` (this module is no product, so nothing outside the package
/// links it): this toolchain inlines `@inlinable package` methods only within their own
/// module, and every lock taken on a hot path would otherwise be an out-of-line generic call.
public struct Lock: @unchecked Sendable {
    // @unchecked: the only state is the pthread mutex, which is itself the synchronisation.
    @usableFromInline final class Storage: ManagedBuffer<Void, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    @usableFromInline let storage: Storage

    public init() {
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in }, to: Storage.self)
        let status = storage.withUnsafeMutablePointerToElements { mutex -> Int32 in
            mutex.initialize(to: pthread_mutex_t())
            return pthread_mutex_init(mutex, nil)
        }
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    @inlinable @inline(__always)
    var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        storage.withUnsafeMutablePointerToElements { $0 }
    }

    @inlinable @inline(__always)
    public func lock() {
        pthread_mutex_lock(mutex)
        #if DEBUG
        HeldLocks.enter(.mutex)
        #endif
    }

    @inlinable @inline(__always)
    public func unlock() {
        #if DEBUG
        HeldLocks.leave(.mutex)
        #endif
        pthread_mutex_unlock(mutex)
    }

    @inlinable @inline(__always)
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        #if DEBUG
        HeldLocks.enter(.mutex)
        defer { HeldLocks.leave(.mutex) }
        #endif
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
public final class LockedValue<Value> {
    @usableFromInline let lock = Lock()
    @usableFromInline var value: Value

    public init(_ value: Value) { self.value = value }

    @inlinable @inline(__always)
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}

// @unchecked: `value` is only read or written inside `withLock`, under `lock`; the box is
// Sendable only when what it guards may cross threads.
extension LockedValue: @unchecked Sendable where Value: Sendable {}
