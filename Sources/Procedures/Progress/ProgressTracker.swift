import Foundation
import ProceduresSupport

/// The thread-safe record of one procedure's progress, made the first time anyone asks for
/// it (``Procedure/progress``, an observer, a group tracking its children, a weight): a
/// procedure nobody asks about never has one, and pays one nil field.
///
/// Its units come from one of three places (its mode):
/// - **own**: set by the procedure (``Procedure/progress``'s unit counts, a reduction's loop, a
///   process's output lines);
/// - **source**: read from the procedure's own state when it says something changed, or on a
///   clock while it runs (batches, repeats, delays, network transfers: see
///   ``ProgressUnitsSource``);
/// - **children**: a group's, as Foundation counts a parent's: each child has a portion of
///   the total (its weight, 1 unless given), a finished child counts its whole portion as
///   completed, a running one the part it has done. Setting units by hand switches a tracker
///   to **own**.
///
/// A procedure that finishes is complete (100 %); one that is cancelled stops where it was
/// and nothing moves it any more. Every change bumps a version and is published, outside the
/// lock, to the parent's tracker (with the version, so that two updates racing up the tree
/// cannot leave the older one last), to the observers (coalesced, see ``ProgressObservation``)
/// and to the Foundation `Progress` if one was made (see ``TrackedProgress``).
final class ProgressTracker: @unchecked Sendable {
    // @unchecked: every `var` is guarded by `lock`, a lock of the tracker's own (it exists only
    // for procedures whose progress someone asked for). Nothing runs under it but stores and
    // arithmetic: no user code, no other object's lock, no Foundation call.
    enum Mode { case own, source, children }
    enum Stage { case running, complete, stopped }

    /// A running child of a group, as the group counts it.
    private struct Child {
        var portion: Int64
        var fraction: Double = 0
        var version: UInt64 = 0
    }

    /// What a change must be told to, once the lock is released.
    struct Publication {
        var parent: (tracker: ProgressTracker, child: ObjectIdentifier, fraction: Double, version: UInt64)?
        var observations: [(ProgressObservation, TimeInterval)] = []
        var mirror = false
    }

    private let lock = InlineLock()
    /// The procedure's identity (how its group knows it).
    let id: ObjectIdentifier
    /// The procedure, for the units of a source. Weak: the procedure holds its tracker.
    private weak var source: (any ProgressUnitsSource)?

    @exclusivity(unchecked) private var mode: Mode
    @exclusivity(unchecked) private var stage = Stage.running
    @exclusivity(unchecked) private var finished = false
    @exclusivity(unchecked) private var total: Int64 = 0
    @exclusivity(unchecked) private var completed: Int64 = 0
    @exclusivity(unchecked) private var stoppedFraction = 0.0
    @exclusivity(unchecked) private var version: UInt64 = 0

    // A group's children (mode `children`).
    @exclusivity(unchecked) private var running: [ObjectIdentifier: Child] = [:]
    /// Every child ever counted, so that one reported twice is counted once.
    @exclusivity(unchecked) private var counted: Set<ObjectIdentifier> = []
    @exclusivity(unchecked) private var weights: [ObjectIdentifier: Int64] = [:]
    /// Σ portion × fraction of the running children, and of the children that finished
    /// cancelled (which stay where they stopped).
    @exclusivity(unchecked) private var inFlight = 0.0
    @exclusivity(unchecked) private var cutShort = 0.0

    // The group this procedure is a child of.
    @exclusivity(unchecked) private var parent: ProgressTracker?

    // Reading a source: one read at a time, repeated while changes arrive during it.
    @exclusivity(unchecked) private var reading = false
    @exclusivity(unchecked) private var unread = false
    @exclusivity(unchecked) private var polling = false
    @exclusivity(unchecked) private var poll: (any Cancelable)?

    @exclusivity(unchecked) private var observations: [ProgressObservation] = []

    // The Foundation object, written by one thread at a time (corelibs' `Progress` has no lock).
    @exclusivity(unchecked) private var mirror: TrackedProgress?
    @exclusivity(unchecked) private var mirroring = false
    @exclusivity(unchecked) private var mirrorOutdated = false

    init(procedure: Procedure, source: (any ProgressUnitsSource)?) {
        id = ObjectIdentifier(procedure)
        self.source = source
        mode = source != nil ? .source : (procedure.role == .group ? .children : .own)
    }

    // MARK: - Reading

    /// True while the tracker counts a group's children.
    var countsChildren: Bool { lock.withLock { mode == .children } }

    /// The state now (a source's units read first, so that time waited or bytes moved are
    /// as of this moment rather than the last poll).
    var update: ProgressUpdate {
        if lock.withLock({ mode == .source && stage == .running }) { sourceDidChange() }
        return lock.withLock { updateLocked() }
    }

    private func updateLocked() -> ProgressUpdate {
        ProgressUpdate(
            fractionCompleted: fractionLocked(), completedUnitCount: completed, totalUnitCount: total,
            isCancelled: stage == .stopped, isFinal: finished)
    }

    private func fractionLocked() -> Double {
        switch stage {
        case .complete: return 1
        case .stopped: return stoppedFraction
        case .running:
            guard total > 0 else { return 0 }
            let done = Double(completed) + (mode == .children ? inFlight + cutShort : 0)
            return min(1, max(0, done / Double(total)))
        }
    }

    // MARK: - Changing

    /// Units set by hand (nil: unchanged); the tracker keeps its own units from now on.
    func setUnits(completed newCompleted: Int64? = nil, total newTotal: Int64? = nil) {
        publish(lock.withLock { () -> Publication? in
            guard stage == .running else { return nil }
            if mode != .own {
                mode = .own
                running = [:]
                inFlight = 0
                cutShort = 0
            }
            if let newCompleted { completed = newCompleted }
            if let newTotal { total = newTotal }
            return changedLocked()
        })
    }

    /// The source's state changed: read it (now, or right after the read under way).
    func sourceDidChange() {
        let start = lock.withLock { () -> Bool in
            guard mode == .source, stage == .running else { return false }
            unread = true
            if reading { return false }
            reading = true
            return true
        }
        guard start else { return }
        while true {
            lock.withLock { unread = false }
            // Read outside the lock: the source takes its own.
            let units = source?.progressUnits
            let (publication, again) = lock.withLock { () -> (Publication?, Bool) in
                var publication: Publication?
                if let units, mode == .source, stage == .running, units.completed != completed || units.total != total {
                    completed = units.completed
                    total = units.total
                    publication = changedLocked()
                }
                if !unread || units == nil || stage != .running { reading = false }
                return (publication, reading)
            }
            publish(publication)
            if !again { return }
        }
    }

    /// The procedure was cancelled: the progress stops where it is.
    func stop() {
        publish(lock.withLock { () -> Publication? in
            guard stage == .running else { return nil }
            stoppedFraction = fractionLocked()
            stage = .stopped
            return changedLocked()
        })
        stopPolling()
    }

    /// The procedure is finishing (`final`: has finished): complete, unless it was cancelled.
    func procedureFinishing(cancelled: Bool, final: Bool) {
        if cancelled {
            stop()
        } else {
            sourceDidChange()  // the last units (bytes, elements), before completing them
        }
        publish(lock.withLock { () -> Publication? in
            var changed = false
            if stage == .running {
                stage = .complete
                if total > 0 { completed = max(completed, total) } else { (completed, total) = (1, 1) }
                changed = true
            }
            if final && !finished {
                finished = true
                changed = true
            }
            return changed ? changedLocked() : nil
        })
        stopPolling()
    }

    /// Marks a change (under the lock) and says what to tell about it.
    private func changedLocked() -> Publication {
        version &+= 1
        var publication = Publication()
        if let parent { publication.parent = (parent, id, fractionLocked(), version) }
        for observation in observations where observation.phase == .idle && !observation.ended {
            observation.phase = .scheduled
            publication.observations.append((observation, observation.lastDelivery))
        }
        publication.mirror = mirror != nil
        return publication
    }

    private func publish(_ publication: Publication?) {
        guard let publication else { return }
        if let parent = publication.parent {
            parent.tracker.childChanged(parent.child, fraction: parent.fraction, version: parent.version)
        }
        for (observation, last) in publication.observations { observation.schedule(after: last) }
        if publication.mirror { updateMirror() }
    }

    // MARK: - Polling a source

    /// Reads the source every `interval` seconds of `clock` until the procedure finishes or
    /// is cancelled (once, however often it is asked).
    func startPolling(every interval: TimeInterval, clock: any ProcedureClock) {
        let start = lock.withLock { () -> Bool in
            guard stage == .running, !polling, interval > 0 else { return false }
            polling = true
            return true
        }
        if start { scheduleTick(every: interval, clock: clock) }
    }

    private func scheduleTick(every interval: TimeInterval, clock: any ProcedureClock) {
        let tick = clock.schedule(after: interval) { [self] in
            sourceDidChange()
            if lock.withLock({ polling }) { scheduleTick(every: interval, clock: clock) }
        }
        let stale = lock.withLock { () -> (any Cancelable)? in
            guard polling else { return tick }
            poll = tick
            return nil
        }
        stale?.cancel()
    }

    private func stopPolling() {
        let tick = lock.withLock { () -> (any Cancelable)? in
            polling = false
            defer { poll = nil }
            return poll
        }
        tick?.cancel()
    }

    // MARK: - A group's children

    /// Sets the weight `child` will have once counted (ignored once it is).
    func setWeight(_ weight: Int64, for child: ObjectIdentifier) {
        lock.withLock { if !counted.contains(child) { weights[child] = max(0, weight) } }
    }

    /// Starts counting `child` (once, however often it is reported), as done if it has
    /// finished; `tracker` is its own, for a procedure.
    func count(_ child: Operation, tracker childTracker: ProgressTracker?) {
        let key = ObjectIdentifier(child)
        let added = lock.withLock { () -> Publication? in
            guard mode == .children, stage == .running, counted.insert(key).inserted else { return nil }
            let portion = weights.removeValue(forKey: key) ?? 1
            running[key] = Child(portion: portion)
            total += portion
            return changedLocked()
        }
        guard added != nil else { return }
        publish(added)
        childTracker?.setParent(self)
        // Read after it is counted: a child that finished before it was is counted out here;
        // one that finishes later is counted out when its group hears of it. Either way once.
        if child.isFinished { childFinished(key, cancelled: child.isCancelled) }
    }

    /// A running child's progress changed (ignored if older than what was already seen).
    func childChanged(_ key: ObjectIdentifier, fraction: Double, version childVersion: UInt64) {
        publish(lock.withLock { () -> Publication? in
            // `>=`: a child's first report may repeat the version the group started it at.
            guard mode == .children, stage == .running, var child = running[key], childVersion >= child.version else {
                return nil
            }
            inFlight += Double(child.portion) * (fraction - child.fraction)
            child.fraction = fraction
            child.version = childVersion
            running[key] = child
            return changedLocked()
        })
    }

    /// A child finished: its whole portion is done, or, if it was cancelled, the part it had done.
    func childFinished(_ key: ObjectIdentifier, cancelled: Bool) {
        publish(lock.withLock { () -> Publication? in
            guard mode == .children, stage == .running, let child = running.removeValue(forKey: key) else { return nil }
            inFlight -= Double(child.portion) * child.fraction
            if running.isEmpty { inFlight = 0 }  // no rounding drift left behind
            if cancelled {
                cutShort += Double(child.portion) * child.fraction
            } else {
                completed += child.portion
            }
            return changedLocked()
        })
    }

    /// Makes this tracker a child of `group`'s: its changes go up from now on.
    private func setParent(_ group: ProgressTracker) {
        let current = lock.withLock { () -> (Double, UInt64)? in
            guard parent == nil else { return nil }
            parent = group
            return (fractionLocked(), version)
        }
        if let (fraction, version) = current { group.childChanged(id, fraction: fraction, version: version) }
    }

    // MARK: - Observers

    /// Adds `observation` and schedules its first delivery (the state now).
    func add(_ observation: ProgressObservation) {
        let last = lock.withLock { () -> TimeInterval in
            observations.append(observation)
            observation.phase = .scheduled
            return observation.lastDelivery
        }
        observation.schedule(after: last)
    }

    func remove(_ observation: ProgressObservation) {
        lock.withLock {
            observation.ended = true
            observations.removeAll { $0 === observation }
        }
    }

    /// Runs one delivery of `observation`: the latest state, then another delivery if it
    /// changed meanwhile, or the end if that was the final one.
    func deliver(to observation: ProgressObservation) {
        let now = observation.clock.now
        let update = lock.withLock { () -> ProgressUpdate? in
            guard !observation.ended else {
                observation.phase = .idle
                return nil
            }
            observation.phase = .delivering
            observation.delivered = version
            observation.lastDelivery = now
            return updateLocked()
        }
        guard let update else { return }
        assertNoLibraryLockHeld("a progress observer's handler")
        observation.handler(update)
        enum Next { case none, again(TimeInterval), end }
        let next = lock.withLock { () -> Next in
            if update.isFinal || observation.ended {
                let wasEnded = observation.ended
                observation.ended = true
                observation.phase = .idle
                observations.removeAll { $0 === observation }
                return wasEnded ? .none : .end
            }
            guard observation.delivered == version else {
                observation.phase = .scheduled
                return .again(observation.lastDelivery)
            }
            observation.phase = .idle
            return .none
        }
        switch next {
        case .none: break
        case .again(let last): observation.schedule(after: last)
        case .end:
            assertNoLibraryLockHeld("a progress observer's end handler")
            observation.onEnd?()
        }
    }

    // MARK: - The Foundation object

    /// The Foundation `Progress` that shows this tracker, made on first use.
    func foundationProgress(for procedure: Procedure) -> Progress {
        if let existing = lock.withLock({ mirror }) { return existing }
        // Made outside the lock (Foundation's initialiser); the first one published wins.
        let made = TrackedProgress(tracker: self, procedure: procedure)
        let (winner, won) = lock.withLock { () -> (TrackedProgress, Bool) in
            if let mirror { return (mirror, false) }
            mirror = made
            return (made, true)
        }
        if won { updateMirror() }
        return winner
    }

    /// Brings the Foundation object up to date, one writer at a time: a thread that finds
    /// another writing leaves the latest state for it to write.
    private func updateMirror() {
        let start = lock.withLock { () -> Bool in
            guard mirror != nil else { return false }
            mirrorOutdated = true
            if mirroring { return false }
            mirroring = true
            return true
        }
        guard start else { return }
        while true {
            let target = lock.withLock { () -> (TrackedProgress, ProgressUpdate)? in
                guard mirrorOutdated, let mirror else {
                    mirroring = false
                    return nil
                }
                mirrorOutdated = false
                return (mirror, updateLocked())
            }
            guard let (mirror, update) = target else { return }
            mirror.show(update)
        }
    }
}
