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
        lock.withLock { state.owner } as? GroupProcedure
    }
}

/// A group's record of its children's echoes; made on the first echo, so groups without one
/// pay nothing. Guarded by its own lock, under which nothing else is called (the group's lock
/// included).
final class SiblingEchoes: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = Lock()
    /// The error to drop from each consumer's errors, by consumer.
    private var pending: [ObjectIdentifier: ProcedureError] = [:]
    /// The group's children seen so far, and how many of them: children are only appended
    /// (one whose adoption fails is removed again, but such a child never ran as this
    /// group's), so each look indexes only those added since the last one.
    private var children = Set<ObjectIdentifier>()
    private var indexed = 0

    /// Records `error` for `consumer` if `source` is among `group`'s children.
    func note(_ error: ProcedureError, of consumer: Procedure, from source: Procedure, in group: GroupProcedure) {
        let sourceID = ObjectIdentifier(source)
        let (known, from) = lock.withLock { (children.contains(sourceID), indexed) }
        var added: [ObjectIdentifier] = []
        if !known {
            // The group's lock is taken with this record's let go: no lock is held under another.
            added = group.groupLock.withLock { () -> [ObjectIdentifier] in
                guard group.group.children.count > from else { return [] }
                return group.group.children[from...].map { ObjectIdentifier($0) }
            }
        }
        lock.withLock {
            // Another note may have indexed further meanwhile: every look starts at or below
            // `indexed`, so the children indexed stay a prefix, whatever the order of merges.
            children.formUnion(added)
            indexed = max(indexed, from + added.count)
            if children.contains(sourceID) { pending[ObjectIdentifier(consumer)] = error }
        }
    }

    /// `errors` of `child` without the echo recorded for it, if any.
    func filter(_ errors: [any Error], of child: Operation) -> [any Error] {
        guard let echo = lock.withLock({ pending.removeValue(forKey: ObjectIdentifier(child)) }) else { return errors }
        guard let index = errors.firstIndex(where: { echo.isSameInjectionError(as: $0) }) else { return errors }
        var kept = errors
        kept.remove(at: index)
        return kept
    }
}
