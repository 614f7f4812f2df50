import Foundation

/// `--watch`: runs the pipeline, then again each time a step's `sources` change, until Ctrl-C.
///
/// - Each run is a fresh ``PipelineRun``: what is up to date is skipped, so a change reruns
///   the steps it concerns and those that need them.
/// - Changes are seen through inotify (``SourceWatcher``) on every directory the sources'
///   patterns walk; a change that matches no step's `sources`, or matches a step's
///   `generates` (a step writing its outputs), is ignored. A burst of changes (an editor
///   saving, a `git checkout`) starts one run, ``quietPeriod`` after the last of them.
/// - A change while a run is in progress stops that run (its steps' processes are terminated
///   as on Ctrl-C) and starts the next once it has stopped.
/// - Ctrl-C (or SIGTERM, SIGHUP, a closed standard output: see ``PipelineRun/StopReason``)
///   stops the run in progress, if any, and exits once every process has ended: 130 (143,
///   129, 141), through the `exit` it was given.
///
/// Everything happens on one serial queue: the watcher's events, the signals, the timer and
/// the end of each run.
final class WatchSession: @unchecked Sendable {
    // @unchecked: every mutable field is touched only on `queue`.
    static let quietPeriod: TimeInterval = 0.15

    private let queue = DispatchQueue(label: "steps.watch")
    private let pipeline: Pipeline
    private let makeRun: @Sendable () -> PipelineRun
    private let announce: @Sendable (PipelineRun) -> Void
    private let exit: @Sendable (Int32) -> Void
    private var watcher: SourceWatcher?
    /// The first run, made by the caller (with its `--force`), until it starts.
    private var first: PipelineRun?
    private var run: PipelineRun?
    /// A change arrived since the current run (or the last one) started.
    private var changed: [String] = []
    private var timer: (any DispatchSourceTimer)?
    private var exitStatus: Int32?
    private var signals: [any DispatchSourceSignal] = []
    /// The source files found by the last scan (absolute paths).
    private var known = Set<String>()

    /// The steps that have sources, with the directory their patterns are relative to.
    private struct Watched {
        var base: String
        var sources: GlobPatternList
        var generates: GlobPatternList?
    }
    private let watched: [Watched]

    /// `first` is the first run, `makeRun` makes the others; `announce` says a run starts
    /// (before it does); `exit` gets the exit status once the session has stopped and its
    /// last run has ended.
    init(
        pipeline: Pipeline, first: PipelineRun, makeRun: @escaping @Sendable () -> PipelineRun,
        announce: @escaping @Sendable (PipelineRun) -> Void, exit: @escaping @Sendable (Int32) -> Void
    ) {
        self.pipeline = pipeline
        self.first = first
        self.makeRun = makeRun
        self.announce = announce
        self.exit = exit
        watched = pipeline.steps.compactMap { step in
            step.sources.map { Watched(base: pipeline.directory(of: step).path, sources: $0, generates: step.generates) }
        }
    }

    /// Whether any step has sources to watch.
    var hasSources: Bool { !watched.isEmpty }

    /// Starts watching and the first run. Throws if inotify cannot be used.
    func start() throws {
        let watcher = try SourceWatcher(queue: queue) { [weak self] changes in self?.received(changes) }
        queue.async { [self] in
            self.watcher = watcher
            for (number, reason) in PipelineRun.StopReason.signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [weak self] in self?.stop(reason) }
                source.resume()
                signals.append(source)
            }
            _ = rescan()
            startRun()
        }
    }

    private func startRun() {
        changed = []
        let run = first ?? makeRun()
        first = nil
        self.run = run
        announce(run)
        run.start(handlingSignals: false) { [weak self] _ in
            guard let self else { return }
            self.queue.async { self.runEnded() }
        }
    }

    private func runEnded() {
        run = nil
        if let exitStatus {
            watcher?.stop()
            return exit(exitStatus)
        }
        // Steps may have made directories or files: watch what the patterns walk now.
        if rescan() { changed.append("(files added or removed)") }
        if changed.isEmpty {
            let directories = watcher?.watchedCount ?? 0
            Output.write("\nWatching \(known.count) source file\(known.count == 1 ? "" : "s") in \(directories) director\(directories == 1 ? "y" : "ies") for changes (Ctrl-C to stop)…\n")
        } else {
            scheduleRun()
        }
    }

    private func received(_ changes: [SourceWatcher.Change]) {
        var relevant: [String] = []
        var structural = false
        for change in changes {
            structural = structural || change.directoriesChanged
            relevant += change.paths.filter { isSource($0) && !isGenerated($0) }
        }
        if structural, rescan() { relevant.append("(files added or removed)") }
        guard !relevant.isEmpty, exitStatus == nil else { return }
        let first = changed.isEmpty
        changed += relevant
        if let run {
            if first { run.stop(.sourcesChanged) }
        } else {
            scheduleRun()
        }
    }

    /// Runs once nothing has changed for ``quietPeriod``.
    private func scheduleRun() {
        timer?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.quietPeriod)
        timer.setEventHandler { [weak self] in
            guard let self, self.run == nil, self.exitStatus == nil else { return }
            self.timer = nil
            let names = Array(Set(self.changed.map(self.relative))).sorted()
            Output.write("\nChanged: \(names.prefix(5).joined(separator: ", "))\(names.count > 5 ? " and \(names.count - 5) more" : "")\n")
            self.startRun()
        }
        timer.resume()
        self.timer = timer
    }

    /// Stops watching, and the run in progress (`reason` says why), then exits. From any thread.
    func stop(_ reason: PipelineRun.StopReason) {
        queue.async { [self] in stopOnQueue(reason) }
    }

    private func stopOnQueue(_ reason: PipelineRun.StopReason) {
        guard exitStatus == nil else {
            // A second signal: the run in progress, if any, kills its steps' processes at once.
            if reason.isSignal { run?.stop(reason) }
            return
        }
        exitStatus = reason.exitStatus
        timer?.cancel()
        if let run {
            run.stop(reason)  // exits once the run has ended (runEnded)
        } else {
            watcher?.stop()
            Output.write("\nStopped watching.\n")
            exit(reason.exitStatus)
        }
    }

    /// Walks every step's sources again: watches the directories walked, and returns whether
    /// the set of source files changed.
    private func rescan() -> Bool {
        var directories = Set<String>()
        var files = Set<String>()
        for step in watched {
            let expansion = GlobExpansion(step.sources, in: step.base)
            directories.formUnion(expansion.directories)
            for file in expansion.files {
                let path = file.hasPrefix("/") ? file : step.base + "/" + file
                if !isGenerated(path) { files.insert(path) }
            }
        }
        if let failed = watcher?.watch(directories).first {
            Output.write("steps: cannot watch \(failed.path): \(failed.reason)\n")
        }
        defer { known = files }
        return files != known
    }

    private func isSource(_ path: String) -> Bool {
        watched.contains { $0.sources.matches(path, base: $0.base) }
    }

    private func isGenerated(_ path: String) -> Bool {
        watched.contains { $0.generates?.matches(path, base: $0.base) ?? false }
    }

    private func relative(_ path: String) -> String {
        let prefix = pipeline.directory.path + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
