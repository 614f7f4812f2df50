import Foundation

// A group's progress is its children's (see `ProgressTracker`, mode `children`). The group
// tells its tracker, if it has one, of every child it adopts and of every child that
// finishes; a tracker made later counts the children the group already has.
extension GroupProcedure {
    /// Adds `child`, counting it for `weight` units of the group's progress (children added
    /// with ``addChild(_:)`` count for 1). A child with twice the weight of another moves
    /// the group's progress twice as far by the time it is done.
    ///
    /// ```swift
    /// let install = GroupProcedure()
    /// install.addChild(download, progressWeight: 8)  // most of the time goes here
    /// install.addChild(unpack, progressWeight: 2)
    /// ```
    ///
    /// Children are counted from the moment the group's progress is first asked for; a weight
    /// makes the group track its progress from now on.
    public final func addChild(_ child: Operation, progressWeight weight: Int64) {
        makeProgressTracker().setWeight(weight, for: ObjectIdentifier(child))
        addChild(child)
    }

    /// Counts every child adopted so far in `tracker` (just made for this group).
    func countChildren(in tracker: ProgressTracker) {
        for child in children { count(child, in: tracker) }
    }

    /// Called by the group as it adopts a child, with its tracker (read with its lock held).
    func progressDidAdopt(_ child: Operation, tracker: ProgressTracker) {
        guard tracker.countsChildren else { return }
        count(child, in: tracker)
    }

    /// Called by the group when a child finished.
    func progressChildDidFinish(_ child: Operation) {
        guard let tracker = existingProgressTracker, tracker.countsChildren else { return }
        tracker.childFinished(ObjectIdentifier(child), cancelled: child.isCancelled)
    }

    private func count(_ child: Operation, in tracker: ProgressTracker) {
        // A child still to run gets a tracker of its own, so its partial progress counts; a
        // finished one counts with the one it has (where a cancel stopped it), if any.
        let childTracker = (child as? Procedure).flatMap {
            $0.isFinished ? $0.existingProgressTracker : $0.makeProgressTracker()
        }
        tracker.count(child, tracker: childTracker)
    }
}
