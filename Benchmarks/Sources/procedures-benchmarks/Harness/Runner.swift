import Foundation

/// How this run was asked to behave (see `Options.usage`).
struct Options {
    /// Tiny sizes, one round, RESULTS.md left alone: proves the benchmarks build and run.
    var smoke = false
    /// Rounds per size; each round runs ours then the baseline.
    var rounds = 7
    /// Only these scenario ids (upper-cased); nil means all.
    var only: Set<String>?
    /// `--profile ID[:SIZE][:baseline]`: run one half once, for callgrind or perf.
    var profile: (id: String, size: Int?, baseline: Bool)?
    /// `--rusage`: print what each half of each round cost the process (see `RoundUsage`).
    var rusage = false
    /// `--grow-dispatch N`: first make Dispatch lend the process N threads (see `DispatchPool`).
    var dispatchThreads: Int?

    /// Sizes are written at full scale in the scenarios; a smoke run divides them by 100.
    func scaled(_ size: Int) -> Int { smoke ? max(1, size / 100) : size }

    /// Whether this run may replace RESULTS.md: only a complete, full-size run may.
    var writesResults: Bool { !smoke && only == nil && profile == nil }

    static let usage = """
        usage: procedures-benchmarks [--smoke] [--rounds N] [--only S1,S5,...] [--profile ID[:SIZE][:baseline]] [--rusage]
                                     [--grow-dispatch N]
          --smoke      tiny sizes (1/100), one round; does not write RESULTS.md
          --rounds N   rounds per size (default 7); each round runs ours, then the baseline
          --only IDS   run only these scenarios (RESULTS.md is then not written)
          --profile    run one half of one scenario once (ours unless ':baseline'), for a profiler
          --rusage     print each half of each round's wall time, CPU time and context switches
                       (to stderr): catches a round that waits or spins where a sampler would
                       disturb it
          --grow-dispatch N  before anything else, block Dispatch's threads until its pool has
                       grown to N threads (about 2 s per thread beyond the cores): the state a
                       full run leaves for its later scenarios, made on purpose
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        func fail(_ message: String) -> Never {
            FileHandle.standardError.write(Data("\(message)\n\(usage)\n".utf8))
            exit(2)
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--smoke":
                options.smoke = true
            case "--rounds":
                guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { fail("--rounds needs a positive number") }
                options.rounds = value
            case "--only":
                guard let value = rest.popFirst() else { fail("--only needs scenario ids") }
                options.only = Set(value.uppercased().split(separator: ",").map(String.init))
            case "--profile":
                guard let value = rest.popFirst() else { fail("--profile needs a scenario id") }
                let parts = value.split(separator: ":").map(String.init)
                options.profile = (
                    parts[0].uppercased(), parts.dropFirst().lazy.compactMap { Int($0) }.first,
                    parts.contains("baseline")
                )
            case "--rusage":
                options.rusage = true
            case "--grow-dispatch":
                guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { fail("--grow-dispatch needs a thread count") }
                options.dispatchThreads = value
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                fail("unknown argument \(argument)")
            }
        }
        if options.smoke { options.rounds = 1 }
        return options
    }
}

/// One line of the results table.
struct Row {
    var scenario: String
    var size: Int
    var unit: Unit
    var ours: Double?
    var baseline: Double?
    var target: Target
    var rounds: Int
    /// ours at this size / ours at the first size, on the last size's row.
    var growth: Double?

    var ratio: Double? {
        guard let ours, let baseline, baseline > 0 else { return nil }
        return ours / baseline
    }

    /// "yes", "NO", or a dash when there is nothing to judge.
    var met: String {
        guard ours != nil else { return "not yet wired" }
        switch target {
        case .ratioAtMost(let limit):
            guard let ratio else { return "—" }
            return ratio <= limit ? "yes" : "NO"
        case .growthAtMost(let limit):
            guard let growth else { return "—" }
            return growth <= limit ? "yes" : "NO"
        case .informational:
            return "—"
        }
    }
}

enum Runner {
    /// Growth beyond this from N to 10N is flagged: linear work grows about 10x.
    static let superlinearGrowth = 20.0

    /// A size whose rounds take less than this (both halves together) gets extra rounds, up
    /// to three times the minimum: fast sizes are the ones a scheduling hiccup distorts most,
    /// and their extra rounds are cheap.
    static let roundBudget = 2.0

    static func run(_ scenario: Scenario, options: Options) -> [Row] {
        let sizes = scenario.sizes.map(options.scaled)
        // A scenario that fixes its rounds (a slow quadratic baseline, memory) gets exactly those.
        let fixed = options.smoke || scenario.rounds != nil
        let minRounds = options.smoke ? 1 : (scenario.rounds ?? options.rounds)
        let maxRounds = fixed ? minRounds : 3 * minRounds
        var ours: [Int: [Double]] = [:]
        var baseline: [Int: [Double]] = [:]
        var roundsRun: [Int: Int] = [:]

        // One unmeasured pass at the small size first: thread pools, malloc arenas and lazily
        // initialised runtime state all warm up before anything counts.
        if !options.smoke && minRounds > 1, let first = sizes.first {
            _ = scenario.ours?(first)
            _ = scenario.baseline?(first)
        }
        for size in sizes {
            let started = Stopwatch.now()
            var round = 0
            let anything = scenario.ours != nil || scenario.baseline != nil
            while anything, round < minRounds || (round < maxRounds && Stopwatch.seconds(since: started) < roundBudget) {
                round += 1
                progress("\(scenario.id) \(scenario.title): size \(size), round \(round)")
                // Interleaved, so drift in the machine's load hits both halves alike.
                if let half = scenario.ours {
                    ours[size, default: []] += RoundUsage.measure(options.rusage ? "\(scenario.id) \(size) ours" : nil) { half(size) }
                }
                if let half = scenario.baseline {
                    baseline[size, default: []] += RoundUsage.measure(options.rusage ? "\(scenario.id) \(size) baseline" : nil) { half(size) }
                }
            }
            roundsRun[size] = round
        }

        var rows: [Row] = []
        for statistic in scenario.statistics {
            let label = [scenario.id, scenario.title, statistic.name].compactMap { $0 }.joined(separator: " ")
            let oursAtFirst = sizes.first.flatMap { ours[$0] }.map(statistic.reduce)
            for (index, size) in sizes.enumerated() {
                let oursValue = ours[size].map(statistic.reduce)
                var growth: Double?
                if index == sizes.count - 1, index > 0, let oursValue, let oursAtFirst, oursAtFirst > 0 {
                    growth = oursValue / oursAtFirst
                    // A per-item figure is constant when the total is linear: scale it back to
                    // totals so that about 10 means linear in every row.
                    if scenario.unit == .bytesPerItem { growth! *= Double(size) / Double(sizes[0]) }
                }
                rows.append(
                    Row(
                        scenario: label, size: size, unit: scenario.unit, ours: oursValue,
                        baseline: baseline[size].map(statistic.reduce), target: statistic.target,
                        rounds: roundsRun[size] ?? 0, growth: growth))
            }
        }
        return rows
    }

    /// Runs one half once and prints what it measured; for `valgrind --tool=callgrind`.
    static func profile(_ scenarios: [Scenario], options: Options) {
        guard let request = options.profile,
            let scenario = scenarios.first(where: { $0.id.uppercased() == request.id })
        else {
            FileHandle.standardError.write(Data("no scenario with that id\n".utf8))
            exit(2)
        }
        let size = request.size ?? options.scaled(scenario.sizes[0])
        guard let half = request.baseline ? scenario.baseline : scenario.ours else {
            print("\(scenario.id): that half is not wired yet")
            return
        }
        let samples = half(size)
        let value = Stats.percentile(samples, 50)
        print("\(scenario.id) \(request.baseline ? "baseline" : "ours") size \(size): \(Format.value(value, scenario.unit)) (median of \(samples.count) sample(s))")
    }

    static func progress(_ line: String) {
        FileHandle.standardError.write(Data("  … \(line)\n".utf8))
    }
}
