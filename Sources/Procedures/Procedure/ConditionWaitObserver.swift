import Foundation

/// An observer that also hears when its procedure begins waiting for its conditions and
/// exclusivity categories, an event the public ``ProcedureObserver`` does not have (a
/// deadline, ``TimeoutObserver/init(until:clock:)``, starts then).
///
/// The procedure asks its observers for this capability instead of testing their classes.
protocol ConditionWaitObserver: ProcedureObserver {
    /// `procedure` begins waiting for its conditions and categories (before the first is
    /// evaluated or requested); called among the procedure's callbacks, under no lock.
    func procedureBeginsWaitingForConditions(_ procedure: Procedure)
}
