import Foundation

/// Why an enqueued procedure is not executing: the answer of ``Procedure/waitingReason``.
///
/// Its ``description`` is one plain-English line, such as
/// `waiting for exclusive category "database", held by migrate-db`.
public enum WaitingReason: Sendable, CustomStringConvertible {
    /// Dependencies that have not finished (procedures and plain operations).
    case dependencies([Operation])
    /// Dependencies of its conditions that have not finished (see ``Condition``).
    case conditionDependencies([Operation])
    /// A condition is being evaluated and has not answered yet.
    case condition(name: String)
    /// It waits for an exclusivity `category` (see ``MutuallyExclusive``). `holder` is the
    /// procedure first in that category's line: it holds the category, or takes it as soon as
    /// its own other categories are free. Nil if that procedure is gone.
    case exclusivity(category: String, holder: Procedure?)
    /// It is ready, but its queue (or group) already runs `width` operations: it waits for a
    /// slot.
    case queueFull(width: Int)
    /// Its queue or group is suspended; `owner` names it ("queue uploads", "group Sync"). A
    /// group's children also wait here until the group executes.
    case suspended(owner: String)
    /// It waits on `clock` until the clock reads `deadline` (a ``DelayProcedure``, or the
    /// back-off of a ``RepeatProcedure`` or ``RetryProcedure``).
    case clock(any ProcedureClock, deadline: TimeInterval)
    /// Ready, with a free slot: it starts presently.
    case starting
    /// An executing group waits for these unfinished children.
    case children([Procedure])
    /// Running, it gave its slot back for a wait and now waits for a slot again; `width` is
    /// its queue's (or group's) width when every slot is taken, nil when one is free.
    case slotAgain(width: Int?)

    public var description: String {
        switch self {
        case .dependencies(let operations):
            return "waiting for \(Self.names(operations))"
        case .conditionDependencies(let operations):
            return "waiting for the dependencies of its conditions: \(Self.names(operations))"
        case .condition(let name):
            return "waiting for condition \(name) to answer"
        case .exclusivity(let category, let holder):
            let held = holder.map { ", held by \($0.displayName)" } ?? ""
            return "waiting for exclusive category \"\(category)\"\(held)"
        case .queueFull(let width):
            return "ready, waiting for a slot: its queue already runs \(width) at once"
        case .suspended(let owner) where owner.hasPrefix("group "):
            return "waiting for its \(owner) to start or be resumed"
        case .suspended(let owner):
            return "waiting for its \(owner) to be resumed"
        case .clock(let clock, let deadline):
            return "waiting on a \(Self.clockName(clock)) until \(deadline) (now \(clock.now))"
        case .starting:
            return "ready, starting"
        case .children(let children):
            return "executing, waiting for its children: \(Self.names(children))"
        case .slotAgain(let width?):
            return "executing, gave its slot back and waits for one again: its queue already runs \(width) at once"
        case .slotAgain(nil):
            return "executing, gave its slot back and takes one again presently"
        }
    }

    /// The clock's type name, as in "waiting on a ManualClock".
    public static func clockName(_ clock: any ProcedureClock) -> String {
        String(describing: type(of: clock))
    }

    /// `name` of each operation (a procedure's, or its type), comma-separated.
    static func names(_ operations: [Operation]) -> String {
        operations.map(Self.name(of:)).joined(separator: ", ")
    }

    static func name(of operation: Operation) -> String {
        (operation as? Procedure)?.displayName ?? operation.name ?? String(describing: type(of: operation))
    }
}
