extension Procedure {
    /// The one error a finished procedure's `errors` amount to for the bridges (its future and
    /// `ProcedureQueue.run`): nil for none, the error itself for one, and
    /// ``ProcedureError/multiple(errors:)`` for several. Both bridges use it, so a procedure's
    /// failure reads the same whether it is awaited or taken as a future.
    static func failure(from errors: [any Error]) -> (any Error)? {
        switch errors.count {
        case 0: return nil
        case 1: return errors[0]
        default: return ProcedureError.multiple(errors: errors)
        }
    }
}
