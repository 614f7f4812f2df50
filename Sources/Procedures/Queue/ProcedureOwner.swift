import Foundation
import ProceduresSupport

/// What a procedure belongs to while it is enqueued: a ``ProcedureQueue`` or a
/// ``GroupProcedure`` (whose children need no Foundation queue). The procedure asks its owner
/// for a slot when it is ready (through the owner's scheduler), asks it whether that scheduler
/// may be suspended before checking its conditions, hands it what it produces,
/// answers it for ``ProcedureQueue/current`` and tells it when it finishes; the wait-for
/// graph reads its procedures. Nothing else calls the owner.
protocol ProcedureOwner: AnyObject, Sendable {
    /// Starts the owner's ready procedures within its width.
    var scheduler: ProcedureScheduler { get }

    /// True if its scheduler may be suspended (``ProcedureScheduler/mayBeSuspended``): asked
    /// of a borrowed owner, so that a procedure about to check its conditions copies neither
    /// the owner nor its scheduler, both shared with the threads running its siblings. Each
    /// owner answers from its stored scheduler: a default reading ``scheduler`` copies it.
    var schedulerMayBeSuspended: Bool { get }

    /// Adds an operation that one of the owner's procedures produced (or that a condition
    /// of one of them needs): it belongs to the same owner.
    func addProduced(_ operation: Operation)

    /// One of the owner's procedures begins finishing (its will-finish hooks have run).
    func procedureWillFinish(_ procedure: Procedure, errors: [any Error])

    /// One of the owner's procedures has finished and its did-finish hooks have run.
    func procedureDidFinish(_ procedure: Procedure, errors: [any Error])

    /// Its procedures that have not finished (for the wait-for graph, which looks among them
    /// for the slot holders that wait).
    var ownedProcedures: [Procedure] { get }

    /// The queue that ``ProcedureQueue/current`` answers inside the owner's procedures.
    var queueFacade: ProcedureQueue { get }

    /// How misuse reports name the owner ("a ProcedureQueue" for a queue without a name).
    var nameInMisuseReports: String { get }

    /// Which of the two owners this is (see ``ProcedureOwnerRole``).
    var ownerRole: ProcedureOwnerRole { get }
}

/// What owns a procedure: a queue or a group. The code that treats the two apart (the
/// wait-for graph, instruments, waiting reports, sibling echoes) asks this instead of testing
/// classes.
enum ProcedureOwnerRole {
    case queue(ProcedureQueue)
    case group(GroupProcedure)

    /// The owner if it is a queue.
    var queue: ProcedureQueue? {
        guard case .queue(let queue) = self else { return nil }
        return queue
    }

    /// The owner if it is a group.
    var group: GroupProcedure? {
        guard case .group(let group) = self else { return nil }
        return group
    }
}

/// Which owner's procedure the current thread is running (for ``ProcedureQueue/current``).
enum CurrentOwner {
    final class Slot {
        // Unchecked: one per thread, touched only by its thread.
        @exclusivity(unchecked) var owner: (any ProcedureOwner)?
    }

    static let perThread = PerThread { Slot() }

    /// Runs `body` with `owner` as the current thread's owner, restoring the previous one
    /// after (callbacks nest when a procedure starts another inline).
    @inline(__always)
    static func with<T>(_ owner: (any ProcedureOwner)?, _ body: () -> T) -> T {
        let slot = perThread.current
        let previous = slot.owner
        slot.owner = owner
        defer { slot.owner = previous }
        return body()
    }
}

extension ProcedureOwner {
    /// Claims `procedure` for this owner and, if it is ready at once, hands it to the owner's
    /// scheduler (or begins checking its conditions); reports a procedure that cannot be
    /// adopted. True if it now belongs to this owner.
    func claim(_ procedure: Procedure) -> Bool {
        claim(procedure, handingTo: nil).claimed
    }

    /// As ``claim(_:)``; a procedure ready at once goes to `loop` (the owner's scheduler, whose
    /// drain loop on this thread takes its next step soon: ``ProcedureScheduler/submitToRunningLoop(_:)``)
    /// if it can start now, and then `handed` is true.
    @inline(__always)
    func claim(_ procedure: Procedure, handingTo loop: ProcedureScheduler?) -> (claimed: Bool, handed: Bool) {
        let kind: ProcedureMisuse.Kind
        let what: String
        switch procedure.claim(owner: self) {
        case .claimed(let readiness):
            return (true, procedure.perform(readiness, loopComing: loop))
        case .alreadyInThisQueue:
            (kind, what) = (.addedTwice, "was added twice to the same queue (or group); the second add was ignored.")
        case .inAnotherQueue, .started:
            (kind, what) = (.addedToSecondQueue, "already belongs to another queue or group (or was started by hand); a procedure runs on exactly one queue. The add was ignored; create a new procedure instead.")
        case .finished:
            (kind, what) = (.addedAfterFinishing, "has already finished and cannot run again; the add was ignored. Create a new procedure instead.")
        }
        ProcedureMisuse.report(kind, "\(procedure.displayName) \(what)", subject: procedure)
        return (false, false)
    }

    /// The runner that starts plain `operation` for this owner; nil, reported, for one that is
    /// running or finished already, which corelibs would stop the process for. (One already
    /// in another OperationQueue cannot be detected from outside.)
    func runner(forPlain operation: Operation) -> PlainOperationRunner? {
        guard !operation.isFinished, !operation.isExecuting else {
            ProcedureMisuse.report(
                .addedAfterFinishing,
                "an operation that is already running or finished was added to \(nameInMisuseReports); it was not added.",
                subject: operation)
            return nil
        }
        return PlainOperationRunner(operation)
    }

    /// Reports plain `operation` added to this owner again: a second runner would start it twice.
    func reportSecondAdd(of operation: Operation) {
        ProcedureMisuse.report(
            .addedTwice,
            "an operation was added twice to \(nameInMisuseReports); the second add was ignored.",
            subject: operation)
    }
}
