import Foundation

/// An output procedure that keeps what it had produced when it is cancelled or fails part
/// way: a ``ReduceProcedure``'s accumulator so far, a ``BatchProcedure``'s finished elements.
///
/// ``OutputProcedure/output`` stays nil for a procedure that did not succeed (a future of it
/// completes as cancelled or failed); read `partialOutput` after it finished to salvage the
/// work done:
///
/// ```swift
/// let outcome = await batch.future.outcome
/// if outcome.isCancelled, let done = batch.partialOutput { print(done.compactMap { $0 }) }
/// ```
public protocol PartialOutputProcedure<PartialOutput>: OutputProcedure {
    /// What the procedure keeps when it does not finish its work.
    associatedtype PartialOutput: Sendable
    /// The work done, once the procedure has finished; nil before. Every conforming procedure
    /// keeps it when it was cancelled or failed; a ``BatchProcedure`` keeps it after a success
    /// too (every element's output), a ``ReduceProcedure`` does not (then
    /// ``OutputProcedure/output`` has it all).
    var partialOutput: PartialOutput? { get }
}
