import Foundation

/// One unit of user-visible work in a procedure's life.
///
/// Every callback a procedure makes (`execute()`, the `procedure…` overrides, observers) runs
/// inside the handling of one of these events, and a procedure handles its events one at a
/// time, in the order they were queued. That is the whole of the "callbacks never overlap"
/// guarantee: see ``EventMailbox``.
enum ProcedureEvent {
    /// Will-cancel hooks, the cancelled flag, then did-cancel hooks.
    case cancel(errors: [any Error])
    /// Will-execute observers; then `execute` is queued (so a cancel or finish requested by a
    /// will-execute observer is handled first).
    case start
    /// `execute()` and did-execute observers, unless the procedure was cancelled or finished.
    case execute
    /// Will-finish hooks, the finished state and its notifications, then did-finish hooks.
    case finish
    /// Will-add observers, adding the operation to the queue, did-add observers.
    case produce(Operation)
    /// Late did-finish delivery to an observer added after the procedure finished.
    case lateDidFinish(any ProcedureObserver)
    /// Framework work that must be serialised with the procedure's callbacks (a group's
    /// child-finished handling, for example).
    case perform(@Sendable () -> Void)
}

/// A FIFO of pending events plus the "someone is handling events" flag.
///
/// Whoever queues an event while nobody is handling events becomes the handler and drains the
/// mailbox on its own thread; everybody else just queues and returns. So no thread ever waits
/// for another, and a callback that triggers another event (a `cancel()` inside `execute()`)
/// has it handled right after the current callback returns.
struct EventMailbox {
    private var events: [ProcedureEvent] = []
    private var head = 0
    private(set) var isDraining = false

    /// Queues `event`; returns true if the caller must now drain (it became the handler).
    mutating func post(_ event: ProcedureEvent) -> Bool {
        events.append(event)
        if isDraining { return false }
        isDraining = true
        return true
    }

    /// Claims the handler role for an event the caller will handle directly, without
    /// queueing it. Returns false (and queues it) if someone else is handling events.
    mutating func claimOrPost(_ event: ProcedureEvent) -> Bool {
        if isDraining || head < events.count {
            events.append(event)
            return false
        }
        isDraining = true
        return true
    }

    /// The next event, or nil after giving up the handler role (the mailbox is empty).
    mutating func next() -> ProcedureEvent? {
        guard head < events.count else {
            isDraining = false
            if !events.isEmpty { events.removeAll(keepingCapacity: events.capacity <= 16) }
            head = 0
            return nil
        }
        let event = events[head]
        head += 1
        return event
    }
}
