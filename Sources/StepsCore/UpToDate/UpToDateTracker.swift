import Foundation
import Procedures

/// Which steps `--force` runs whatever their state.
enum ForcedSteps: Sendable, Equatable {
    case none
    /// Every step, every source rehashed (`--force`).
    case all
    /// These steps (`--force STEP`).
    case named(Set<String>)

    /// These, and the step `name`.
    func adding(_ name: String) -> ForcedSteps {
        switch self {
        case .none: return .named([name])
        case .all: return .all
        case .named(let names): return .named(names.union([name]))
        }
    }

    func includes(_ name: String) -> Bool {
        switch self {
        case .none: return false
        case .all: return true
        case .named(let names): return names.contains(name)
        }
    }
}

/// The up-to-date check of one run: it decides, for each step with `sources`, whether the
/// step can be skipped, and at the end writes what the next run needs to know.
///
/// A step is up to date when its fingerprint (``StepFingerprint``: command, declared
/// environment, `cwd`, its sources' content hashes and the fingerprints of the steps it
/// needs) is the one recorded at its last successful run, and everything it generates exists.
/// The record is written only after a step succeeds; a step that started and did not succeed
/// loses its record, so that it runs next time whatever its inputs.
///
/// The steps that need a step see a value for it: its fingerprint when it has sources (up to
/// date or run); for a step without sources that ran, a value new in every run (it always
/// runs, so what it made may differ: what needs it is never up to date); for a step skipped
/// by its `when`, a constant.
final class UpToDateTracker: @unchecked Sendable {
    // @unchecked: `values`, `computed`, `records` and `looked` are guarded by `lock`; the rest
    // is immutable (the cache and the queue are thread-safe).
    enum Verdict: Sendable, Equatable {
        case upToDate
        case outOfDate(reason: String)
    }

    let stateURL: URL
    let forced: ForcedSteps
    let cache: FileHashCache
    /// Why the state file was not used, to show once at the start.
    let loadProblem: String?
    private let recorded: [String: StepFingerprint]
    private let queue = ProcedureQueue()
    private let runValue = UInt64.random(in: .min ... .max)
    private let lock = NSLock()
    private var values: [String: UInt64] = [:]
    private var computed: [String: StepFingerprint] = [:]
    private var records: [String: StepFingerprint]
    private var looked = Set<String>()
    private var recordsChanged = false

    /// Reads the state at `stateURL`; one that cannot be used means every step runs.
    init(stateURL: URL, forced: ForcedSteps, width: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.stateURL = stateURL
        self.forced = forced
        queue.name = "steps.hashing"
        queue.maxConcurrentOperationCount = max(1, width)
        var state = UpToDateState()
        do {
            state = try UpToDateState.load(from: stateURL)
            loadProblem = nil
        } catch {
            loadProblem = "\(stateURL.path) \(error.reason): every step with sources runs, and the file is written anew"
        }
        recorded = state.steps
        records = state.steps
        cache = FileHashCache(entries: state.files)
    }

    /// The state file of a pipeline file: `.steps/NAME.state` next to it.
    static func stateURL(for pipelineFile: String, directory: URL) -> URL {
        directory.appendingPathComponent(".steps").appendingPathComponent((pipelineFile as NSString).lastPathComponent + ".state")
    }

    /// Checks `step` (its needs have finished): hashes its sources on the hashing queue and
    /// calls `completion` with the verdict, or nil if the run is being stopped.
    func check(_ step: Step, base: String, pipelineEnvironment: [String: String], completion: @escaping @Sendable (Verdict?) -> Void) {
        guard let sources = step.sources else { return completion(.outOfDate(reason: "it has no sources")) }
        let force = forced.includes(step.name)
        let needs = lock.withLock { step.dependencies.map { (name: $0, value: values[$0] ?? runValue) } }
        SourceCheck.run(
            patterns: sources, base: base, cache: cache, trust: forced != .all, queue: queue, name: step.name
        ) { [self] hashes in
            guard let hashes else { return completion(nil) }
            let fingerprint = StepFingerprint(
                step: step, pipelineEnvironment: pipelineEnvironment,
                sources: StepFingerprint.sourcesDigest(files: hashes.files, missing: hashes.missing),
                needs: StepFingerprint.needsDigest(needs))
            lock.withLock {
                computed[step.name] = fingerprint
                looked.insert(step.name)
            }
            completion(verdict(step, fingerprint: fingerprint, hashes: hashes, base: base, force: force))
        }
    }

    private func verdict(_ step: Step, fingerprint: StepFingerprint, hashes: SourceCheck.Hashes, base: String, force: Bool) -> Verdict {
        if force { return .outOfDate(reason: "forced (--force)") }
        if let unreadable = hashes.unreadable.first {
            return .outOfDate(reason: "cannot read \(unreadable.path): \(unreadable.reason)")
        }
        guard let last = recorded[step.name] else { return .outOfDate(reason: "no successful run recorded") }
        if let part = fingerprint.difference(from: last) {
            switch part {
            case .sources where !hashes.changed.isEmpty:
                let named = hashes.changed.prefix(3).joined(separator: ", ")
                return .outOfDate(reason: named + (hashes.changed.count > 3 ? " and \(hashes.changed.count - 3) more" : "") + " changed")
            case .needs:
                let need = step.dependencies.first { name in
                    lock.withLock { values[name] } != recorded[name]?.value
                }
                return .outOfDate(reason: need.map { "'\($0)', which it needs, ran or changed" } ?? part.changed)
            default:
                return .outOfDate(reason: part.changed)
            }
        }
        for pattern in step.generates?.included ?? [] where !Self.generates(pattern, base: base) {
            return .outOfDate(reason: "\(pattern.text) is missing")
        }
        return .upToDate
    }

    /// Whether a `generates` pattern names something that exists (a literal: that path; a
    /// wildcard: at least one file).
    private static func generates(_ pattern: GlobPattern, base: String) -> Bool {
        if !pattern.hasWildcards {
            let path = pattern.literalPrefix.joined(separator: "/")
            return GlobExpansion.exists(pattern.isAbsolute ? "/" + path : base + "/" + path)
        }
        return !GlobExpansion(GlobPatternList(patterns: [pattern]), in: base).files.isEmpty
    }

    /// Records how a step ended, before the steps that need it are checked.
    func finished(_ step: Step, outcome: StepOutcome, started: Bool) {
        lock.withLock {
            let fingerprint = computed[step.name]
            switch outcome {
            case .upToDate:
                values[step.name] = fingerprint?.value ?? runValue
            case .succeeded:
                if let fingerprint {
                    values[step.name] = fingerprint.value
                    if records[step.name] != fingerprint {
                        records[step.name] = fingerprint
                        recordsChanged = true
                    }
                } else {
                    values[step.name] = Self.value(step.name, runValue)
                }
            case .skipped:
                values[step.name] = Self.value(step.name, 0)
            case .failed, .stopped:
                values[step.name] = Self.value(step.name, runValue &+ 1)
                if started, records.removeValue(forKey: step.name) != nil { recordsChanged = true }
            }
        }
    }

    private static func value(_ name: String, _ salt: UInt64) -> UInt64 {
        var hasher = XXHash64(seed: salt)
        hasher.update(name)
        return hasher.finish()
    }

    /// Stops every check in progress (the run is being stopped).
    func cancelChecks() {
        queue.cancelAllOperations()
    }

    /// Writes the state for the next run if it changed; `steps` are the pipeline's steps (the
    /// records of steps no longer in it are dropped).
    func save(steps: [Step]) throws {
        let state = lock.withLock { () -> UpToDateState? in
            let names = Set(steps.map(\.name))
            let kept = records.filter { names.contains($0.key) }
            let everythingLooked = steps.allSatisfy { $0.sources == nil || looked.contains($0.name) }
            let changed = recordsChanged || kept.count != records.count || cache.isDirty || loadProblem != nil
                || (everythingLooked && cache.wouldDropUnseen())
            // A run that changed nothing writes nothing (a second run of a large tree stays a read).
            guard changed else { return nil }
            return UpToDateState(steps: kept, files: cache.entriesToKeep(everythingSeen: everythingLooked))
        }
        try state?.write(to: stateURL)
    }
}
