import Foundation

/// A moment of a procedure's life where a built-in subclass (a group, the runner of a plain
/// operation) must act, whatever a user's overrides of the open methods do. Each moment means
/// the same for any procedure; groups are the main user (see GroupProcedure+Cancellation.swift).
///
/// `Procedure.respond(to:)` is told of each one; a subclass overrides it with a `switch` and
/// passes the moments it does not handle to `super`.
enum BuiltInMoment {
    /// `cancel()` decided a cancel, and the procedure is told right away, on the caller's
    /// thread, even if the cancel hooks must wait for a running callback: work the procedure
    /// owns is cancelled here, so that once `cancel()` returns none of it can start
    /// uncancelled. (Also when cancelled together with others, once all are decided.)
    /// Nothing happens by default.
    case cancelRequested(errors: [any Error])
    /// The cancel is being handled: among the cancel hooks, before the did-cancel hooks, to
    /// pass the cancel on to work the procedure owns. Nothing happens by default.
    case cancelTookEffect(errors: [any Error])
    /// A procedure that was cancelled before `execute()` is started by its queue. By default
    /// it finishes at once; one with work still in flight (a group's children, say) lets that
    /// finish first.
    case startedWhileCancelled
    /// An operation the procedure watches finished: an `.operationFinished` event, posted by
    /// the procedure's own code, so that the handling is serialised with its callbacks.
    /// Nothing happens by default.
    case operationFinished(Operation, errors: [any Error])
    /// `finish()` was called from outside. By default it finishes the procedure; one whose
    /// finishing the framework owns (a group finishes when its last child does) handles it.
    case finishCalledByHand(errors: [any Error])
    /// `addDependency` proposes `operation` (never the procedure itself). Accepted by
    /// default; refused (reported as misuse) for an operation this procedure must not wait
    /// for: one it owns, which waits for it in turn.
    case dependencyProposed(Operation)
}

/// What `Procedure.respond(to:)` answers about a `BuiltInMoment`.
enum BuiltInResponse {
    /// Carry on with the default behaviour of the moment (if it has one).
    case proceed
    /// The subclass did what the moment needs instead (or, for a proposed dependency,
    /// refused it): skip the default.
    case handled
}
