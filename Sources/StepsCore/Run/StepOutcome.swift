import Foundation

/// How a step ended.
enum StepOutcome: Sendable, Equatable {
    /// It ran and succeeded (on its last try).
    case succeeded
    /// It failed on its last try; `ignored` when the step has `continueOnError`.
    case failed(reason: String, ignored: Bool)
    /// It did not run: its condition did not hold, or a step it needs failed.
    case skipped(reason: String)
    /// It did not run: nothing it depends on changed since its last successful run.
    case upToDate
    /// The run was stopped (Ctrl-C or `--timeout`) before the step could finish.
    case stopped

    /// Whether the pipeline fails because of this step.
    var failsPipeline: Bool {
        if case .failed(_, ignored: false) = self { return true }
        return false
    }

    /// Whether the steps that need this one may run.
    var letsDependentsRun: Bool {
        switch self {
        case .succeeded, .upToDate, .failed(_, ignored: true): return true
        case .skipped(let reason): return !reason.hasPrefix(StepOutcome.dependencyFailedPrefix)
        case .failed, .stopped: return false
        }
    }

    static let dependencyFailedPrefix = "needs "

    var symbol: String {
        switch self {
        case .succeeded: return "✓"
        case .failed(_, let ignored): return ignored ? "!" : "✗"
        case .skipped: return "-"
        case .upToDate: return "="
        case .stopped: return "■"
        }
    }

    var word: String {
        switch self {
        case .succeeded: return "ok"
        case .failed(_, let ignored): return ignored ? "failed (ignored)" : "failed"
        case .skipped: return "skipped"
        case .upToDate: return "up to date"
        case .stopped: return "stopped"
        }
    }
}

/// What the run knows about one step, for the display and the summary. Thread-safe.
final class StepRecord: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock`.
    let step: Step
    private let lock = NSLock()
    private var _attempt = 0
    private var _started: Date?
    private var _finished: Date?
    private var _outcome: StepOutcome?
    private var _runReason: String?
    private var _waiting: Waiting?
    private var _progress: Double?

    init(step: Step) { self.step = step }

    /// How far the step says it is (0...1), from its `::progress` lines (see ``StepProgress``).
    var progress: Double? {
        get { lock.withLock { _progress } }
        set { lock.withLock { _progress = newValue } }
    }

    /// Why a step with sources runs ("Sources/a.swift changed"), once its check has said so.
    var runReason: String? {
        get { lock.withLock { _runReason } }
        set { lock.withLock { _runReason = newValue } }
    }

    /// A wait between two tries.
    struct Waiting: Sendable, Equatable {
        var beforeTry: Int
        var until: Date
    }

    struct Snapshot {
        var attempt: Int
        /// Set while the step waits out its back-off.
        var waiting: Waiting?
        var started: Date?
        var finished: Date?
        var outcome: StepOutcome?
        var duration: TimeInterval? {
            guard let started else { return nil }
            return (finished ?? Date()).timeIntervalSince(started)
        }
    }

    var snapshot: Snapshot {
        lock.withLock { Snapshot(attempt: _attempt, waiting: _waiting, started: _started, finished: _finished, outcome: _outcome) }
    }
    var outcome: StepOutcome? { lock.withLock { _outcome } }

    /// Records the start of try number `attempt`; returns it.
    func attemptStarted(_ attempt: Int) {
        lock.withLock {
            _attempt = attempt
            _waiting = nil
            if _started == nil { _started = Date() }
        }
    }

    /// Records that the step waits `seconds` before try number `beforeTry`.
    func waitStarted(beforeTry: Int, seconds: Double) {
        guard seconds > 0 else { return }
        lock.withLock { _waiting = Waiting(beforeTry: beforeTry, until: Date().addingTimeInterval(seconds)) }
    }

    /// Records the outcome; the first one wins. Returns whether this call set it.
    @discardableResult
    func finish(_ outcome: StepOutcome) -> Bool {
        lock.withLock {
            guard _outcome == nil else { return false }
            _outcome = outcome
            _waiting = nil
            if _started != nil { _finished = Date() }
            return true
        }
    }
}
