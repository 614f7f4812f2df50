import Foundation

// Every procedure's progress: made on first use (see `ProgressTracker`), so that a procedure
// whose progress nobody asks for pays one nil field and nothing else.
extension Procedure {
    /// How much of the procedure's work is done, as a Foundation `Progress`.
    ///
    /// The library fills it in where it knows the work: a ``GroupProcedure``'s is its
    /// children's, weighted (see ``GroupProcedure/addChild(_:progressWeight:)``), children added
    /// later included; a ``BatchProcedure`` counts elements, a ``ReduceProcedure`` elements
    /// folded, ``RepeatProcedure`` and ``RetryProcedure`` attempts, a ``DelayProcedure``
    /// milliseconds waited on its clock, the network procedures bytes, and a
    /// `ProcessProcedure` (in `ProceduresProcess`) what its output lines say (see its
    /// `reportProgress(fromOutputLines:)`). Any other procedure sets its own units:
    ///
    /// ```swift
    /// final class CopyFiles: Procedure, @unchecked Sendable {
    ///     let files: [URL]
    ///     init(files: [URL]) {
    ///         self.files = files
    ///         super.init()
    ///     }
    ///     override func execute() {
    ///         progress.totalUnitCount = Int64(files.count)
    ///         for (index, _) in files.enumerated() {
    ///             // … copy one file …
    ///             progress.completedUnitCount = Int64(index + 1)
    ///         }
    ///         finish()
    ///     }
    /// }
    /// ```
    ///
    /// Setting units replaces what the library would fill in. A finished procedure reports
    /// 100 %; a cancelled one stops where it was (and its `Progress` reads `isCancelled`);
    /// cancelling the `Progress` cancels the procedure.
    ///
    /// The object is made the first time it is asked for (making corelibs' `Progress` costs
    /// about half a trivial procedure's whole run). Its unit counts, `isFinished` and
    /// `isIndeterminate` are safe to read from any thread, on Linux too. On Linux its
    /// `fractionCompleted` is corelibs' own, computed from storage the library updates while
    /// the procedure runs, without a lock (corelibs lets no subclass override it): from
    /// another thread, read ``currentProgress`` instead. Linux has no key-value observing:
    /// watch the progress with ``observeProgress(minimumInterval:clock:_:)`` or
    /// ``progressUpdates(minimumInterval:clock:)``, which work everywhere.
    public final var progress: Progress {
        makeProgressTracker().foundationProgress(for: self)
    }

    /// The procedure's progress now, without making a Foundation `Progress`.
    public final var currentProgress: ProgressUpdate {
        makeProgressTracker().update
    }

    /// Calls `handler` with the procedure's progress: at once, then as it changes, until the
    /// procedure has finished (the last call has ``ProgressUpdate/isFinal``) or the returned
    /// handle is cancelled.
    ///
    /// Calls are coalesced, so that a million updates do not make a million calls: they never
    /// overlap, each carries the latest progress, and two begin at least `minimumInterval`
    /// seconds of `clock` apart (pass 0 for "as soon as the last call returned"). The last
    /// update is always delivered. `handler` runs on a Dispatch thread, with no library lock
    /// held.
    ///
    /// ```swift
    /// let watching = download.observeProgress { update in
    ///     print("downloaded \(update.completedUnitCount) of \(update.totalUnitCount) bytes")
    /// }
    /// ```
    @discardableResult
    public final func observeProgress(
        minimumInterval: TimeInterval = 0.05, clock: any ProcedureClock = SystemClock.shared,
        _ handler: @escaping @Sendable (ProgressUpdate) -> Void
    ) -> any Cancelable {
        observeProgress(minimumInterval: minimumInterval, clock: clock, onEnd: nil, handler)
    }

    /// The procedure's progress as an asynchronous sequence: the progress now, then its
    /// changes, coalesced as for ``observeProgress(minimumInterval:clock:_:)`` and, if the
    /// loop is slower than that, down to the latest one. It ends after the final update, once
    /// the procedure has finished; leaving the loop stops the observation.
    ///
    /// ```swift
    /// for await update in batch.progressUpdates() {
    ///     bar.value = update.fractionCompleted
    /// }
    /// ```
    public final func progressUpdates(
        minimumInterval: TimeInterval = 0.05, clock: any ProcedureClock = SystemClock.shared
    ) -> AsyncStream<ProgressUpdate> {
        AsyncStream(ProgressUpdate.self, bufferingPolicy: .bufferingNewest(1)) { continuation in
            let observation = observeProgress(
                minimumInterval: minimumInterval, clock: clock, onEnd: { continuation.finish() }
            ) { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    private func observeProgress(
        minimumInterval: TimeInterval, clock: any ProcedureClock, onEnd: (@Sendable () -> Void)?,
        _ handler: @escaping @Sendable (ProgressUpdate) -> Void
    ) -> any Cancelable {
        let tracker = makeProgressTracker()
        let observation = ProgressObservation(
            tracker: tracker, minimumInterval: minimumInterval, clock: clock, onEnd: onEnd, handler: handler)
        tracker.add(observation)
        return observation
    }

    /// Sets the procedure's own units: `completed` done of `total` (0 or less: not known yet).
    ///
    /// The cheap way for a subclass to report progress: while nobody tracks the procedure's
    /// progress it costs one short lock and two stores, and no Foundation `Progress` is made (the
    /// units are there once someone asks). Setting ``progress``'s unit counts does the same,
    /// after making the Foundation object. Like them, it replaces what the library would fill in.
    ///
    /// ```swift
    /// override func execute() {
    ///     for (index, row) in rows.enumerated() {
    ///         import(row)
    ///         reportProgress(completed: Int64(index + 1), of: Int64(rows.count))
    ///     }
    ///     finish()
    /// }
    /// ```
    public final func reportProgress(completed: Int64, of total: Int64) {
        let units = ProgressUnits(completed: completed, of: total)
        lock.withLock { recordProgressLocked(units) }?.setUnits(completed: completed, total: total)
    }

    // MARK: - For the library's procedures

    /// The tracker, made (and brought up to date) if it does not exist yet.
    func makeProgressTracker() -> ProgressTracker {
        if let existing = existingProgressTracker { return existing }
        let source = self as? ProgressUnitsSource
        let made = ProgressTracker(procedure: self, source: source)
        let (existing, reported) = lock.withLock { () -> (ProgressTracker?, ProgressUnits?) in
            switch state.progress {
            case .tracked(let tracker):
                return (tracker, nil)
            case .untracked(let units):
                state.progress = .tracked(made)
                return (nil, units)
            }
        }
        if let existing { return existing }
        if let reported { made.setUnits(completed: reported.completed, total: reported.total) }
        // Set up outside the lock. A cancel or finish decided before the observer was added is
        // caught by the checks after it (an observer added to a finished procedure hears
        // did-finish at once); one decided after, by the observer. Both are harmless twice.
        addObserver(ProgressLifecycle(tracker: made))
        if isCancelled { made.stop() }
        // Finished already: complete now, not when the late did-finish reaches the observer
        // (after the callback the procedure may still be running on another thread).
        if isFinished { made.procedureFinishing(cancelled: isCancelled, final: true) }
        if let group = asGroup, made.countsChildren { group.countChildren(in: made) }
        if let source {
            made.sourceDidChange()
            source.progressTrackingBegan()
        }
        return made
    }

    /// The tracker, if someone asked for the progress.
    var existingProgressTracker: ProgressTracker? { lock.withLock { state.progress.tracker } }

    /// Records units reported by the procedure (under `lock`): kept here while nobody tracks
    /// the progress; returns the tracker to give them to otherwise.
    func recordProgressLocked(_ units: ProgressUnits) -> ProgressTracker? {
        switch state.progress {
        case .tracked(let tracker):
            return tracker
        case .untracked:
            state.progress = .untracked(units)
            return nil
        }
    }

    /// Tells the tracker, if there is one, that a ``ProgressUnitsSource``'s state changed.
    package final func progressSourceDidChange() {
        existingProgressTracker?.sourceDidChange()
    }

    /// Reads a ``ProgressUnitsSource``'s units every `interval` seconds of `clock` until the
    /// procedure finishes, if its progress is tracked (call it again from
    /// ``ProgressUnitsSource/progressTrackingBegan()`` for tracking that begins later).
    package final func pollProgress(every interval: TimeInterval, clock: any ProcedureClock) {
        existingProgressTracker?.startPolling(every: interval, clock: clock)
    }
}

/// Where a procedure's progress is.
enum ProgressStorage {
    /// Nobody has asked for it; the units the procedure reported, if any.
    case untracked(ProgressUnits?)
    case tracked(ProgressTracker)

    var tracker: ProgressTracker? {
        if case .tracked(let tracker) = self { return tracker }
        return nil
    }
}

/// Completes a tracker when its procedure finishes, and stops it when it is cancelled.
private struct ProgressLifecycle: ProcedureObserver {
    let tracker: ProgressTracker

    func willCancel(_ procedure: Procedure, errors: [any Error]) {
        tracker.stop()
    }

    func willFinish(_ procedure: Procedure, errors: [any Error]) {
        tracker.procedureFinishing(cancelled: procedure.isCancelled, final: false)
    }

    func didFinish(_ procedure: Procedure, errors: [any Error]) {
        tracker.procedureFinishing(cancelled: procedure.isCancelled, final: true)
    }
}
