import Foundation

/// One unit of user-visible work in a procedure's life.
///
/// Every callback a procedure makes (`execute()`, the `procedure…` overrides, observers) runs
/// inside the handling of one of these events, and a procedure handles its events one at a
/// time, in the order they were queued. That is the whole of the "callbacks never overlap"
/// guarantee: see ``EventMailbox``.
///
/// Every payload is a reference or a closure: a payload such as an existential would make
/// the enum address-only, and each of the several copies an event goes through would then
/// call the runtime's value witnesses.
enum ProcedureEvent {
    /// Will-cancel hooks, the cancelled flag, then did-cancel hooks.
    case cancel(errors: [any Error])
    /// Will-execute observers, then `execute()` at once on this thread; or, if a cancel or
    /// finish requested meanwhile (by a will-execute observer or another thread) waits,
    /// `execute` is queued behind it, so that it is handled first.
    case start
    /// `execute()` and did-execute observers, unless the procedure was cancelled or finished.
    case execute
    /// Will-finish hooks, the finished state and its notifications, then did-finish hooks.
    case finish
    /// Will-add observers, adding the operation to the queue, did-add observers.
    case produce(Operation)
    /// An operation the procedure watches finished (a group gets one per child: a case of its
    /// own, as a closure would cost an allocation each).
    case operationFinished(Operation, errors: [any Error])
    /// Other framework work that must be serialised with the procedure's callbacks (the late
    /// did-finish of an observer added after the procedure finished, say).
    case perform(@Sendable () -> Void)
}

/// A FIFO of pending events plus the "someone is handling events" flag.
///
/// Whoever queues an event while nobody is handling events becomes the handler and drains the
/// mailbox on its own thread; everybody else just queues and returns. So no thread ever waits
/// for another, and a callback that triggers another event (a `cancel()` inside `execute()`)
/// has it handled right after the current callback returns.
struct EventMailbox {
    // Most procedures have at most one event waiting at a time (execute, then finish): one
    // inline slot holds it without allocating; the array takes the rest, in order.
    private var first: ProcedureEvent?
    // Kept beside `first` so that the hot checks read a Bool instead of asking the enum's
    // value witness for its tag (this enum's payloads make that an out-of-line call).
    private var hasFirst = false
    private var rest: [ProcedureEvent] = []
    private var head = 0
    private(set) var isDraining = false
    /// A loop start is owed before the next event (``oweLoopStart()``).
    private var loopStartOwed = false

    private var isEmpty: Bool { !hasFirst && head == rest.count }

    /// True if events wait behind the one being handled.
    var hasWaitingEvents: Bool { !isEmpty }

    private mutating func append(_ event: ProcedureEvent) {
        // The slot may only be used when nothing else waits, or the order would break.
        if isEmpty {
            first = event
            hasFirst = true
        } else {
            rest.append(event)
        }
    }

    /// Queues `event`; returns true if the caller must now drain (it became the handler).
    mutating func post(_ event: ProcedureEvent) -> Bool {
        append(event)
        if isDraining { return false }
        isDraining = true
        return true
    }

    /// Claims the handler role for an event the caller will handle directly, without
    /// queueing it. Returns false (and queues it) if someone else is handling events.
    mutating func claimOrPost(_ event: ProcedureEvent) -> Bool {
        if isDraining || !isEmpty {
            append(event)
            return false
        }
        isDraining = true
        return true
    }

    /// The handler (a group) handed a child to its scheduler's drain loop on this thread, which
    /// takes it once the handler returns to it: the next event it takes, if one waits, comes
    /// with `loopStartOwed`, so that a loop is started for the child before that event's user
    /// code can hold the thread. If none waits, nothing is owed.
    mutating func oweLoopStart() {
        loopStartOwed = true
    }

    /// The next event, and whether a loop start is owed before it is handled
    /// (``oweLoopStart()``); nil after giving up the handler role (the mailbox is empty).
    mutating func next() -> (event: ProcedureEvent, loopStartOwed: Bool)? {
        let owed = loopStartOwed
        loopStartOwed = false
        guard let event = nextEvent() else { return nil }
        return (event, owed)
    }

    private mutating func nextEvent() -> ProcedureEvent? {
        if hasFirst {
            hasFirst = false
            return first.take()
        }
        guard head < rest.count else {
            isDraining = false
            if !rest.isEmpty { rest.removeAll(keepingCapacity: rest.capacity <= 16) }
            head = 0
            return nil
        }
        let event = rest[head]
        head += 1
        return event
    }
}
