import Foundation
import Procedures

/// Measures one file, retrying a failed read after a growing delay: a group whose children are
/// the attempts and the `DelayProcedure`s between them.
final class ReadWithRetry: GroupProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked: `attempt` and `stats` are guarded by `lock`; the rest is immutable.
    let path: String
    private let attempts: Int
    private let backoff: TimeInterval
    private let lock = NSLock()
    private var attempt = 1
    private var stats: FileStats?

    init(path: String, attempts: Int, backoff: TimeInterval, slowdown: TimeInterval) {
        self.path = path
        self.attempts = attempts
        self.backoff = backoff
        super.init()
        name = "read(\(path))"
        let first = makeAttempt()
        if slowdown > 0 {
            let pause = DelayProcedure(by: slowdown)
            first.addDependency(pause)
            addChild(pause)
        }
        addChild(first)
    }

    var output: FileStats? { lock.withLock { stats } }

    private func makeAttempt() -> FileStatsProcedure {
        let attempt = FileStatsProcedure(path: path)
        attempt.addDidFinishBlockObserver { [weak self] attempt, errors in
            guard let self, errors.isEmpty, let stats = attempt.output else { return }
            self.lock.withLock { self.stats = stats }
        }
        return attempt
    }

    override func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        let retry = lock.withLock { () -> Int? in
            guard child is FileStatsProcedure, attempt < attempts else { return nil }
            attempt += 1
            return attempt
        }
        guard let retry else { return errors }  // out of attempts: the group fails with them
        let pause = DelayProcedure(by: backoff * Double(1 << (retry - 2)))
        let next = makeAttempt()
        next.addDependency(pause)
        addChildren([pause, next])
        return []  // a failure that will be retried is not the group's failure
    }
}
