import Foundation

extension GroupProcedure {
    /// What a group's `groupLock` guards, as one value. Its events return what the group does
    /// once it has let go of the lock.
    ///
    /// Whether the group was cancelled is not here: that is the group's own cancellation, as a
    /// procedure (read under its own lock, never under this one).
    struct State {
        /// Where the group is; moves only forward.
        enum Phase {
            /// Not started: the private queue holds the children back.
            case pending
            /// Started: children run; finishes when the last one has finished. It holds a slot
            /// of `ownerScheduler` (nil: started by hand), counted there as a waiting holder.
            case running(ownerScheduler: ProcedureScheduler?)
            /// The last child finished and the group's finish is decided: no more children.
            case finishing
        }

        private(set) var phase = Phase.pending
        /// The user's `isSuspended`.
        var userSuspended = false
        var children: [Operation] = []
        var unfinishedChildren = 0
        /// Errors of children that failed on their own (not echoes of the group's cancel).
        var childErrors: [any Error] = []
        /// True while `init` adopts the children it was given; they are reported to the
        /// will-add and did-add observers when the group starts them.
        var adoptingInitialChildren = false
        /// How many of the first `children` were given to `init` (children are only ever
        /// removed as they are refused, from the end, during their own adoption), until the
        /// group starts them and reports them.
        var initialChildCount = 0
        /// The runners of the plain-`Operation` children that have not finished, by child.
        var runners: [ObjectIdentifier: PlainOperationRunner] = [:]
        /// Counts suspension decisions, so the scheduler applies only the latest of two
        /// decided on different threads.
        var suspensionDecision = 0
        /// Made on first use (see `queueFacade`).
        var facade: GroupQueue?
        /// True for a group whose `finishesAutomatically` is false: it finishes only once
        /// its subclass called `finish`, whose errors are then here.
        var awaitsFinishCall = false
        var finishCallErrors: [any Error]?
        /// Made on the first echo of a sibling's failure (see GroupProcedure+SiblingEchoes.swift).
        var echoes: SiblingEchoes?

        var hasStarted: Bool {
            if case .pending = phase { return false }
            return true
        }

        var isFinishing: Bool {
            if case .finishing = phase { return true }
            return false
        }

        // MARK: - Suspension

        /// Whether the private queue runs.
        enum QueueSuspension: Equatable {
            case suspended
            case resumed
            /// Suspended, unless the group was cancelled (its children must then finish).
            case suspendedUnlessCancelled
        }

        /// The private queue runs only once the group has started, and not while the user
        /// suspends it, unless the group was cancelled.
        var queueSuspension: QueueSuspension {
            switch phase {
            case .pending: return .suspended
            case .running, .finishing: return userSuspended ? .suspendedUnlessCancelled : .resumed
            }
        }

        /// A suspension is to be applied: its number (only the latest applies) and what it is.
        mutating func decideSuspension() -> (decision: Int, suspension: QueueSuspension) {
            suspensionDecision += 1
            return (suspensionDecision, queueSuspension)
        }

        // MARK: - Starting and finishing

        /// The group starts its children, holding a slot of `ownerScheduler`; returns how many
        /// children have not finished. Starting twice is ignored.
        mutating func start(ownerScheduler: ProcedureScheduler?) -> Int {
            if case .pending = phase { phase = .running(ownerScheduler: ownerScheduler) }
            return unfinishedChildren
        }

        /// What the group does once it decided to finish.
        struct FinishAction {
            /// Its children's errors, then those its subclass finished with.
            var errors: [any Error]
            /// The scheduler whose slot it held: it no longer waits there as a holder.
            var ownerScheduler: ProcedureScheduler?
        }

        /// The group may be done (a child finished, or its subclass called `finish`): it
        /// finishes if it started, every child finished and, when it waits for its subclass's
        /// `finish`, that came; nil otherwise, or if it already began finishing.
        mutating func finishIfDone() -> FinishAction? {
            guard case .running(let ownerScheduler) = phase, unfinishedChildren == 0 else { return nil }
            guard !awaitsFinishCall || finishCallErrors != nil else { return nil }
            phase = .finishing
            // Errors collected before a cancel are real failures; echoes of the cancel from
            // the children were never collected.
            return FinishAction(errors: childErrors + (finishCallErrors ?? []), ownerScheduler: ownerScheduler)
        }
    }
}
