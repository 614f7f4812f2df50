import Foundation

/// A child of a ``RepeatProcedure`` between its wait and its next operation: it asks for
/// the repeat's slot again and finishes once the repeat holds one, so the next operation
/// runs within the width of the repeat's owner.
final class SlotReacquisition: Procedure, @unchecked Sendable {
    // @unchecked: `holder` is immutable (weak: the holder owns this child).
    private weak var holder: Procedure?

    init(for holder: Procedure) {
        self.holder = holder
        super.init()
    }

    override func execute() {
        guard let holder else { return finish() }
        holder.reacquireSlot { [self] in finishAutomatically() }
    }

    /// Cancelled with the repeat: it finishes without waiting for the slot (a slot granted
    /// later to a finished repeat goes straight back).
    override func procedureDidCancel(withErrors errors: [any Error]) {
        finishAutomatically()
    }
}
