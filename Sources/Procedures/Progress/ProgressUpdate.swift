import Foundation

/// Where a procedure's progress stands, as its observers receive it (see
/// ``Procedure/observeProgress(minimumInterval:clock:_:)`` and
/// ``Procedure/progressUpdates(minimumInterval:clock:)``).
public struct ProgressUpdate: Sendable, Equatable, CustomStringConvertible {
    /// How much of the work is done, from 0 to 1. It includes the part done of the children
    /// still running, for a group; 0 while the total is unknown.
    public var fractionCompleted: Double
    /// The units done: what the procedure counts (elements, attempts, bytes, milliseconds
    /// waited, or a group's finished children's weights).
    public var completedUnitCount: Int64
    /// The units in all; 0 or less while unknown (the progress is then indeterminate).
    public var totalUnitCount: Int64
    /// True once the procedure was cancelled: the progress stays where it was from then on.
    public var isCancelled: Bool
    /// True for the last update, sent once the procedure has finished.
    public var isFinal: Bool

    /// An update with these values.
    public init(
        fractionCompleted: Double, completedUnitCount: Int64, totalUnitCount: Int64, isCancelled: Bool = false,
        isFinal: Bool = false
    ) {
        self.fractionCompleted = fractionCompleted
        self.completedUnitCount = completedUnitCount
        self.totalUnitCount = totalUnitCount
        self.isCancelled = isCancelled
        self.isFinal = isFinal
    }

    /// True while the total is unknown.
    public var isIndeterminate: Bool { totalUnitCount <= 0 }

    /// `40.0 % (4 of 10)`, with `cancelled` or `final` when they apply; while the total is
    /// unknown, `4 done, total not known yet` (never "0 of 0").
    public var description: String {
        let percent = (fractionCompleted * 1000).rounded() / 10
        var text = isIndeterminate
            ? "\(completedUnitCount) done, total not known yet"
            : "\(percent) % (\(completedUnitCount) of \(totalUnitCount))"
        if isCancelled { text += ", cancelled" }
        if isFinal { text += ", final" }
        return text
    }
}
