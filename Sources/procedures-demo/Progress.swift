import Foundation
import Procedures

/// Counts finished files and shows it: a live line on a terminal, plain lines (every tenth of
/// the work) otherwise.
final class Progress: @unchecked Sendable {
    // @unchecked: `done` and `lastReportedTenth` are guarded by `lock`.
    private let lock = NSLock()
    private let total: Int
    private let isTerminal = isatty(STDOUT_FILENO) == 1
    private var done = 0
    private var lastReportedTenth = -1

    init(total: Int) { self.total = total }

    func fileFinished(_ path: String) {
        // Written under the lock, so lines appear in the order of the count they show.
        lock.withLock {
            done += 1
            if isTerminal {
                Output.write("\r\u{1B}[2K[\(done)/\(total)] \(path.suffix(60))")
                return
            }
            let tenth = total == 0 ? 10 : done * 10 / total
            guard tenth > lastReportedTenth else { return }
            lastReportedTenth = tenth
            Output.write("processed \(done)/\(total) files\n")
        }
    }

    var finished: Int { lock.withLock { done } }

    func clearLine() {
        if isTerminal { Output.write("\r\u{1B}[2K") }
    }
}

/// Unbuffered writes to standard output, so a reader on a pipe sees progress as it happens.
enum Output {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
