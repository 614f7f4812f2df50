import Foundation
import Procedures

/// How one file ended.
enum FileOutcome: Sendable {
    case measured(FileStats)
    case unreadable(path: String, reason: String)
    case cancelled
}

/// The summary, folded from every file's outcome.
struct Report: Sendable {
    var measured: [FileStats] = []
    var unreadable: [(path: String, reason: String)] = []
    var cancelledFiles = 0

    func adding(_ outcome: FileOutcome) -> Report {
        var report = self
        switch outcome {
        case .measured(let stats): report.measured.append(stats)
        case .unreadable(let path, let reason): report.unreadable.append((path, reason))
        case .cancelled: report.cancelledFiles += 1
        }
        return report
    }

    /// Composes the report from one future per file: each file's future becomes a future of
    /// its outcome (never failing, so that one bad file cannot sink the report), and `fold`
    /// combines them once all have completed.
    static func compose(from files: [ReadWithRetry]) -> Future<Report> {
        files.map { file in
            let outcome = Promise<FileOutcome>()
            file.future.onComplete(context: .immediate) { result in
                switch result {
                case .success(let stats): outcome.succeed(.measured(stats))
                case .failure(let error): outcome.succeed(.unreadable(path: file.path, reason: describe(error)))
                case .cancelled: outcome.succeed(.cancelled)
                }
            }
            return outcome.future
        }
        .fold(initial: Report()) { report, outcome in report.adding(outcome) }
    }

    private static func describe(_ error: any Error) -> String {
        if case ProcedureError.multiple(let errors) = error, let last = errors.last { return describe(last) }
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError {
            return underlying.localizedDescription
        }
        return nsError.localizedDescription
    }

    func render(root: String, top: Int) -> String {
        let lines = measured.reduce(0) { $0 + $1.lines }
        let words = measured.reduce(0) { $0 + $1.words }
        let bytes = measured.reduce(0) { $0 + $1.bytes }
        let checksum = measured.sorted { $0.path < $1.path }.reduce(UInt64(0)) { ($0 &* 31) ^ $1.checksum }
        var out = "\nSummary of \(root)\n"
        out += "  files measured  \(measured.count)\n"
        out += "  unreadable      \(unreadable.count)\n"
        if cancelledFiles > 0 { out += "  not finished    \(cancelledFiles)\n" }
        out += "  lines           \(lines)\n  words           \(words)\n  bytes           \(bytes)\n"
        out += "  checksum        \(String(checksum, radix: 16))\n"
        let largest = measured.sorted { ($0.bytes, $1.path) > ($1.bytes, $0.path) }.prefix(top)
        if !largest.isEmpty {
            out += "\nLargest \(largest.count) file(s):\n"
            out += "  " + ["bytes", "lines", "words"].map { $0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined() + "path\n"
            for file in largest {
                out += "  " + [file.bytes, file.lines, file.words].map { String($0).padding(toLength: 10, withPad: " ", startingAt: 0) }.joined() + file.path + "\n"
            }
        }
        if !unreadable.isEmpty {
            out += "\nUnreadable (skipped):\n"
            for file in unreadable.sorted(by: { $0.path < $1.path }) { out += "  \(file.path): \(file.reason)\n" }
        }
        return out
    }
}
