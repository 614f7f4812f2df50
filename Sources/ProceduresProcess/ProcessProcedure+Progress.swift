import Foundation
import Procedures

extension ProcessProcedure {
    /// Fills the procedure's ``Procedures/Procedure/progress`` from what the program prints: `map` turns
    /// a line into the units done (nil for a line that says nothing about progress).
    ///
    /// It reads the lines of the streams delivered as ``OutputDestination/lines`` (standard
    /// output, standard error, or both); with neither, there are no lines and the progress
    /// only reaches 100 % when the program has finished. Call it before adding the procedure
    /// to a queue. `map` is called with no library lock held, one line at a time per stream.
    ///
    /// ```swift
    /// let build = ProcessProcedure(executable: "make", arguments: ["all"], standardOutput: .lines)
    /// build.reportProgress { line in
    ///     // "[ 40%] Building …"
    ///     guard line.hasPrefix("["), let end = line.firstIndex(of: "%"),
    ///         let percent = Double(line[line.index(after: line.startIndex)..<end].trimmingCharacters(in: .whitespaces))
    ///     else { return nil }
    ///     return ProgressUnits(completed: Int64(percent), of: 100)
    /// }
    /// ```
    public final func reportProgress(fromOutputLines map: @escaping @Sendable (String) -> ProgressUnits?) {
        let report: @Sendable (String) -> Void = { [weak self] line in
            if let units = map(line) { self?.reportProgress(completed: units.completed, of: units.total) }
        }
        if standardOutput == .lines { standardOutputLines.onSuccess(context: .immediate, report) }
        if standardError == .lines { standardErrorLines.onSuccess(context: .immediate, report) }
    }
}
