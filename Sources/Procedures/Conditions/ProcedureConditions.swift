/// What a procedure keeps of its conditions: none; one condition that answers at once; or a
/// ``ConditionGate``. One word, like the gate reference it replaces.
///
/// A lone condition that answers at once (``Condition/answersAtOnce``, which claims no
/// categories) has nothing to wait for, so no steps to keep: the procedure asks it itself
/// (`Procedure.checkAtOnce(_:)`). The gate is made as soon as another condition is added, and
/// when the checks begin if the lone one waits for procedures first or the procedure's queue
/// may be suspended (a parked check is kept by the gate).
enum ProcedureConditions {
    case none
    /// A condition that answers at once (``add(_:)`` puts no other here).
    case one(Condition)
    case gate(ConditionGate)

    /// The gate, if one was made.
    var gate: ConditionGate? {
        if case .gate(let gate) = self { return gate }
        return nil
    }

    /// The conditions, in order.
    var array: [Condition] {
        switch self {
        case .none: return []
        case .one(let condition): return [condition]
        case .gate(let gate): return gate.conditions.array
        }
    }

    /// Adds a condition. The gate is made at once for a second condition, or for a first one
    /// that does not answer at once (its checks need the gate's steps anyway).
    mutating func add(_ condition: Condition) {
        switch self {
        case .none where condition.answersAtOnce: self = .one(condition)
        case .none: self = .gate(ConditionGate(checking: condition))
        case .one(let first): self = .gate(ConditionGate(checking: first, then: condition))
        case .gate(let gate): gate.add(condition)
        }
    }

    /// The one condition, if the procedure checks it itself: it answers at once (as every
    /// `.one` does) and waits for no procedure first. Nil otherwise (a gate's steps check the
    /// conditions).
    var checkedAtOnce: Condition? {
        guard case .one(let condition) = self, !condition.mayWaitForProcedures else { return nil }
        return condition
    }

    /// The gate that checks the conditions, made now for a lone condition.
    mutating func gateForSteps() -> ConditionGate? {
        switch self {
        case .none: return nil
        case .one(let condition):
            let gate = ConditionGate(checking: condition)
            self = .gate(gate)
            return gate
        case .gate(let gate): return gate
        }
    }
}
