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
    /// on from the answer otherwise.
    private final class Handoff: @unchecked Sendable {
        // @unchecked: `stage` is guarded by `lock`.
        private enum Stage {
            case pending
            case inline(ConditionResult)
            case awaited
            case done
        }

        private let lock = Lock()
        @exclusivity(unchecked) private var stage = Stage.pending

        /// Records the answer; true if the caller must carry on from it (`evaluate` returned
        /// without it).
        func deliver(_ result: ConditionResult) -> Bool {
            lock.withLock {
                switch stage {
                case .pending:
                    stage = .inline(result)
                    return false
                case .awaited:
                    stage = .done
                    return true
                case .inline, .done:
                    return false
                }
            }
        }

        /// The answer if it came during `evaluate`; nil if it has not (it will carry on).
        func takeInline() -> ConditionResult? {
            lock.withLock {
                if case .inline(let result) = stage {
                    stage = .done
                    return result
                }
                stage = .awaited
                return nil
            }
        }
    }
}
