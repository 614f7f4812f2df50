/// Where a waiting procedure's conditions are, in its lifecycle (the `ConditionGate` checks
/// them).
enum GateStage: UInt8 {
    /// It has conditions or categories, not checked yet.
    case closed
    /// They are being checked (or the procedure waits for its categories).
    case checking
    /// Nothing holds the procedure back any more (or it never had conditions).
    case open
}
