import Foundation
import Procedures
import ProceduresProcess

/// `--dry-run`'s look at this machine: every step's program (its `argv[0]`, or the shell
/// `/bin/sh` for a `run` command) and working directory, found as the run will find them
/// (``ProcessProcedure/locateExecutable(_:environment:workingDirectory:)``, with the step's
/// environment: this process's, then the pipeline's `env`, then the step's).
///
/// What is missing is a problem, reported at its place in the file like the file's own — but
/// a program or a directory given as a path, for a step that waits for other steps, is only a
/// note: a step it needs may make it (a build step often makes the program a later one runs).
struct ProgramCheck {
    private(set) var problems: [PipelineProblem] = []
    private(set) var notes: [PipelineProblem] = []

    init(_ document: PipelineDocument, environment: [String: String] = ProcessInfo.processInfo.environment, shell: String = "/bin/sh") {
        let pipeline = document.pipeline
        let base = environment.merging(pipeline.environment) { $1 }
        // The bundled pipeline's directory is made only when it runs.
        let pipelineDirectory = FileManager.default.fileExists(atPath: pipeline.directory.path) ? pipeline.directory : nil
        // Steps that share a program, a directory and a PATH share the answer: each is looked
        // up once, however many steps there are.
        var answers: [Lookup: Answer] = [:]
        var usualAnswers: [String: Answer] = [:]
        for (index, step) in pipeline.steps.enumerated() {
            let program: String
            let field: [String]
            switch step.command {
            case .argv(let words): (program, field) = (words[0], ["argv", "[0]"])
            case .shell: (program, field) = (shell, ["run"])
            }
            let directory = { step.workingDirectory == nil ? pipelineDirectory : pipeline.directory(of: step) }
            let path = step.environment["PATH"] ?? base["PATH"]
            // Most steps keep the pipeline's directory and PATH: those are keyed by program alone.
            let usual = step.workingDirectory == nil && step.environment["PATH"] == nil
            let lookup = Lookup(program: program, workingDirectory: step.workingDirectory, path: usual ? nil : path)
            let known = usual ? usualAnswers[program] : answers[lookup]
            let answer = known ?? Self.look(up: program, path: path, in: directory())
            if known == nil {
                if usual { usualAnswers[program] = answer } else { answers[lookup] = answer }
            }
            var who: String { "step '\(step.name)'" }
            var mayBeMade: Bool { !step.dependencies.isEmpty }  // asked only of a missing program or directory
            switch answer {
            case .found:
                break
            case .unusable(let problem):
                note(document, index, field, "\(who): field '\(JSONValue.join(field))': \(program) \(problem)", note: false)
            case .directoryUnusable(let path, let reason):
                note(document, index, ["cwd"], "\(who): field 'cwd': the directory \(path) cannot be used: \(reason)", note: mayBeMade && reason == "no such directory")
            case .notInPath(let searched):
                note(document, index, field, "\(who): field '\(JSONValue.join(field))': no program '\(program)' in PATH (\(searched.joined(separator: ":")))", note: false)
            case .missing:
                let place = program.hasPrefix("/") ? "" : " (from \(directory()?.path ?? FileManager.default.currentDirectoryPath))"
                note(document, index, field, "\(who): field '\(JSONValue.join(field))': no program at \(program)\(place)", note: mayBeMade)
            }
        }
    }

    /// What a program is looked up by: its name, the step's `cwd` (as written: relative to the
    /// pipeline's directory) and the `PATH` of its environment, the only variable that matters.
    private struct Lookup: Hashable {
        var program: String
        var workingDirectory: String?
        var path: String?
    }

    /// What the lookup found.
    private enum Answer {
        case found
        case unusable(String)
        case directoryUnusable(path: String, reason: String)
        case notInPath(searched: [String])
        case missing
    }

    private static func look(up program: String, path: String?, in directory: URL?) -> Answer {
        do {
            let located = try ProcessProcedure.locateExecutable(program, environment: path.map { ["PATH": $0] } ?? [:], workingDirectory: directory)
            return unusable(located, in: directory).map(Answer.unusable) ?? .found
        } catch .workingDirectoryUnusable(let path, let reason) {
            return .directoryUnusable(path: path, reason: reason)
        } catch .executableNotFound(_, let searched) where !searched.isEmpty {
            return .notInPath(searched: searched)
        } catch {
            return .missing
        }
    }

    /// Why a program that was found cannot be started: a directory, or a file without the
    /// execute permission (the run would fail to start it).
    private static func unusable(_ path: String, in directory: URL?) -> String? {
        let located = path.hasPrefix("/") ? path : (directory?.path ?? FileManager.default.currentDirectoryPath) + "/" + path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: located, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { return "is a directory, not a program" }
        return access(located, X_OK) == 0 ? nil : "cannot be executed: \(String(cString: strerror(errno)))"
    }

    private mutating func note(_ document: PipelineDocument, _ index: Int, _ field: [String], _ message: String, note isNote: Bool) {
        let offset = document.root.offset(of: ["steps", "[\(index)]"] + field)
        if isNote {
            notes.append(PipelineProblem(offset: offset, message: "note: \(message) yet; a step it needs may make it"))
        } else {
            problems.append(PipelineProblem(offset: offset, message: message))
        }
    }
}
