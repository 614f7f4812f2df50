import Foundation
import ProceduresSupport

// One root cause, reported once.
//
// When a child of a group injects its input from a sibling that fails, the injection cancels
// it with `ProcedureError.dependencyFailed(name:errors:)` (or `.dependencyCancelled` with the
// sibling's errors). The sibling's own errors already reach the group; the consumer's error
// only repeats them ("Batch failed with [X]" beside X). A group that filters echoes drops that
// repeat from its errors, so it fails with X once. The consumer itself keeps its error: seen
// alone, it is the only trace of why it did not run.
//
// Only the injection knows which procedure the consumer waited for, so it tells the group
// (`noteEcho`) before it cancels the consumer; the group drops the error when the consumer's
// finish reaches it, whichever of the two siblings' finishes the group hears of first.

// Every group leaves out of its errors those that only repeat a sibling's.
extension GroupProcedure {
    /// `consumer` is about to be cancelled with `error` because `source` failed; drop the
    /// error from this group's errors if `source` is a child of this group too.
    func noteEcho(_ error: ProcedureError, of consumer: Procedure, from source: Procedure) {
        let record = groupLock.withLock { () -> SiblingEchoes in
            if let echoes = group.echoes { return echoes }
            let made = SiblingEchoes()
            group.echoes = made
            return made
        }
        // Outside the group's lock: the record takes it to look at the children.
        record.note(error, of: consumer, from: source, in: self)
    }

    /// `errors` of `child` without the echo of a sibling's failure, if one was noted for it.
    func withoutSiblingEchoes(_ errors: [any Error], of child: Operation) -> [any Error] {
        guard let record = groupLock.withLock({ group.echoes }) else { return errors }
        return record.filter(errors, of: child)
    }
}

extension ProcedureError {
    /// True for an injection error carrying errors of its source, which that source reported
    /// itself (a source cancelled without errors, or without an output, reported nothing).
    var repeatsErrorsOfItsSource: Bool {
        switch self {
        case .dependencyFailed: return true
        case .dependencyCancelled(_, let errors): return !errors.isEmpty
        default: return false
        }
    }

    /// True if `error` is this injection error (same case, same source name).
    func isSameInjectionError(as error: any Error) -> Bool {
        switch (self, error as? ProcedureError) {
        case (.dependencyFailed(let name, _), .dependencyFailed(let other, _)?): return name == other
        case (.dependencyCancelled(let name, _), .dependencyCancelled(let other, _)?): return name == other
        default: return false
        }
    }
}

extension Procedure {
    /// The group whose child this running procedure is, if any.
    var enclosingGroup: GroupProcedure? {
        lock.withLock { state.owner }?.ownerRole.group
    }
}
