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
    // @unchecked: `state` is guarded by `lock`, a lock of the tracker's own (it exists only
    // for procedures whose progress someone asked for); `id` and the weak `source` are set once. Nothing runs under it but stores and
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

    /// Everything about the tracker that changes, in one value guarded by `lock`.
    private struct State {
        var mode: Mode
        var stage = Stage.running
        var finished = false
        var total: Int64 = 0
        var completed: Int64 = 0
        var stoppedFraction = 0.0
        var version: UInt64 = 0

        // A group's children (mode `children`).
        var running: [ObjectIdentifier: Child] = [:]
        /// Every child ever counted, so that one reported twice is counted once.
        var counted: Set<ObjectIdentifier> = []
        var weights: [ObjectIdentifier: Int64] = [:]
        /// Σ portion × fraction of the running children, and of the children that finished
        /// cancelled (which stay where they stopped).
        var inFlight = 0.0
        var cutShort = 0.0

        // The group this procedure is a child of.
        var parent: ProgressTracker?

        // Reading a source: one read at a time, repeated while changes arrive during it.
        var reading = false
        var unread = false
        var polling = false
        var poll: (any Cancelable)?

        var observations: [ProgressObservation] = []

        // The Foundation object, written by one thread at a time (corelibs' `Progress` has no lock).
        var mirror: TrackedProgress?
        var mirroring = false
        var mirrorOutdated = false

        init(mode: Mode) { self.mode = mode }

        var fraction: Double {
            switch stage {
            case .complete: return 1
            case .stopped: return stoppedFraction
            case .running:
                guard total > 0 else { return 0 }
                let done = Double(completed) + (mode == .children ? inFlight + cutShort : 0)
                return min(1, max(0, done / Double(total)))
            }
        }

        var update: ProgressUpdate {
            ProgressUpdate(
                fractionCompleted: fraction, completedUnitCount: completed, totalUnitCount: total,
                isCancelled: stage == .stopped, isFinal: finished)
        }

        /// Marks a change of the tracker `id` and says what to tell about it.
        mutating func changed(_ id: ObjectIdentifier) -> Publication {
            version &+= 1
            var publication = Publication()
            if let parent { publication.parent = (parent, id, fraction, version) }
            // The observations' delivery fields are guarded by this same lock.
            for observation in observations where observation.phase == .idle && !observation.ended {
                observation.phase = .scheduled
                publication.observations.append((observation, observation.lastDelivery))
            }
            publication.mirror = mirror != nil
            return publication
        }
    }

    private let lock = InlineLock()
    /// The procedure's identity (how its group knows it).
    let id: ObjectIdentifier
    /// The procedure, for the units of a source. Weak: the procedure holds its tracker.
    private weak var source: (any ProgressUnitsSource)?
    // Unchecked: only touched under `lock`, which already excludes every other access.
    @exclusivity(unchecked) private var state: State

    init(procedure: Procedure, source: (any ProgressUnitsSource)?) {
        id = ObjectIdentifier(procedure)
        self.source = source
        state = State(mode: source != nil ? .source : (procedure.role == .group ? .children : .own))
    }

    // MARK: - Reading

    /// True while the tracker counts a group's children.
    var countsChildren: Bool { lock.withLock { state.mode == .children } }

    /// The state now (a source's units read first, so that time waited or bytes moved are
    /// as of this moment rather than the last poll).
    var update: ProgressUpdate {
        if lock.withLock({ state.mode == .source && state.stage == .running }) { sourceDidChange() }
        return lock.withLock { state.update }
    }

    // MARK: - Changing

    /// Units set by hand (nil: unchanged); the tracker keeps its own units from now on.
    func setUnits(completed newCompleted: Int64? = nil, total newTotal: Int64? = nil) {
        publish(lock.withLock { () -> Publication? in
            guard state.stage == .running else { return nil }
            if state.mode != .own {
                state.mode = .own
                state.running = [:]
                state.inFlight = 0
                state.cutShort = 0
            }
            if let newCompleted { state.completed = newCompleted }
            if let newTotal { state.total = newTotal }
            return state.changed(id)
        })
    }

    /// The source's state changed: read it (now, or right after the read under way).
    func sourceDidChange() {
        let start = lock.withLock { () -> Bool in
            guard state.mode == .source, state.stage == .running else { return false }
            state.unread = true
            if state.reading { return false }
            state.reading = true
            return true
        }
        guard start else { return }
        while true {
            lock.withLock { state.unread = false }
            // Read outside the lock: the source takes its own.
            let units = source?.progressUnits
            let (publication, again) = lock.withLock { () -> (Publication?, Bool) in
                var publication: Publication?
                if let units, state.mode == .source, state.stage == .running, units.completed != state.completed || units.total != state.total {
                    state.completed = units.completed
                    state.total = units.total
                    publication = state.changed(id)
                }
                if !state.unread || units == nil || state.stage != .running { state.reading = false }
                return (publication, state.reading)
            }
            publish(publication)
            if !again { return }
        }
    }

    /// The procedure was cancelled: the progress stops where it is.
    func stop() {
        publish(lock.withLock { () -> Publication? in
            guard state.stage == .running else { return nil }
            state.stoppedFraction = state.fraction
            state.stage = .stopped
            return state.changed(id)
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
            if state.stage == .running {
                state.stage = .complete
                if state.total > 0 { state.completed = max(state.completed, state.total) } else { (state.completed, state.total) = (1, 1) }
                changed = true
            }
            if final && !state.finished {
                state.finished = true
                changed = true
            }
            return changed ? state.changed(id) : nil
        })
        stopPolling()
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
            guard state.stage == .running, !state.polling, interval > 0 else { return false }
            state.polling = true
            return true
        }
        if start { scheduleTick(every: interval, clock: clock) }
    }

    private func scheduleTick(every interval: TimeInterval, clock: any ProcedureClock) {
        let tick = clock.schedule(after: interval) { [self] in
            sourceDidChange()
            if lock.withLock({ state.polling }) { scheduleTick(every: interval, clock: clock) }
        }
        let stale = lock.withLock { () -> (any Cancelable)? in
            guard state.polling else { return tick }
            state.poll = tick
            return nil
        }
        stale?.cancel()
    }

    private func stopPolling() {
        let tick = lock.withLock { () -> (any Cancelable)? in
            state.polling = false
            defer { state.poll = nil }
            return state.poll
        }
        tick?.cancel()
    }

    // MARK: - A group's children

    /// Sets the weight `child` will have once counted (ignored once it is).
    func setWeight(_ weight: Int64, for child: ObjectIdentifier) {
        lock.withLock { if !state.counted.contains(child) { state.weights[child] = max(0, weight) } }
    }

    /// Starts counting `child` (once, however often it is reported), as done if it has
    /// finished; `tracker` is its own, for a procedure.
    func count(_ child: Operation, tracker childTracker: ProgressTracker?) {
        let key = ObjectIdentifier(child)
        let added = lock.withLock { () -> Publication? in
            guard state.mode == .children, state.stage == .running, state.counted.insert(key).inserted else { return nil }
            let portion = state.weights.removeValue(forKey: key) ?? 1
            state.running[key] = Child(portion: portion)
            state.total += portion
            return state.changed(id)
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
            guard state.mode == .children, state.stage == .running, var child = state.running[key], childVersion >= child.version else {
                return nil
            }
            state.inFlight += Double(child.portion) * (fraction - child.fraction)
            child.fraction = fraction
            child.version = childVersion
            state.running[key] = child
            return state.changed(id)
        })
    }

    /// A child finished: its whole portion is done, or, if it was cancelled, the part it had done.
    func childFinished(_ key: ObjectIdentifier, cancelled: Bool) {
        publish(lock.withLock { () -> Publication? in
            guard state.mode == .children, state.stage == .running, let child = state.running.removeValue(forKey: key) else { return nil }
            state.inFlight -= Double(child.portion) * child.fraction
            if state.running.isEmpty { state.inFlight = 0 }  // no rounding drift left behind
            if cancelled {
                state.cutShort += Double(child.portion) * child.fraction
            } else {
                state.completed += child.portion
            }
            return state.changed(id)
        })
    }

    /// Makes this tracker a child of `group`'s: its changes go up from now on.
    private func setParent(_ group: ProgressTracker) {
        let current = lock.withLock { () -> (Double, UInt64)? in
            guard state.parent == nil else { return nil }
            state.parent = group
            return (state.fraction, state.version)
        }
        if let (fraction, version) = current { group.childChanged(id, fraction: fraction, version: version) }
    }

    // MARK: - Observers

    /// Adds `observation` and schedules its first delivery (the state now).
    func add(_ observation: ProgressObservation) {
        let last = lock.withLock { () -> TimeInterval in
            state.observations.append(observation)
            observation.phase = .scheduled
            return observation.lastDelivery
        }
        observation.schedule(after: last)
    }

    func remove(_ observation: ProgressObservation) {
        lock.withLock {
            observation.ended = true
            state.observations.removeAll { $0 === observation }
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
            observation.delivered = state.version
            observation.lastDelivery = now
            return state.update
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
                state.observations.removeAll { $0 === observation }
                return wasEnded ? .none : .end
            }
            guard observation.delivered == state.version else {
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
        if let existing = lock.withLock({ state.mirror }) { return existing }
        // Made outside the lock (Foundation's initialiser); the first one published wins.
        let made = TrackedProgress(tracker: self, procedure: procedure)
        let (winner, won) = lock.withLock { () -> (TrackedProgress, Bool) in
            if let mirror = state.mirror { return (mirror, false) }
            state.mirror = made
            return (made, true)
        }
        if won { updateMirror() }
        return winner
    }

    /// Brings the Foundation object up to date, one writer at a time: a thread that finds
    /// another writing leaves the latest state for it to write.
    private func updateMirror() {
        let start = lock.withLock { () -> Bool in
            guard state.mirror != nil else { return false }
            state.mirrorOutdated = true
            if state.mirroring { return false }
            state.mirroring = true
            return true
        }
        guard start else { return }
        while true {
            let target = lock.withLock { () -> (TrackedProgress, ProgressUpdate)? in
                guard state.mirrorOutdated, let mirror = state.mirror else {
                    state.mirroring = false
                    return nil
                }
                state.mirrorOutdated = false
                return (mirror, state.update)
            }
            guard let (mirror, update) = target else { return }
            mirror.show(update)
        }
    }
}
