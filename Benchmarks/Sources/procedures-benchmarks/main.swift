import Foundation

// Entry point: `swift run -c release procedures-benchmarks [--smoke] …` (see README.md).

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))

/// Every scenario, in the order of the table.
let scenarios: [Scenario] =
    [
        S1Throughput.scenario,
        S1tTaskGroup.scenario,
        L1Logging.scenario,
        PR1Progress.scenario,
        PR1Progress.asked,
        S2Chain.scenario,
        S2Chain.rawQueue,
        S3FanOutFanIn.scenario,
        S4Group.scenario,
        G1Groups.scenario,
        S5CancelLatency.scenario,
        S6GroupCancel.scenario,
        S7Memory.scenario,
        S8Conditions.scenario,
        S9Exclusivity.scenario,
        T1Timeouts.scenario,
        R1Retry.scenario,
        P1Processes.scenario,
        N1Requests.scenario,
        B1Batch.scenario,
        B1Batch.oversubscribed,
        U1UpToDate.check,
        U1UpToDate.forced,
        C1PipelineCheck.chain,
        C1PipelineCheck.values,
    ] + FutureScenarios.all

if let threads = options.dispatchThreads { DispatchPool.grow(toAtLeast: threads) }

if options.profile != nil {
    Runner.profile(scenarios, options: options)
    removeUpToDateTrees()
    removePipelineFiles()
    exit(0)
}

let selected = scenarios.filter { options.only?.contains($0.id.uppercased()) ?? true }
if selected.isEmpty {
    FileHandle.standardError.write(Data("no scenario matches --only\n".utf8))
    exit(2)
}

let loadAtStart = Machine.loadAverage() ?? "unknown"
let started = Stopwatch.now()
var rows: [Row] = []
for scenario in selected {
    rows += Runner.run(scenario, options: options)
}
let elapsed = Stopwatch.seconds(since: started)
removeUpToDateTrees()
removePipelineFiles()

print(options.smoke ? "Smoke run (sizes / 100, 1 round): these figures are not results." : "")
print(Report.text(rows))
print("\nratio = ours / baseline (the figure that counts); growth = ours at 10N / ours at N (about 10 = linear).")
print("whole run: \(Format.fixed(elapsed, 1)) s; load average now: \(Machine.loadAverage() ?? "unknown")")

if options.writesResults {
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("RESULTS.md")
    let text = Report.resultsFile(
        rows: rows, scenarios: selected,
        machine: Machine.describe() + [
            "load average (1, 5, 15 min) at start: \(loadAtStart); at end: \(Machine.loadAverage() ?? "unknown")"
        ],
        rounds: options.rounds, elapsed: elapsed)
    do {
        try text.write(to: url, atomically: true, encoding: .utf8)
        print("wrote \(url.path)")
    } catch {
        FileHandle.standardError.write(Data("could not write \(url.path): \(error)\n".utf8))
        exit(1)
    }
} else {
    print("(RESULTS.md not written: only a full run of every scenario writes it)")
}
