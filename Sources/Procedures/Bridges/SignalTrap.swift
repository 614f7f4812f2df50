import Dispatch
import Foundation
import ProceduresSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Signals handed to a block instead of their default action, until ``remove()`` is called;
/// made by ``ProcedureQueue/cancelAllOperations(onSignals:)``.
///
/// Set up as libdispatch requires: the signal's default action is replaced (by "ignore") so
/// that it does not stop the process, and a `DispatchSource` for the signal runs the block on
/// a dispatch queue, never in a signal handler. ``remove()`` cancels the sources and, once no
/// trap holds a signal any more, restores the disposition it had before the first one.
public final class SignalTrap: @unchecked Sendable {
    // @unchecked: `sources` and `isRemoved` are guarded by `lock`; `signals` and `armed` are
    // immutable (a DispatchGroup is thread-safe).

    /// The signals it traps (those that can be caught, once each).
    public let signals: [Int32]
    private let lock = Lock()
    private var sources: [any DispatchSourceSignal]
    private var isRemoved = false
    private let armed = DispatchGroup()

    init(signals requested: [Int32], action: @escaping @Sendable () -> Void) {
        var signals: [Int32] = []
        for signal in requested where !signals.contains(signal) {
            guard signal != SIGKILL, signal != SIGSTOP else {
                ProcedureMisuse.report(
                    .uncatchableSignal,
                    "signal \(signal) (SIGKILL or SIGSTOP) cannot be caught; the trap leaves it out.",
                    subject: nil)
                continue
            }
            signals.append(signal)
        }
        self.signals = signals
        sources = []
        for signal in signals {
            SignalDispositions.shared.take(signal)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler(handler: action)
            armed.enter()
            source.setRegistrationHandler { [armed] in armed.leave() }
            sources.append(source)
            source.resume()
        }
        SignalDispositions.shared.keep(self)
    }

    /// Stops trapping: the signals get back the disposition they had before the first trap
    /// that holds them (once no other trap does). Calling it again does nothing.
    public func remove() {
        let removed = lock.withLock { () -> [any DispatchSourceSignal]? in
            guard !isRemoved else { return nil }
            isRemoved = true
            defer { sources = [] }
            return sources
        }
        guard let removed else { return }
        for source in removed { source.cancel() }
        for signal in signals { SignalDispositions.shared.release(signal) }
        SignalDispositions.shared.forget(self)
    }

    /// Runs `body` once every signal's source is registered with the system, so that a signal
    /// sent from then on is seen (for tests, which send one at once).
    package func whenArmed(_ body: @escaping @Sendable () -> Void) {
        armed.notify(queue: .global(), execute: body)
    }
}

/// The process-wide side of signal traps: how many traps hold each signal, its disposition
/// before the first, and the traps themselves (kept until removed, so that a trap the caller
/// does not keep goes on working).
private final class SignalDispositions: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`, which is never held while calling out
    // (only `sigaction` is called under it).
    static let shared = SignalDispositions()

    private struct Held {
        var traps: Int
        var previous: sigaction
    }

    private let lock = Lock()
    private var held: [Int32: Held] = [:]
    /// On Linux libdispatch delivers a signal through a handler of its own, which it installs
    /// only with the first source for that signal in the process's life: once the previous
    /// disposition is restored, a later source would need it back. It is kept here (what the
    /// disposition was when the last trap let go, if a handler other than the previous one).
    private var dispatchHandlers: [Int32: sigaction] = [:]
    private var traps: [ObjectIdentifier: SignalTrap] = [:]

    func take(_ signal: Int32) {
        lock.withLock {
            if held[signal] != nil {
                held[signal]?.traps += 1
                return
            }
            var previous = sigaction()
            sigaction(signal, nil, &previous)
            // The default action (stop the process, usually) must not happen: ignore the
            // signal, which the source still sees. A disposition the program chose (a handler
            // of its own, or "ignore") is left as it is.
            if Self.handlerAddress(previous) == Self.handlerAddress(of: SIG_DFL) {
                var replacement = dispatchHandlers[signal] ?? Self.ignoring()
                sigaction(signal, &replacement, nil)
            }
            held[signal] = Held(traps: 1, previous: previous)
        }
    }

    func release(_ signal: Int32) {
        lock.withLock {
            guard var entry = held[signal] else { return }
            entry.traps -= 1
            guard entry.traps == 0 else {
                held[signal] = entry
                return
            }
            held[signal] = nil
            var current = sigaction()
            sigaction(signal, nil, &current)
            let address = Self.handlerAddress(current)
            if address != Self.handlerAddress(entry.previous), address != Self.handlerAddress(of: SIG_DFL),
                address != Self.handlerAddress(of: SIG_IGN)
            {
                dispatchHandlers[signal] = current
            }
            sigaction(signal, &entry.previous, nil)
        }
    }

    func keep(_ trap: SignalTrap) {
        lock.withLock { traps[ObjectIdentifier(trap)] = trap }
    }

    func forget(_ trap: SignalTrap) {
        let released = lock.withLock { traps.removeValue(forKey: ObjectIdentifier(trap)) }
        _ = consume released  // released outside the lock
    }

    private static func ignoring() -> sigaction {
        var action = sigaction()
        #if canImport(Darwin)
            action.__sigaction_u.__sa_handler = SIG_IGN
        #else
            action.__sigaction_handler.sa_handler = SIG_IGN
        #endif
        sigemptyset(&action.sa_mask)
        return action
    }

    private static func handlerAddress(_ action: sigaction) -> UInt {
        #if canImport(Darwin)
            handlerAddress(of: action.__sigaction_u.__sa_handler)
        #else
            handlerAddress(of: action.__sigaction_handler.sa_handler)
        #endif
    }

    private static func handlerAddress(of handler: (@convention(c) (Int32) -> Void)?) -> UInt {
        guard let handler else { return 0 }
        return UInt(bitPattern: unsafeBitCast(handler, to: Int.self))
    }
}
