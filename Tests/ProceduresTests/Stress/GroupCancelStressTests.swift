import Foundation
import ProceduresTesting
import XCTest

/// One group of the stress test, with what the adding thread saw.
private final class GroupRun: @unchecked Sendable {
    // @unchecked: `group`, `children` and `cancelError` are immutable; the rest are
    // thread-safe boxes.
    let group: GroupProcedure
    let children: [Operation]
    let cancelError: TestError?
    /// For each child: whether `cancel()` had returned before `addChild` was called.
    let addedAfterCancel = LockedBox<[Bool]>([])
    let didFinishCount = LockedBox(0)
    let unfinishedAtDidFinish = LockedBox<[String]?>(nil)
    /// When (on `clock`) each child started to run, and when the group's did-cancel ran.
    let clock = LockedBox(0)
    let startedAt = LockedBox<[ObjectIdentifier: Int]>([:])
    let didCancelAt = LockedBox<Int?>(nil)

    func tick() -> Int { clock.mutate { $0 += 1; return $0 } }
    func noteStarted(_ child: AnyObject) {
        let now = tick()
        startedAt.mutate { $0[ObjectIdentifier(child)] = now }
    }

    init(group: GroupProcedure, children: [Operation], cancelError: TestError?) {
        self.group = group
        self.children = children
        self.cancelError = cancelError
    }
}

final class GroupCancelStressTests: MisuseRecordingTestCase {
    private func makeChild(_ kind: Int, name: String, recorder: ProcedureEventRecorder, run: LockedBox<GroupRun?>) -> Operation {
        let procedure: Procedure
        switch kind {
        case 0: procedure = TestProcedure(name: name, recorder: recorder)  // finishes at once
        case 1: procedure = TestProcedure(name: name, delay: 0.001, recorder: recorder)  // a little later
        case 2:  // finishes only when cancelled
            procedure = WaitForCancelProcedure(name: name)
            procedure.addObserver(recorder)
        default:
            let operation = BlockOperation()
            operation.addExecutionBlock { [unowned operation] in run.value?.noteStarted(operation) }
            operation.name = name
            return operation
        }
        procedure.addWillExecuteBlockObserver { procedure in run.value?.noteStarted(procedure) }
        return procedure
    }

    func testGroupCancelWhileChildrenAreAdded() {
        let iterations = stressIterations(1500)
        let childrenPerGroup = 12
        var random = StressRandom()
        let seed = random.seed
        let recorder = ProcedureEventRecorder()
        let queue = ProcedureQueue()
        let allFinished = exactCountExpectation("\(iterations) groups finished", count: iterations)
        var runs: [GroupRun] = []
        var runBoxes: [LockedBox<GroupRun?>] = []  // cleared at the end: children refer to them
        defer { for box in runBoxes { box.mutate { $0 = nil } } }

        for iteration in 0..<iterations {
            // The anchor holds the group open until the cancel, so no add before it is refused.
            let anchor = WaitForCancelProcedure(name: "anchor \(iteration)")
            anchor.addObserver(recorder)
            let group = GroupProcedure(operations: [anchor])
            group.name = "group \(iteration)"
            group.addObserver(recorder)
            if Bool.random(using: &random) { group.maxConcurrentOperationCount = 1 }
            let runBox = LockedBox<GroupRun?>(nil)
            let children = (0..<childrenPerGroup).map {
                makeChild(Int.random(in: 0..<4, using: &random), name: "child \(iteration).\($0)", recorder: recorder, run: runBox)
            }
            let cancelError = Bool.random(using: &random) ? TestError("group \(iteration)") : nil
            let run = GroupRun(group: group, children: [anchor] + children, cancelError: cancelError)
            runBox.mutate { $0 = run }
            runBoxes.append(runBox)
            run.addedAfterCancel.mutate { $0.append(false) }  // the anchor
            group.addDidFinishBlockObserver { group, _ in
                run.didFinishCount.mutate { $0 += 1 }
                run.unfinishedAtDidFinish.mutate {
                    $0 = group.children.filter { !$0.isFinished }.map { $0.name ?? "?" }
                }
                allFinished.fulfill()
            }
            group.addDidCancelBlockObserver { _, _ in
                let now = run.tick()
                run.didCancelAt.mutate { $0 = now }
            }
            runs.append(run)

            // Sometimes the group is already running when the race starts, sometimes not yet.
            let enqueueFirst = Bool.random(using: &random)
            if enqueueFirst { queue.addOperation(group) }
            let cancelAfter = Int.random(in: 0...childrenPerGroup, using: &random)
            let added = LockedBox(0)
            let cancelReturned = LockedBox(false)
            stressConcurrently([
                {
                    for child in children {
                        let after = cancelReturned.value
                        group.addChild(child)
                        run.addedAfterCancel.mutate { $0.append(after) }
                        added.mutate { $0 += 1 }
                    }
                },
                {
                    while added.value < cancelAfter { sched_yield() }
                    if let cancelError { group.cancel(withError: cancelError) } else { group.cancel() }
                    cancelReturned.mutate { $0 = true }
                },
            ])
            if !enqueueFirst { queue.addOperation(group) }
        }

        let result = XCTWaiter().wait(for: [allFinished], timeout: 60)
        XCTAssertEqual(result, .completed, "seed \(seed): not every group finished")
        XCTAssertEqual(recorder.overlaps, [], "seed \(seed)")

        var failures: [String] = []
        var counts = (accepted: 0, refused: 0, addedAfterCancel: 0)
        for run in runs {
            let group = run.group
            let label = "seed \(seed), \(group.stateSummary)"
            if run.didFinishCount.value != 1 { failures.append("\(label): did-finish ran \(run.didFinishCount.value) times") }
            if run.unfinishedAtDidFinish.value != [] {
                failures.append("\(label): unfinished children at did-finish: \(run.unfinishedAtDidFinish.value ?? ["(did-finish never ran)"])")
            }
            if !group.isCancelled { failures.append("\(label): not cancelled") }
            // Its own cancel errors, not echoes.
            let expectedErrors = run.cancelError.map { [$0.id] } ?? []
            if group.errors.count != expectedErrors.count || testErrorIDs(group.errors) != expectedErrors {
                failures.append("\(label): errors \(group.errors)")
            }

            let accepted = Set(group.children.map(ObjectIdentifier.init))
            let refusedCount = misuse.kinds(about: group).filter { $0 == .childAddedToFinishingGroup }.count
            var refused = 0
            for (child, after) in zip(run.children, run.addedAfterCancel.value) {
                let name = child.name ?? "?"
                guard accepted.contains(ObjectIdentifier(child)) else {
                    refused += 1
                    if child.isFinished || child.isExecuting { failures.append("\(label): refused \(name) ran") }
                    continue
                }
                counts.accepted += 1
                if !child.isFinished { failures.append("\(label): \(name) not finished") }
                if after {
                    counts.addedAfterCancel += 1
                    if !child.isCancelled {
                        let started = run.startedAt.value[ObjectIdentifier(child)]
                        if let started, let didCancel = run.didCancelAt.value, started < didCancel {
                            failures.append("cancel after finish or uncancelled late child: " + "\(label): \(name)")
                        } else {
                            failures.append("\(label): \(name) added after cancel() returned is not cancelled")
                        }
                    }
                }
                if let procedure = child as? Procedure, procedure.isCancelled, let cancelError = run.cancelError {
                    let inner = parentCancelledErrors(procedure.errors)
                    if inner?.compactMap({ $0 as? TestError }) != [cancelError] {
                        failures.append("\(label): \(name) errors \(procedure.errors)")
                    }
                }
            }
            counts.refused += refused
            if refused != refusedCount { failures.append("\(label): \(refused) refused, \(refusedCount) reported") }
        }
        XCTAssertEqual(Array(failures.prefix(10)), [], "\(failures.count) failure(s)")
        print("GroupCancelStressTests: \(iterations) groups, seed \(seed), children \(counts)")
    }
}
