import Foundation
import Procedures

/// One run of the demo: the procedure tree, its cancellation sources, and the report.
final class DemoRun: @unchecked Sendable {
    // @unchecked: `stopReason` is guarded by `lock`; everything else is immutable after init.
    enum StopReason { case interrupted, timedOut }

    private let root: String
    private let options: DemoOptions
    private let queue = ProcedureQueue()
    private let files: [ReadWithRetry]
    private let everything: GroupProcedure
    private let progress: Progress
    private let lock = NSLock()
    private var stopReason: StopReason?
    private var signalSource: (any DispatchSourceSignal)?

    init(root: String, files paths: [String], options: DemoOptions) {
        self.root = root
        self.options = options
        files = paths.map {
            ReadWithRetry(path: $0, attempts: options.attempts, backoff: options.backoff, slowdown: options.slowdown)
        }
        everything = GroupProcedure(operations: files)
        everything.name = "measure \(root)"
        everything.maxConcurrentOperationCount = options.jobs
        progress = Progress(total: paths.count)
    }

    func start() {
        Output.write("Measuring \(files.count) file(s) under \(root) with \(options.jobs) at a time…\n")
        for file in files {
            file.addDidFinishBlockObserver { [progress] file, _ in progress.fileFinished(file.path) }
        }
        installInterruptHandler()
        let timeout = options.timeout.map { DelayProcedure(by: $0) }
        if let timeout {
            timeout.addDidFinishBlockObserver { [self] delay, _ in
                if !delay.isCancelled { stop(.timedOut) }
            }
            queue.addOperation(timeout)
        }
        Report.compose(from: files).onComplete(context: .immediate) { [self] result in
            timeout?.cancel()
            finish(with: result.value ?? Report())
        }
        queue.addOperation(everything)
    }

    private func installInterruptHandler() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [self] in stop(.interrupted) }
        source.resume()
        signalSource = source
    }

    /// Cancels the whole tree: the group cancels every file's group, which cancels its attempt
    /// or delay; each finishes promptly and the report is composed from what finished.
    private func stop(_ reason: StopReason) {
        let first = lock.withLock { () -> Bool in
            guard stopReason == nil else { return false }
            stopReason = reason
            return true
        }
        if first { everything.cancel() }
    }

    private func finish(with report: Report) {
        progress.clearLine()
        Output.write(report.render(root: root, top: options.top))
        let reason = lock.withLock { stopReason }
        switch reason {
        case nil:
            exit(0)
        case .interrupted?:
            Output.write("\nCancelled by Ctrl-C (SIGINT) after \(report.measured.count + report.unreadable.count) of \(files.count) file(s).\n")
            exit(130)
        case .timedOut?:
            Output.write("\nCancelled: timed out after \(options.timeout ?? 0) s, with \(report.measured.count + report.unreadable.count) of \(files.count) file(s) done.\n")
            exit(124)
        }
    }
}
