import Foundation

/// The checks the schema cannot make: names, ranges, references between steps and cycles.
/// Every problem found is noted in `problems`, at the place in the file it is about.
struct PipelineChecker {
    /// The document the pipeline was read from, to find where each field is.
    let document: JSONValue
    private(set) var problems: [PipelineProblem] = []

    init(document: JSONValue) {
        self.document = document
    }

    private mutating func report(_ path: [String], _ message: String) {
        problems.append(PipelineProblem(offset: document.offset(of: path), message: message))
    }

    mutating func check(_ raw: RawPipeline, directory: URL) -> Pipeline? {
        var jobs: Int?
        if let value = raw.jobs {
            if let count = Self.count(value) {
                jobs = count
            } else {
                report(["jobs"], "field 'jobs': must be \(Self.countRange), not \(value.formatted)")
            }
        }
        if raw.steps.isEmpty { report(["steps"], "field 'steps': the pipeline has no steps") }

        var firstIndex: [String: Int] = [:]
        var names: [String] = []
        for (index, step) in raw.steps.enumerated() {
            let path = ["steps", "[\(index)]", "name"]
            if step.name.isEmpty || !step.name.utf8.allSatisfy(Self.isNameByte) {
                report(path, "steps[\(index)]: field 'name': '\(step.name)' is not a valid step name (use letters, digits, '.', '_' and '-')")
            } else if let earlier = firstIndex[step.name] {
                report(path, "step '\(step.name)': the name is already used by steps[\(earlier)]")
            } else {
                firstIndex[step.name] = index
                names.append(step.name)
            }
        }

        var steps: [Step] = []
        knownNames = names
        for (index, rawStep) in raw.steps.enumerated() {
            if let step = check(rawStep, at: index, names: firstIndex) { steps.append(step) }
        }
        reportCycles(raw.steps, names: firstIndex)
        guard problems.isEmpty else { return nil }
        return Pipeline(steps: steps, directory: directory, jobs: jobs, environment: raw.env ?? [:])
    }

    private mutating func check(_ raw: RawStep, at index: Int, names: [String: Int]) -> Step? {
        var base: [String] { ["steps", "[\(index)]"] }  // made only for a problem
        var who: String { "step '\(raw.name)'" }  // made only for a problem
        let problemsBefore = problems.count
        func field(_ name: String) -> [String] { base + [name] }

        var command = Step.Command.shell("")
        switch (raw.run, raw.argv) {
        case (nil, nil):
            report(base, "\(who): needs a command: give 'run' (a shell command) or 'argv' (a program and its arguments)")
        case (.some, .some):
            report(field("argv"), "\(who): give either 'run' or 'argv', not both")
        case (let run?, nil):
            if run.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
                report(field("run"), "\(who): field 'run': the command is empty")
            }
            command = .shell(run)
        case (nil, let argv?):
            if argv.first?.isEmpty ?? true { report(field("argv"), "\(who): field 'argv': needs at least the program to run") }
            command = .argv(argv)
        }

        var needs: [String] = []
        var needed: Set<String>?  // `needs`, once it is too long to look through
        for (position, need) in (raw.needs ?? []).enumerated() {
            var path: [String] { field("needs") + ["[\(position)]"] }  // made only for a problem
            if need == raw.name {
                report(path, "\(who): field 'needs': a step cannot need itself")
            } else if names[need] == nil {
                report(path, "\(who): field 'needs': no step is named '\(need)'\(suggestion(for: need))")
            } else if !(needed?.contains(need) ?? needs.contains(need)) {
                needs.append(need)
                if needed != nil { needed!.insert(need) } else if needs.count == 16 { needed = Set(needs) }
            }
        }

        var retry: Step.Retry?
        if let raw = raw.retry {
            let attempts = Self.count(raw.attempts) ?? 0
            if attempts < 1 {
                report(field("retry") + ["attempts"], "\(who): field 'retry.attempts': must be \(Self.countRange), not \(raw.attempts.formatted)")
            }
            let backoff = raw.backoff ?? 0.5
            let maxBackoff = raw.maxBackoff ?? 30
            if !(backoff >= 0 && backoff.isFinite) { report(field("retry") + ["backoff"], "\(who): field 'retry.backoff': must be 0 or more seconds") }
            if !(maxBackoff >= 0 && maxBackoff.isFinite) { report(field("retry") + ["maxBackoff"], "\(who): field 'retry.maxBackoff': must be 0 or more seconds") }
            retry = Step.Retry(attempts: attempts, backoff: backoff, maxBackoff: maxBackoff)
        }

        if let timeout = raw.timeout, !(timeout > 0 && timeout.isFinite) {
            report(field("timeout"), "\(who): field 'timeout': must be more than 0 seconds, not \(timeout)")
        }

        for (position, category) in (raw.exclusive ?? []).enumerated() where category.isEmpty {
            report(field("exclusive") + ["[\(position)]"], "\(who): field 'exclusive': a category cannot be empty")
        }

        var conditions: [Step.Condition] = []
        if let when = raw.when {
            let path = field("when")
            if let exists = when.exists {
                if exists.isEmpty { report(path + ["exists"], "\(who): field 'when.exists': the path is empty") }
                conditions.append(.exists(exists))
            }
            if let variable = when.env {
                if variable.isEmpty { report(path + ["env"], "\(who): field 'when.env': the variable name is empty") }
                conditions.append(.environment(variable))
            }
            switch (when.output, when.matches) {
            case (nil, nil):
                break
            case (let step?, let pattern?):
                if step == raw.name {
                    report(path + ["output"], "\(who): field 'when.output': a step cannot read its own output")
                } else if names[step] == nil {
                    report(path + ["output"], "\(who): field 'when.output': no step is named '\(step)'")
                }
                do {
                    _ = try NSRegularExpression(pattern: pattern)
                } catch {
                    report(path + ["matches"], "\(who): field 'when.matches': '\(pattern)' is not a valid regular expression")
                }
                conditions.append(.output(step: step, matches: pattern))
            case (.some, nil):
                report(path, "\(who): field 'when.output' needs 'matches' (a regular expression)")
            case (nil, .some):
                report(path, "\(who): field 'when.matches' needs 'output' (the step whose output it reads)")
            }
            if when.exists == nil && when.env == nil && when.output == nil && when.matches == nil {
                report(path, "\(who): field 'when': give 'exists', 'env', or 'output' with 'matches'")
            }
        }

        if let cwd = raw.cwd, cwd.isEmpty { report(field("cwd"), "\(who): field 'cwd': the directory is empty") }
        let sources = patterns(raw.sources, "sources", at: field("sources"), who: who)
        let generates = patterns(raw.generates, "generates", at: field("generates"), who: who)
        if raw.generates != nil && raw.sources == nil {
            report(field("generates"), "\(who): field 'generates' needs 'sources' (a step without sources always runs; give \"sources\": [] to run it only while what it generates is missing)")
        }

        guard problems.count == problemsBefore else { return nil }
        return Step(
            name: raw.name, command: command, needs: needs, retry: retry, timeout: raw.timeout,
            exclusive: raw.exclusive ?? [], when: conditions, continueOnError: raw.continueOnError ?? false,
            environment: raw.env ?? [:], workingDirectory: raw.cwd, sources: sources, generates: generates)
    }

    /// A `sources` or `generates` list, each pattern checked.
    private mutating func patterns(_ texts: [String]?, _ name: String, at path: [String], who: String) -> GlobPatternList? {
        guard let texts else { return nil }
        var patterns: [GlobPattern] = []
        for (position, text) in texts.enumerated() {
            do {
                patterns.append(try GlobPattern(text))
            } catch {
                report(path + ["[\(position)]"], "\(who): field '\(name)': '\(text)': \(error.reason)")
            }
        }
        if !texts.isEmpty && patterns.allSatisfy(\.isExclusion) && patterns.count == texts.count {
            report(path, "\(who): field '\(name)': only exclusions ('!'); give the patterns they take files from")
        }
        return GlobPatternList(patterns: patterns)
    }

    /// Whether a step name may hold `byte`: ASCII letters and digits, '.', '_' and '-'.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// The valid step names, in the order of the file, for suggestions.
    private var knownNames: [String] = []
    /// How many more misspelt step names get a suggestion: each search reads every name, so
    /// a file of many misspellings gets suggestions for its first few, not a quadratic check.
    private var suggestionsLeft = 20

    /// " (did you mean 'x'?)" for a name no step has, or nothing.
    private mutating func suggestion(for name: String) -> String {
        guard suggestionsLeft > 0 else { return "" }
        suggestionsLeft -= 1
        return PipelineFile.closest(to: name, among: knownNames).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// The largest `jobs` (and `--jobs`) and `retry.attempts` accepted: far more than any
    /// machine runs at once or any step should be tried, and small enough for any arithmetic.
    static let largestCount = 1_000_000

    /// The accepted counts, as messages say it.
    static let countRange = "a whole number from 1 to \(largestCount)"

    /// `value` as a count from 1 to ``largestCount``, or nil.
    static func count(_ value: Double) -> Int? {
        value == value.rounded() && value >= 1 && value <= Double(largestCount) ? Int(value) : nil
    }

    /// Every cycle among the steps, each once, at its first step's `needs`: drawn from the
    /// file as written (every named step's `needs` and `when.output` that name another step),
    /// so that the other problems of the file do not hide one. A step that names itself is
    /// reported where it does so.
    private mutating func reportCycles(_ steps: [RawStep], names: [String: Int]) {
        var nodes: [Int] = []  // the file index of each step with a name of its own
        var node = [Int](repeating: -1, count: steps.count)  // and back
        for (index, step) in steps.enumerated() where names[step.name] == index {
            node[index] = nodes.count
            nodes.append(index)
        }
        let edges = nodes.map { index in
            var targets: [Int] = []
            for name in steps[index].needs ?? [] {
                if let target = names[name], target != index { targets.append(node[target]) }
            }
            if let name = steps[index].when?.output, let target = names[name], target != index { targets.append(node[target]) }
            return targets
        }
        for cycle in DependencyCycles.find(edges: edges) {
            let path = cycle.path.map { steps[nodes[$0]].name }
            var message = "cycle in needs: " + path.joined(separator: " -> ")
            if !cycle.others.isEmpty {
                message += " (also in cycles with these steps: " + cycle.others.map { steps[nodes[$0]].name }.joined(separator: ", ") + ")"
            }
            report(["steps", "[\(nodes[cycle.path[0]])]", "needs"], message)
        }
    }
}
