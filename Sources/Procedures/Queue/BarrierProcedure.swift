import Foundation

/// The operation behind ``ProcedureQueue/addBarrierBlock(_:)``: a procedure, so that the
/// procedures added after it wait for it in the queue's own dependency tracking (linear)
/// rather than in Foundation's queue (rescanned on every event).
final class BarrierProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `block` is immutable.
    private let block: @Sendable () -> Void

    init(block: @escaping @Sendable () -> Void) {
        self.block = block
        super.init()
        name = "barrier"
    }

    override func execute() {
        block()
        finish()
    }
}
