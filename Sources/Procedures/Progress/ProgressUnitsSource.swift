import Foundation

/// A procedure whose progress the library reads from its own state (elements done, attempts
/// made, time waited, bytes moved) instead of being told each change.
///
/// The procedure calls ``Procedure/progressSourceDidChange()`` when the state changes (cheap
/// when nobody tracks its progress: one read under its lock), or, for a state that moves by
/// itself (time, bytes on the wire), ``Procedure/pollProgress(every:clock:)`` while it runs
/// and someone does track it.
package protocol ProgressUnitsSource: AnyObject {
    /// The units now. Called with no library lock held; read your state under your own lock.
    var progressUnits: ProgressUnits { get }

    /// Someone began tracking the procedure's progress (it was not tracked before): start
    /// polling here if the procedure is already running and its state moves by itself.
    func progressTrackingBegan()
}

extension ProgressUnitsSource {
    /// Nothing to start.
    package func progressTrackingBegan() {}
}
