import Foundation

/// What a step's result depends on, each part hashed: when every part is what it was at the
/// step's last successful run (and what it generates exists), the step is up to date.
///
/// The environment is the one the pipeline file declares (its `env` and the step's), not the
/// whole inherited environment, which differs from one shell to the next (`SHLVL`, `OLDPWD`,
/// a terminal's variables) and would make nothing ever up to date. Retries and timeouts are
/// left out: they change how a step is run, not what it makes.
struct StepFingerprint: Sendable, Equatable {
    var command: UInt64
    var environment: UInt64
    /// The step's `cwd` as written.
    var directory: UInt64
    /// The paths and content hashes of its sources.
    var sources: UInt64
    /// The fingerprints of the steps it needs, by name.
    var needs: UInt64

    /// The whole fingerprint, as the steps that need this one see it.
    var value: UInt64 {
        var hasher = XXHash64(seed: 1)
        for part in [command, environment, directory, sources, needs] { hasher.update(part) }
        return hasher.finish()
    }

    /// The parts that do not depend on files.
    init(step: Step, pipelineEnvironment: [String: String], sources: UInt64, needs: UInt64) {
        var command = XXHash64()
        switch step.command {
        case .shell(let text):
            command.update("sh\0" + text)
        case .argv(let words):
            command.update("argv")
            for word in words { command.update("\0" + word) }
        }
        self.command = command.finish()
        var environment = XXHash64()
        for (name, value) in pipelineEnvironment.merging(step.environment, uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
            environment.update(name + "=" + value + "\0")
        }
        self.environment = environment.finish()
        directory = XXHash64.hash(step.workingDirectory ?? "")
        self.sources = sources
        self.needs = needs
    }

    init(command: UInt64, environment: UInt64, directory: UInt64, sources: UInt64, needs: UInt64) {
        self.command = command
        self.environment = environment
        self.directory = directory
        self.sources = sources
        self.needs = needs
    }

    /// The first part that differs from `recorded`, in words ("its command changed"), or nil.
    func difference(from recorded: StepFingerprint) -> Part? {
        if command != recorded.command { return .command }
        if environment != recorded.environment { return .environment }
        if directory != recorded.directory { return .directory }
        if sources != recorded.sources { return .sources }
        if needs != recorded.needs { return .needs }
        return nil
    }

    enum Part {
        case command, environment, directory, sources, needs

        var changed: String {
            switch self {
            case .command: return "its command changed"
            case .environment: return "its env changed"
            case .directory: return "its cwd changed"
            case .sources: return "its sources changed"
            case .needs: return "a step it needs changed"
            }
        }
    }

    /// The digest of a step's sources: each file's path (relative, as its patterns spell it)
    /// and content hash, in path order; a missing literal source counts too, so that its
    /// appearing is a change.
    static func sourcesDigest(files: [(path: String, hash: UInt64)], missing: [String]) -> UInt64 {
        var hasher = XXHash64()
        for file in files {
            hasher.update(file.path + "\0")
            hasher.update(file.hash)
        }
        for path in missing.sorted() { hasher.update("missing\0" + path + "\0") }
        return hasher.finish()
    }

    /// The digest of the fingerprints of the steps a step needs.
    static func needsDigest(_ needs: [(name: String, value: UInt64)]) -> UInt64 {
        var hasher = XXHash64()
        for need in needs.sorted(by: { $0.name < $1.name }) {
            hasher.update(need.name + "\0")
            hasher.update(need.value)
        }
        return hasher.finish()
    }
}
