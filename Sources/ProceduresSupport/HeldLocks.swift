#if DEBUG
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Debug builds only: how many library locks (``InlineLock``, ``Lock`` and so ``LockedValue``,
/// a stripe of ``StripedLock``) the calling thread holds, by kind, so that
/// `assertNoLibraryLockHeld(_:)` can tell a call-out made under one.
///
/// Why plain pthread storage: the counts live in the thread-specific pointer itself (16 bits
/// per kind), so keeping them is a `pthread_getspecific` and a `pthread_setspecific` per lock
/// and unlock, with no allocation, no reference counting and no destructor. Release builds
/// compile none of this.
@usableFromInline enum HeldLocks {
    @usableFromInline enum Kind: Int, CaseIterable, Sendable {
        case inline = 0, mutex = 1, stripe = 2

        var name: String {
            switch self {
            case .inline: return "InlineLock"
            case .mutex: return "Lock (or LockedValue)"
            case .stripe: return "StripedLock stripe"
            }
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    private static var word: UInt {
        UInt(bitPattern: pthread_getspecific(key))
    }

    private static func unit(_ kind: Kind) -> UInt { 1 << UInt(kind.rawValue * 16) }

    /// This thread took a lock of `kind`. A second stripe is reported: the rule forbids one,
    /// since another object's stripe may be the one already held (a thread that took that
    /// one hangs before it gets here, so only the luckier takes are seen).
    @usableFromInline static func enter(_ kind: Kind) {
        let word = word
        if kind == .stripe, word & (0xFFFF * unit(.stripe)) != 0 {
            report("lock rule broken: a StripedLock stripe is taken while this thread holds one; never take a "
                + "second stripe, not even of another object (Documentation/Internals.md, \"Locks: which guards what\")")
        }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: word &+ unit(kind)))
    }

    /// This thread let go of a lock of `kind`.
    @usableFromInline static func leave(_ kind: Kind) {
        let word = word
        precondition(word & (0xFFFF * unit(kind)) != 0, "a \(kind.name) was unlocked on a thread that does not hold one")
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: word &- unit(kind)))
    }

    /// How many locks of `kind` this thread holds.
    static func count(_ kind: Kind) -> Int {
        Int((word / unit(kind)) & 0xFFFF)
    }

    /// Where a thread's violations go instead of stopping the process: for tests, which must
    /// see the check fire without crashing. Per thread, so a test never hides another
    /// thread's violation.
    final class Reporter {
        var report: ((String) -> Void)?
    }

    static let reporters = PerThread { Reporter() }

    /// The lock rule's check (see `assertNoLibraryLockHeld(_:file:line:)`).
    @usableFromInline static func check(_ what: () -> String, file: StaticString, line: UInt) {
        guard let held = summary else { return }
        let message = "lock rule broken at \(file):\(line): \(what()) is called while this thread holds \(held); "
            + "no library lock may be held while calling user code, Foundation's didChangeValue or another object's "
            + "lock-taking code (Documentation/Internals.md, \"Locks: which guards what\")"
        report(message)
    }

    /// To the test's reporter, if this thread has one; else stops the process.
    private static func report(_ message: String) {
        if let report = reporters.current.report {
            report(message)
        } else {
            assertionFailure(message)
        }
    }

    /// "1 InlineLock and 1 Lock (or LockedValue)", or nil if this thread holds none.
    static var summary: String? {
        guard word != 0 else { return nil }
        return Kind.allCases.compactMap { kind -> String? in
            let count = count(kind)
            return count == 0 ? nil : "\(count) \(kind.name)"
        }.joined(separator: " and ")
    }
}
#endif
