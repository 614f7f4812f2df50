import Foundation
import ProceduresSupport

/// The Foundation `Progress` a procedure hands out: its unit counts and fraction are read
/// from, and its unit counts written to, the procedure's ``ProgressTracker``.
///
/// So code on Apple platforms binds it as usual (key-value observing `fractionCompleted`,
/// adding it to a parent `Progress` with `addChild(_:withPendingUnitCount:)`), and code on
/// Linux, where corelibs' `Progress` has neither key-value observing nor a lock, reads the
/// unit counts, `isFinished` and `isIndeterminate` safely from any thread. Foundation's own
/// storage is kept in step by the tracker, one writer at a time, in millionths (`show(_:)`),
/// so that `fractionCompleted` (which corelibs does not let a subclass override), a parent
/// `Progress` and key-value observers see a group's children's partial progress too.
///
/// Cancelling it (`cancel()`, a system progress UI's cancel button) cancels the procedure; a
/// cancelled procedure's progress reads `isCancelled`.
final class TrackedProgress: Progress, @unchecked Sendable {
    // @unchecked: `tracker` is set once, by `init`; Foundation's storage is written only by
    // `show(_:)`, which the tracker calls from one thread at a time.
    /// Weak: the tracker holds this object. Once the procedure (and its tracker) is gone, the
    /// values last shown stay.
    private weak var tracker: ProgressTracker?
    private static let scale: Int64 = 1_000_000

    init(tracker: ProgressTracker, procedure: Procedure) {
        self.tracker = tracker
        // No parent: `Progress(totalUnitCount:)` would attach to the calling thread's
        // current progress, whatever that belongs to.
        super.init(parent: nil, userInfo: nil)
        isCancellable = true
        cancellationHandler = { [weak procedure] in procedure?.cancel() }
    }

    /// The total units: the procedure's, or, for a group, the sum of its children's weights.
    /// Setting it sets the procedure's own units (the library stops filling them in).
    override var totalUnitCount: Int64 {
        get { tracker?.update.totalUnitCount ?? super.totalUnitCount }
        set {
            if let tracker { tracker.setUnits(total: newValue) } else { super.totalUnitCount = newValue }
        }
    }

    /// The units done. Setting it sets the procedure's own units (the library stops filling
    /// them in). `+=` is a read and a write: from several threads, use a lock of your own.
    override var completedUnitCount: Int64 {
        get { tracker?.update.completedUnitCount ?? super.completedUnitCount }
        set {
            if let tracker { tracker.setUnits(completed: newValue) } else { super.completedUnitCount = newValue }
        }
    }

    override var isFinished: Bool {
        guard let update = tracker?.update else { return super.isFinished }
        return update.fractionCompleted >= 1
    }

    override var isIndeterminate: Bool {
        guard let update = tracker?.update else { return super.isIndeterminate }
        return update.isIndeterminate && update.fractionCompleted < 1
    }

    /// Writes `update` into Foundation's own storage (fraction in millionths), and its
    /// cancellation. Called by the tracker, one thread at a time.
    func show(_ update: ProgressUpdate) {
        assertNoLibraryLockHeld("Progress's unit counts (Foundation's key-value observers)")
        super.totalUnitCount = Self.scale
        super.completedUnitCount = Int64((update.fractionCompleted * Double(Self.scale)).rounded())
        if update.isCancelled && !super.isCancelled { cancel() }
    }
}
