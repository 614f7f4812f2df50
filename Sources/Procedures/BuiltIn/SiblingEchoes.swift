import Foundation
import ProceduresSupport

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
