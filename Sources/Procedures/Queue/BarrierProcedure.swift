import Foundation

/// The operation behind ``ProcedureQueue/addBarrierBlock(_:)``: a procedure, so that the
/// procedures added after it wait for it in the queue's own dependency tracking (linear)
/// rather than in Foundation's queue (rescanned on every event).
final class BarrierProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `block` is touched only by `execute()` and `procedureDidFinish`, which the
    // procedure's event mailbox runs one at a time.
    private var block: (@Sendable () -> Void)?

    init(block: @escaping @Sendable () -> Void) {
        self.block = block
        super.init(role: .barrier)
        name = "barrier"
    }

    override func execute() {
        block?()
        finish()
    }

    /// Lets go of what the barrier kept alive: its block (cancelled, it never ran) and the
    /// plain operations it waited for (Foundation holds a finished operation's dependencies).
    override func procedureDidFinish(withErrors errors: [any Error]) {
        block = nil
        releasePlainDependencies()
    }
}
