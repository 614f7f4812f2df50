import Foundation
import ProceduresSupport

/// Evaluates a compound condition's parts one after another without growing the stack.
///
/// A part that answers before its `evaluate` returns continues the loop here; one that answers
/// later continues it from its answer. So a list of thousands of parts answering at once
/// takes one stack frame, not one per part (as the procedure's own condition loop does).
enum PartEvaluation {
    /// Evaluates `parts` from `start` on, in order. `decide` gets each answer and the state
    /// carried from part to part, and returns the compound's answer to stop there, or nil to
    /// go on; once the parts run out, `whenDone` gives the answer.
    static func run<State: Sendable>(
        _ parts: [Condition], from start: Int = 0, state: State, for procedure: Procedure,
        decide: @escaping @Sendable (_ index: Int, ConditionResult, inout State) -> ConditionResult?,
        whenDone: @escaping @Sendable (State) -> ConditionResult,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        var index = start
        var state = state
        while index < parts.count {
            let handoff = Handoff()
            parts[index].evaluateIfRequirementsMet(for: procedure) { [index, state] result in
                // Called again (a misbehaving part): ignored, the first answer counts.
                guard handoff.deliver(result) else { return }
                var state = state
                if let answer = decide(index, result, &state) { return completion(answer) }
                run(parts, from: index + 1, state: state, for: procedure, decide: decide, whenDone: whenDone, completion: completion)
            }
            guard let result = handoff.takeInline() else { return }
            if let answer = decide(index, result, &state) { return completion(answer) }
            index += 1
        }
        completion(whenDone(state))
    }

    /// Where one part's answer goes: back to the loop if it came before `evaluate` returned,
    /// on from the answer otherwise. Shared by the loop and the part's completion.
    private struct Handoff: Sendable {
        private let stage = LockedValue(PartAnswer.pending)

        /// Records the answer; true if the caller must carry on from it (`evaluate` returned
        /// without it).
        func deliver(_ result: ConditionResult) -> Bool {
            stage.withLock { $0.deliver(result) }
        }

        /// The answer if it came during `evaluate`; nil if it has not (it will carry on).
        func takeInline() -> ConditionResult? {
            stage.withLock { $0.takeInline() }
        }
    }
}

/// Where one part's answer is, as a value: its two events are the answer arriving and the
/// part's `evaluate` returning, in either order.
enum PartAnswer: Sendable {
    /// Neither has happened.
    case pending
    /// The answer came before `evaluate` returned: the loop takes it.
    case inline(ConditionResult)
    /// `evaluate` returned first: the answer carries on by itself.
    case awaited
    /// The answer was taken (by the loop or the completion); a later one is ignored.
    case done

    /// The answer arrives; true if its completion must carry on (`evaluate` returned without it).
    mutating func deliver(_ result: ConditionResult) -> Bool {
        switch self {
        case .pending:
            self = .inline(result)
            return false
        case .awaited:
            self = .done
            return true
        case .inline, .done:
            return false
        }
    }

    /// The part's `evaluate` returned: the answer if it already came, nil if it will carry on.
    mutating func takeInline() -> ConditionResult? {
        if case .inline(let result) = self {
            self = .done
            return result
        }
        self = .awaited
        return nil
    }
}
