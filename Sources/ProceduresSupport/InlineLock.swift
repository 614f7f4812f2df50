import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A mutex stored inside the object it guards: no allocation of its own.
///
/// Every procedure has one, so what a ``Lock`` costs on top of the lock itself (a heap object
/// with a pthread mutex in it: 64 bytes, an allocation, `pthread_mutex_init` and `_destroy`)
/// would be paid a million times for a million procedures. This one is a 4-byte word.
///
/// On Linux it is a futex word of our own rather than the standard library's `Mutex`, which
/// there is a priority-inheritance futex: its contended unlock hands the lock to the waiter
/// the kernel picks, so under steady contention the lock belongs, most of the time, to a
/// thread that is not yet running, every other thread queues behind it, and throughput falls
/// to the rate of context switches (a lock convoy). A procedure's lock is seldom contended,
/// but a group's is taken by each of its children, from every thread they finish on, and
/// convoys once Dispatch has lent the process more threads than cores (Internals.md,
/// "Performance notes"). Here, as in glibc's own mutexes, unlocking wakes one
/// sleeper and lets it compete: a thread that is running takes the lock first. On other
/// platforms it is the standard library's `Mutex` (`os_unfair_lock`, which does not hand
/// off).
///
/// It cannot be copied, so it cannot be shared: an object that must use another's lock is
/// handed that object instead. It is not recursive: taking it again on the thread that holds
/// it waits forever. The rule of ``Lock`` holds: never call user code, Foundation's
/// `didChangeValue` or another object's lock-taking method while holding it.
public struct InlineLock: ~Copyable, Sendable {
    #if os(Linux) && (arch(x86_64) || arch(arm64))
    /// 0: free; 1: held; 2: held, and a thread may be asleep waiting for it.
    @usableFromInline let word = Atomic<UInt32>(0)

    public init() {}

    /// Runs `body` holding the lock.
    @inlinable @inline(__always)
    public func withLock<T>(_ body: () -> T) -> T {
        if !word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            lockContended()
        }
        #if DEBUG
        HeldLocks.enter(.inline)
        #endif
        let result = body()
        #if DEBUG
        HeldLocks.leave(.inline)
        #endif
        if word.exchange(0, ordering: .releasing) == 2 { wakeOne() }
        return result
    }

    /// Spins briefly (a critical section here is a few field writes), then sleeps until an
    /// unlock wakes it, marking the word so that the unlock knows to. A woken thread takes
    /// the lock only if nobody has meanwhile: it competes, it is not handed the lock.
    @usableFromInline func lockContended() {
        for _ in 0..<Self.spins {
            if word.load(ordering: .relaxed) == 0,
                word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
            {
                return
            }
        }
        // From here the word stays 2 while this thread may sleep, so every unlock wakes one.
        while word.exchange(2, ordering: .acquiring) != 0 {
            withUnsafePointer(to: word) { Futex.wait(UnsafeRawPointer($0), whileEqualTo: 2) }
        }
    }

    // The pointer is the word's own address, which the kernel keys the sleepers by: an
    // `Atomic` cannot be copied, so borrowing it never makes a temporary.
    @usableFromInline func wakeOne() {
        withUnsafePointer(to: word) { Futex.wakeOne(UnsafeRawPointer($0)) }
    }

    /// About as long as a short critical section on another core; glibc's adaptive mutex
    /// spins up to 100 times.
    @usableFromInline static var spins: Int { 100 }
    #else
    @usableFromInline let mutex = Mutex<Void>(())

    public init() {}

    /// Runs `body` holding the lock.
    @inlinable @inline(__always)
    public func withLock<T>(_ body: () -> T) -> T {
        mutex.withLock { _ in
            #if DEBUG
            HeldLocks.enter(.inline)
            defer { HeldLocks.leave(.inline) }
            #endif
            // `Mutex` asks for a `sending` result so that nothing leaves aliasing the value it
            // guards; this one guards `Void` (the state lives in the owning object, which does
            // its own `Sendable` reasoning), so there is nothing to alias.
            nonisolated(unsafe) let result = body()
            return result
        }
    }
    #endif
}

#if os(Linux) && (arch(x86_64) || arch(arm64))
/// The two futex operations the lock needs. `syscall` is variadic, which Swift cannot call,
/// so it is looked up once with the fixed arguments `futex` reads (a variadic call passes
/// integer and pointer arguments in the same registers on x86-64 and ARM64 Linux). Where it
/// cannot be looked up (a fully static binary has no dynamic symbols), a waiter yields its
/// core instead of sleeping: slower under contention, never wrong, since a waiter looks at
/// the word again after every wait.
@usableFromInline enum Futex {
    private typealias Call = @convention(c) (Int, UnsafeRawPointer, Int32, UInt32, UnsafeRawPointer?) -> Int

    private static let call: Call? = CLibrarySymbol.lookUp("syscall")

    /// `SYS_futex`, which the C library declares through macros Swift does not import.
    #if arch(x86_64)
    private static let number = 202
    #elseif arch(arm64)
    private static let number = 98
    #endif
    private static let waitPrivate: Int32 = 128  // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
    private static let wakePrivate: Int32 = 129  // FUTEX_WAKE | FUTEX_PRIVATE_FLAG

    /// Sleeps while the word at `address` holds `value` (returns at once if it does not, and
    /// may return spuriously: the caller looks again).
    @usableFromInline static func wait(_ address: UnsafeRawPointer, whileEqualTo value: UInt32) {
        guard let call, !yieldsInstead.load(ordering: .relaxed) else {
            sched_yield()
            return
        }
        _ = call(Self.number, address, waitPrivate, value, nil)
    }

    /// For tests: waiters yield as where `syscall` cannot be looked up. Only waiting changes
    /// (unlocking still wakes), so turning it on or off never strands a thread asleep.
    static let yieldsInstead = Atomic<Bool>(false)

    @usableFromInline static func wakeOne(_ address: UnsafeRawPointer) {
        _ = call?(Self.number, address, wakePrivate, 1, nil)
    }
}
#endif
