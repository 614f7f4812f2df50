import Foundation

@testable import Procedures

/// An owner that is only an identity and a scheduler: what it is told does nothing, so a test
/// sees exactly what a procedure or the lifecycle machine asks of it.
final class StandInOwner: ProcedureOwner, @unchecked Sendable {
    // @unchecked: immutable; the scheduler locks for itself.
    let scheduler: ProcedureScheduler

    init(suspended: Bool = false) {
        scheduler = ProcedureScheduler(suspended: suspended)
    }

    func addProduced(_ operation: Operation) {}
    func procedureWillFinish(_ procedure: Procedure, errors: [any Error]) {}
    func procedureDidFinish(_ procedure: Procedure, errors: [any Error]) {}
    var queueFacade: ProcedureQueue { ProcedureQueue() }
    var ownedProcedures: [Procedure] { [] }
    // Generic code treats it as a queue, the owner that is not itself a procedure.
    var ownerRole: ProcedureOwnerRole { .queue(queueFacade) }
    var nameInMisuseReports: String { "a stand-in owner" }
    var schedulerMayBeSuspended: Bool { scheduler.mayBeSuspended }
}
