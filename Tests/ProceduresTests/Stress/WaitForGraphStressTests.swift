import Foundation
import Procedures
import ProceduresTestSupport
import ProceduresTesting
import XCTest

/// Random small graphs of queues, groups, dependencies across group boundaries, procedures
/// added after a group started, and two exclusivity categories: every round ends, within a
/// bound, with every procedure finished; a deadlock is reported only in a round that can have
/// one, naming waits the round really has, and each once.
final class WaitForGraphStressTests: MisuseRecordingTestCase {
    private static let roundBound: TimeInterval = 10

    /// What the rounds came to, for the summary and the assertions.
    private struct Tally {
        var ran = 0
        var clean = 0
        var deadlocked = 0
        var mayDeadlock = 0
        /// Time spent in rounds that ended (a round that hangs spends its whole bound).
        var endedSeconds: TimeInterval = 0
        var cycles: [String: Int] = [:]
        var edges: [String: Int] = [:]
        var failures: [String] = []
        /// Rounds where a deadlock was reported and ended, yet another stuck part remained; the
        /// first one's diagnosis.
        var reportedButStuck = 0
        var firstReportedButStuck: String?
        /// Rounds that hung with no report; the first one's diagnosis.
        var silentHangs = 0
        var firstSilentHang: String?
    }

    func testEveryRandomRoundFinishesOrReportsEachDeadlockOnceAndOnlyRealOnes() {
        let rounds = stressIterations(2_000)
        let seed = StressRandom().seed
        let tally = LockedBox(Tally())
        let done = expectation(description: "every round ran")
        let started = Date()
        let misuse = misuse!
        let runner = Thread {
            // PROCEDURES_STRESS_ROUND=N: every round is round N of the seed, to study one round.
            let only = ProcessInfo.processInfo.environment["PROCEDURES_STRESS_ROUND"].flatMap(Int.init)
            for round in 0..<rounds {
                let made = only ?? round
                var random = StressRandom(seed: seed &+ UInt64(made) &* 0x9E37_79B9)
                let plan = WaitGraphRoundPlan(using: &random)
                let failure = Self.run(
                    plan, label: "PROCEDURES_STRESS_SEED=\(seed) round \(made)", random: &random, misuse: misuse, tally: tally)
                tally.mutate { tally in
                    tally.ran += 1
                    if let failure { tally.failures.append(failure) }
                }
                // A round that hangs leaves its procedures waiting: a few tell enough.
                if tally.value.failures.count >= 3 { break }
            }
            done.fulfill()
        }
        runner.start()
        wait(for: [done], timeout: Double(rounds) * Self.roundBound)
        let result = tally.value
        let seconds = Date().timeIntervalSince(started)
        let cycles = result.cycles.sorted { $0.value > $1.value }.map { "\($0.key): \($0.value)" }
        let edges = result.edges.sorted { $0.value > $1.value }.map { "\($0.key): \($0.value)" }
        print(
            """
            WaitForGraphStressTests: seed \(seed), \(result.ran) of \(rounds) rounds in \(String(format: "%.1f", seconds)) s \
            (\(String(format: "%.1f", result.endedSeconds)) s in rounds that ended): \
            \(result.clean) finished without a report, \(result.deadlocked) ended by a deadlock report \
            (\(result.mayDeadlock) could deadlock); cycles by their waits: \(cycles.joined(separator: ", ")); \
            waits named: \(edges.joined(separator: ", "))
            """)
        for failure in result.failures { XCTFail(failure) }
        guard result.failures.isEmpty else { return }
        // Every round that hangs is a failure, printed in full (seed, round, graph, waits).
        if let first = result.firstReportedButStuck {
            XCTFail("\(result.reportedButStuck) round(s) reported a deadlock but did not all finish; the first:\n\(first)")
        }
        if let first = result.firstSilentHang {
            XCTFail("\(result.silentHangs) round(s) hung with no report; the first:\n\(first)")
        }
        // The generator is tuned so that both endings are common.
        let least = max(1, rounds / 50)
        XCTAssertGreaterThanOrEqual(result.clean, least, "too few rounds finished without a deadlock")
        XCTAssertGreaterThanOrEqual(result.deadlocked, least, "too few rounds deadlocked")
    }

    /// Builds and runs one round; a description of what went wrong, or nil.
    private static func run(
        _ plan: WaitGraphRoundPlan, label: String, random: inout StressRandom, misuse: ProcedureMisuseRecorder, tally: LockedBox<Tally>
    ) -> String? {
        let started = Date()
        let categories = ["A", "B"].map { "wait-graph-\($0)-\(UUID().uuidString)" }
        let queues = plan.queueWidths.map { width -> ProcedureQueue in
            let queue = ProcedureQueue()
            if let width { queue.maxConcurrentOperationCount = width }
            return queue
        }
        // Reports by position: a finished round's procedures are freed, and their identities reused.
        let reportsBefore = misuse.all.count
        var roundReports: [ProcedureMisuse] { Array(misuse.all.dropFirst(reportsBefore)) }
        let finished = ArrivalCount()
        let gatesExecuting = ArrivalCount()
        let procedures = build(plan, categories: categories, finished: finished, gatesExecuting: gatesExecuting)
        let nodes = plan.nodes
        var held: [HeldProcedure] = []
        for (index, node) in nodes.enumerated() where node.kind == .held || node.kind == .gate {
            held.append(procedures[index] as! HeldProcedure)
        }
        func diagnosis(_ what: String) -> String {
            let waiting = nodes.indices.filter { !procedures[$0].isFinished }.map { index in
                "  \(nodes[index].name): \(procedures[index].waitingReason.map { "\($0)" } ?? "(no waiting reason)")"
            }
            let reports = queues.enumerated().map { "  q\($0.offset):\n\($0.element.waitingReport)" }
            let misuses = roundReports.map { "  \($0)" }
            return """
                \(label): \(what)
                graph:
                \(plan)
                unfinished procedures:
                \(waiting.joined(separator: "\n"))
                queues' waiting reports:
                \(reports.joined(separator: "\n"))
                misuse reports:
                \(misuses.joined(separator: "\n"))
                """
        }

        // First the gated groups, until each is executing (its gate runs)...
        let gated = nodes.indices.filter { nodes[$0].isGatedGroup }
        for index in gated { queues[nodes[index].queue!].addOperation(procedures[index]) }
        guard gatesExecuting.wait(for: gated.count, seconds: roundBound) else {
            for procedure in held { procedure.release() }
            return diagnosis("a gated group did not start within \(roundBound) s, before anything else was added")
        }
        // ...then everything else, in random order: procedures on the queues the groups hold
        // slots of, children of the running groups...
        let rest = nodes.indices.filter { index in
            (nodes[index].parent == nil && !nodes[index].isGatedGroup) || nodes[index].addedToRunningGroup
        }
        for index in rest.shuffled(using: &random) {
            if let parent = nodes[index].parent {
                (procedures[parent] as! GroupProcedure).addChild(procedures[index])
            } else {
                queues[nodes[index].queue!].addOperation(procedures[index])
            }
        }
        // ...then the held procedures are let go, in random order.
        for procedure in held.shuffled(using: &random) { procedure.release() }

        let ended = finished.wait(for: nodes.count, seconds: roundBound)
        let deadlocks = roundReports.filter { $0.kind == .deadlock }
        let others = roundReports.filter { $0.kind != .deadlock }
        guard ended else {
            guard !deadlocks.isEmpty else {
                let what = diagnosis("hung: not every procedure finished within \(roundBound) s, and no deadlock was reported")
                tally.mutate { tally in
                    tally.silentHangs += 1
                    if tally.firstSilentHang == nil { tally.firstSilentHang = what }
                }
                return nil
            }
            let what = diagnosis("not every procedure finished within \(roundBound) s, though a deadlock was reported and a procedure cancelled to end it")
            tally.mutate { tally in
                tally.reportedButStuck += 1
                if tally.firstReportedButStuck == nil { tally.firstReportedButStuck = what }
            }
            return nil
        }
        guard others.isEmpty else { return diagnosis("misuse other than a deadlock was reported") }
        guard deadlocks.isEmpty || plan.mayDeadlock else {
            return diagnosis("a deadlock was reported in a round that cannot deadlock")
        }
        var cycleKinds: [[String]] = []
        var reportedCycles: Set<[String]> = []
        for report in deadlocks {
            let cycle = report.message.components(separatedBy: ": none of them can ever go on.")[0]
            // The same waits in any rotation are the same cycle: ended once, reported once.
            guard reportedCycles.insert(cycle.components(separatedBy: "; ").sorted()).inserted else {
                return diagnosis("a deadlock was reported twice: \(cycle)")
            }
            var kinds: [String] = []
            for wait in cycle.components(separatedBy: "; ") {
                guard let kind = checkedKind(of: wait, in: plan, categories: categories) else {
                    return diagnosis("a deadlock was reported naming a wait the round does not have: \(wait)")
                }
                kinds.append(kind)
            }
            cycleKinds.append(kinds)
        }
        let seconds = Date().timeIntervalSince(started)
        tally.mutate { tally in
            tally.endedSeconds += seconds
            if plan.mayDeadlock { tally.mayDeadlock += 1 }
            if cycleKinds.isEmpty { tally.clean += 1 } else { tally.deadlocked += 1 }
            for kinds in cycleKinds {
                tally.cycles[Set(kinds).sorted().joined(separator: "+"), default: 0] += 1
                for kind in kinds { tally.edges[kind, default: 0] += 1 }
            }
        }
        return nil
    }

    /// The procedures of `plan`, each telling `finished` when
    /// it finishes (and a gate `gatesExecuting` when it executes).
    private static func build(_ plan: WaitGraphRoundPlan, categories: [String], finished: ArrivalCount, gatesExecuting: ArrivalCount) -> [Procedure] {
        let nodes = plan.nodes
        var procedures: [Procedure?] = Array(repeating: nil, count: nodes.count)
        for index in nodes.indices {
            let node = nodes[index]
            let procedure: Procedure
            switch node.kind {
            case .instant:
                procedure = TestProcedure(name: node.name)
            case .delay(let seconds):
                procedure = DelayProcedure(by: seconds)
            case .held, .gate:
                procedure = HeldProcedure(name: node.name)
                if node.kind == .gate { procedure.addDidExecuteBlockObserver { _ in gatesExecuting.arrive() } }
            case .group(let width):
                let group = GroupProcedure()
                if let width { group.maxConcurrentOperationCount = width }
                procedure = group
            }
            procedure.name = node.name
            for category in node.categories { procedure.addCondition(MutuallyExclusive<Never>(category: categories[category])) }
            procedure.addDidFinishBlockObserver { _, _ in finished.arrive() }
            procedures[index] = procedure
        }
        // Every dependency is set before anything is added.
        for (index, node) in nodes.enumerated() {
            for dependency in node.dependencies { procedures[index]!.addDependency(procedures[dependency]!) }
        }
        for (index, node) in nodes.enumerated() where node.isGroup {
            let initial = node.children.filter { !nodes[$0].addedToRunningGroup }.map { procedures[$0]! }
            (procedures[index] as! GroupProcedure).addChildren(initial)
        }
        return procedures.map { $0! }
    }

    /// The kind of one wait of a reported cycle ("X waits for …"), if the round has it: the
    /// dependency set, the child in the group, both on one queue or group, both asking for
    /// the category.
    private static func checkedKind(of wait: String, in plan: WaitGraphRoundPlan, categories: [String]) -> String? {
        let nodes = plan.nodes
        func index(_ name: Substring) -> Int? { nodes.firstIndex { $0.name == name } }
        let parts = wait.components(separatedBy: " waits for ")
        guard parts.count == 2, let waiter = index(Substring(parts[0])) else { return nil }
        let rest = parts[1]
        if rest.hasPrefix("its dependency "), let target = index(rest.dropFirst("its dependency ".count)) {
            return nodes[waiter].dependencies.contains(target) ? "dependency" : nil
        }
        if rest.hasPrefix("its child "), let target = index(rest.dropFirst("its child ".count)) {
            return nodes[target].parent == waiter ? "child" : nil
        }
        if rest.hasPrefix("its group "), rest.hasSuffix(" to start"),
            let target = index(rest.dropFirst("its group ".count).dropLast(" to start".count))
        {
            return nodes[waiter].parent == target ? "groupStart" : nil
        }
        if rest.hasPrefix("a slot held by "), let target = index(rest.dropFirst("a slot held by ".count)) {
            return plan.scheduler(of: waiter) == plan.scheduler(of: target) ? "slot" : nil
        }
        if rest.hasPrefix("category \"") {
            let fields = rest.components(separatedBy: "\" held by ")
            guard fields.count == 2, let category = categories.firstIndex(of: String(fields[0].dropFirst("category \"".count))),
                let target = index(Substring(fields[1]))
            else { return nil }
            return nodes[waiter].categories.contains(category) && nodes[target].categories.contains(category) ? "category" : nil
        }
        return nil
    }
}
