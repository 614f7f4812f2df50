import Foundation

/// A procedure that runs its operation only if a closure, asked when the gated procedure
/// executes (after its dependencies finished), says so.
///
/// ```swift
/// let sync = GatedProcedure(SyncContacts()) { settings.syncEnabled }
/// ```
///
/// A closed gate (`false`) cancels the operation without errors, and the gated procedure
/// succeeds without having run it (a gated ``OutputProcedure`` then has no output). An error
/// the gate throws cancels the operation too, and fails the gated procedure with that error.
/// The gate runs among the gated procedure's callbacks, once.
open class GatedProcedure<Wrapped: Operation>: ComposedProcedure<Wrapped>, @unchecked Sendable {
    // @unchecked: `gate` is immutable.
    private let gate: @Sendable () throws -> Bool

    /// Wraps `operation`, to run only if `gate` returns true.
    public init(_ operation: Wrapped, gate: @escaping @Sendable () throws -> Bool) {
        self.gate = gate
        super.init(operation)
    }

    /// Asks the gate, then runs the operation or cancels it. Overrides must call `super`.
    open override func execute() {
        do {
            if try !gate() { operation.cancel() }
        } catch {
            operation.cancel()
            // The error must reach the group as a child's: a group finishes only by itself.
            addChild(BlockProcedure { throw error })
        }
        super.execute()
    }
}
