#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed table of mutexes shared by every future, promise and stream, picked by address.
///
/// Why: a future lives for microseconds and a map costs well under one; a mutex of its own
/// would add two allocations (the `Lock` object and the pthread mutex) to the one the future
/// needs. Striping keeps a future at a single allocation. Unrelated objects that share a stripe
/// only contend briefly, because the rule below keeps every critical section a few stores long.
///
/// Rule (stronger than for `Lock`): never take a second stripe while holding one, not even of
/// another object, since two objects may share a stripe and the mutex is not recursive. So no
/// user code, no other future's method, no deallocation of user objects inside `withLock`.
///
/// `public` rather than `package` for the reason given on ``Lock``: callers in other modules
/// of this package need it inlined.
public enum StripedLock {
    @usableFromInline package static let stripeCount = 64  // a power of two
    @usableFromInline package static let stride = 64       // one cache line per mutex, to avoid false sharing

    @usableFromInline package struct Table: @unchecked Sendable {
        // @unchecked: the memory is written once, at initialisation; after that only the
        // pthread functions touch it, and they are the synchronisation.
        @usableFromInline package let base: UnsafeMutableRawPointer
    }

    @usableFromInline package static let table: Table = {
        precondition(MemoryLayout<pthread_mutex_t>.size <= stride)
        let base = UnsafeMutableRawPointer.allocate(byteCount: stripeCount * stride, alignment: stride)
        for index in 0..<stripeCount {
            let mutex = (base + index * stride).bindMemory(to: pthread_mutex_t.self, capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
        return Table(base: base)
    }()

    @inline(__always)
    @inlinable public static func mutex(for object: AnyObject) -> UnsafeMutablePointer<pthread_mutex_t> {
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        // Fibonacci hashing: objects are 16-byte aligned and often allocated back to back.
        let index = Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 58)
        return (table.base + index * stride).assumingMemoryBound(to: pthread_mutex_t.self)
    }

    /// Runs `body` holding the stripe of `object`. `body` must obey the rule above.
    @inline(__always)
    @inlinable public static func withLock<R>(for object: AnyObject, _ body: () throws -> R) rethrows -> R {
        let mutex = mutex(for: object)
        pthread_mutex_lock(mutex)
        #if DEBUG
        HeldLocks.enter(.stripe)
        defer { HeldLocks.leave(.stripe) }
        #endif
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
