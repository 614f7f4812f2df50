import Foundation

/// Checks one procedure's conditions, then takes its exclusivity categories, then lets it
/// become ready; releases the categories when it finishes.
///
/// Steps, each started by the completion of the one before (so no thread waits): the
/// conditions' dependencies (produced ones are added to the procedure's queue first), then
/// each condition in order, then the categories. A cancel stops the steps: the procedure's
/// own cancel path makes it ready, and it finishes cancelled.
final class ConditionGate: ProcedureObserver, @unchecked Sendable {
    // @unchecked: `conditions` is appended only under the owning procedure's lock while the
    // procedure is still initial, and read only once it was claimed (that lock orders the
    // two); everything else is guarded by `lock`.
    var conditions: [Condition] = []

    private let lock = Lock()
    /// What the gate waits for now, for the procedure's state summary.
    private var waitingFor: String?
    private var stopped = false
    private var pendingDependencies = 0
    private var produced: [Procedure] = []
    private var request: ExclusivityRequest?

    /// "waiting for …", while the gate waits for something.
    var summary: String? { lock.withLock { waitingFor.map { "waiting for \($0)" } } }

    func note(waitingFor what: String) {
        lock.withLock { waitingFor = what }
    }

    // MARK: - Steps

    func begin(_ procedure: Procedure, queue: ProcedureQueue?) {
        let produced = conditions.flatMap(\.producedDependencies)
        let dependencies = conditions.flatMap(\.allDependencies)
        guard !dependencies.isEmpty else {
            evaluate(procedure, from: 0)
            return
        }
        let names = dependencies.map(\.displayName).joined(separator: ", ")
        lock.withLock {
            // One extra count keeps the step shut while the observers are added.
            pendingDependencies = dependencies.count + 1
            self.produced = produced
            waitingFor = "the dependencies of its conditions (\(names))"
        }
        for operation in produced {
            if let queue { queue.addOperation(operation) } else { operation.start() }
        }
        for dependency in dependencies {
            dependency.addObserver(ConditionDependencyObserver(gate: self, procedure: procedure))
        }
        dependencyDidFinish(for: procedure)
    }

    func dependencyDidFinish(for procedure: Procedure) {
        let done = lock.withLock { () -> Bool in
            pendingDependencies -= 1
            return pendingDependencies == 0
        }
        if done { evaluate(procedure, from: 0) }
    }

    /// Evaluates conditions from `start` on; a condition that completes inline continues the
    /// loop here, one that completes later continues it from its completion.
    private func evaluate(_ procedure: Procedure, from start: Int) {
        var index = start
        while index < conditions.count {
            let condition = conditions[index]
            guard proceed(procedure, waitingFor: "condition \(condition.name)") else { return }
            let evaluation = ConditionEvaluation(gate: self, procedure: procedure, condition: condition, index: index)
            condition.evaluate(for: procedure) { evaluation.complete($0) }
            guard let result = evaluation.resultIfCompletedInline() else { return }
            guard apply(result, of: condition, to: procedure) else { return }
            index += 1
        }
        acquireCategories(procedure)
    }

    /// A condition completed after `evaluate(for:completion:)` returned.
    func conditionDidComplete(_ result: ConditionResult, of condition: Condition, at index: Int, for procedure: Procedure) {
        guard apply(result, of: condition, to: procedure) else { return }
        evaluate(procedure, from: index + 1)
    }

    /// False (and stopped) if the procedure was cancelled; otherwise notes what comes next.
    private func proceed(_ procedure: Procedure, waitingFor what: String) -> Bool {
        let cancelled = procedure.cancelRequested
        return lock.withLock {
            if cancelled { stopped = true }
            guard !stopped else {
                waitingFor = nil
                return false
            }
            waitingFor = what
            return true
        }
    }

    /// True if the evaluation goes on.
    private func apply(_ result: ConditionResult, of condition: Condition, to procedure: Procedure) -> Bool {
        switch result {
        case .satisfied:
            return true
        case .failed(let error):
            stop()
            procedure.cancel(withError: Self.conditionError(error, of: condition))
            return false
        case .ignored:
            stop()
            procedure.cancel()
            return false
        }
    }

    /// `error` named after the condition, unless it already names one (a compound condition
    /// passes on the error of the condition inside it that failed).
    static func conditionError(_ error: any Error, of condition: Condition) -> any Error {
        if case ProcedureError.conditionFailed = error { return error }
        return ProcedureError.conditionFailed(name: condition.name, error: error)
    }

    private func stop() {
        lock.withLock {
            stopped = true
            waitingFor = nil
        }
    }

    private func acquireCategories(_ procedure: Procedure) {
        let categories = conditions.flatMap(\.mutuallyExclusiveCategories)
        guard !categories.isEmpty else {
            open(procedure)
            return
        }
        let request = ExclusivityRequest(categories: categories) { [self] in self.open(procedure) }
        guard proceed(procedure, waitingFor: "exclusivity (\(request.categories.joined(separator: ", ")))") else { return }
        let submit = lock.withLock { () -> Bool in
            guard !stopped else { return false }
            self.request = request
            return true
        }
        // A cancel from here on withdraws the request, before or after it is submitted.
        if submit { ExclusivityManager.shared.submit(request) }
    }

    private func open(_ procedure: Procedure) {
        lock.withLock { waitingFor = nil }
        procedure.conditionGateDidOpen()
    }

    // MARK: - Observing the procedure

    func didCancel(_ procedure: Procedure, errors: [any Error]) {
        let (produced, request) = lock.withLock { () -> ([Procedure], ExclusivityRequest?) in
            stopped = true
            waitingFor = nil
            defer { self.produced = [] }
            return (self.produced, self.request)
        }
        for operation in produced where !operation.isFinished { operation.cancel() }
        // Leaves the line at once; a procedure already holding its categories keeps them
        // until it finishes.
        if let request { ExclusivityManager.shared.leaveLine(request) }
    }

    func didFinish(_ procedure: Procedure, errors: [any Error]) {
        let request = lock.withLock { () -> ExclusivityRequest? in
            stopped = true
            waitingFor = nil
            produced = []
            defer { self.request = nil }
            return self.request
        }
        if let request { ExclusivityManager.shared.withdraw(request) }
    }
}

/// Tells a gate that one of its conditions' dependencies finished.
private struct ConditionDependencyObserver: ProcedureObserver {
    let gate: ConditionGate
    let procedure: Procedure

    func didFinish(_ dependency: Procedure, errors: [any Error]) {
        gate.dependencyDidFinish(for: procedure)
    }
}

/// One call of a condition's `evaluate`: keeps its first answer, reports a second one, and
/// tells whether the answer came before `evaluate` returned.
private final class ConditionEvaluation: @unchecked Sendable {
    // @unchecked: `state` is guarded by `lock`; the rest is immutable.
    private enum State {
        case evaluating
        case completedInline(ConditionResult)
        case detached
        case done
    }

    private let lock = Lock()
    private var state = State.evaluating
    let gate: ConditionGate
    let procedure: Procedure
    let condition: Condition
    let index: Int

    init(gate: ConditionGate, procedure: Procedure, condition: Condition, index: Int) {
        self.gate = gate
        self.procedure = procedure
        self.condition = condition
        self.index = index
    }

    func complete(_ result: ConditionResult) {
        enum Next { case none, resume, duplicate }
        let next = lock.withLock { () -> Next in
            switch state {
            case .evaluating:
                state = .completedInline(result)
                return .none
            case .detached:
                state = .done
                return .resume
            case .completedInline, .done:
                return .duplicate
            }
        }
        switch next {
        case .none: return
        case .resume: gate.conditionDidComplete(result, of: condition, at: index, for: procedure)
        case .duplicate:
            ProcedureMisuse.report(
                .conditionCompletedTwice,
                "condition \(condition.name) of \(procedure.displayName) called its completion more than once; the first answer was kept. Call the completion exactly once.",
                subject: procedure)
        }
    }

    /// The answer if it came while `evaluate` ran; otherwise nil, and the answer will resume
    /// the gate when it comes.
    func resultIfCompletedInline() -> ConditionResult? {
        lock.withLock {
            if case .completedInline(let result) = state {
                state = .done
                return result
            }
            state = .detached
            return nil
        }
    }
}
