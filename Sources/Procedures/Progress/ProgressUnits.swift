import Foundation

/// An amount of work done out of a total, as a `ProcessProcedure`'s output lines report it
/// (see its `reportProgress(fromOutputLines:)`, in `ProceduresProcess`).
public struct ProgressUnits: Sendable, Equatable {
    /// The units done.
    public var completed: Int64
    /// The units in all; 0 or less while unknown.
    public var total: Int64

    /// `completed` units done out of `total`.
    public init(completed: Int64, of total: Int64) {
        self.completed = completed
        self.total = total
    }

    /// A fraction from 0 to 1, counted in ten-thousandths (clamped into that range; NaN counts
    /// as 0).
    public init(fraction: Double) {
        let clamped = fraction.isNaN ? 0 : min(1, max(0, fraction))
        self.init(completed: Int64((clamped * 10_000).rounded()), of: 10_000)
    }
}
