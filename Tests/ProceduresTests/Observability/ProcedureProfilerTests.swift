import Foundation
import ProceduresTestSupport
import ProceduresTesting
import XCTest

@testable import Procedures

final class ProcedureProfilerTests: XCTestCase {
    func testRecordsEveryStageInOrderForAQueue() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let first = TestProcedure(name: "first")
        let second = TestProcedure(name: "second")
        second.addDependency(first)
        wait(for: first, second, on: queue)

        let profiles = profiler.profiles
        XCTAssertEqual(profiles.map(\.name), ["first", "second"])
        for profile in profiles {
            let stages = [profile.createdAt, profile.enqueuedAt, profile.readyAt, profile.startedAt,
                profile.execution?.began, profile.execution?.ended, profile.finishedAt]
            XCTAssertFalse(stages.contains(nil), "\(profile.name) misses a stage: \(stages)")
            let times = stages.compactMap { $0 }
            XCTAssertEqual(times, times.sorted(), "\(profile.name)'s stages are out of order")
            XCTAssertFalse(profile.cancelled)
        }
        // The dependent became ready only after its dependency finished.
        XCTAssertGreaterThanOrEqual(profiles[1].readyAt!, profiles[0].finishedAt!)
        XCTAssertEqual(profiles[1].dependencies.map(\.name), ["first"])
    }

    func testAProcedureWithAConditionIsReadyOnceAndOnlyAfterItsConditionAnswered() {
        let queue = ProcedureQueue()
        let readiness = ReadinessRecorder()
        ProcedureInstrumentation.attach(readiness, to: queue)
        defer { ProcedureInstrumentation.detach(readiness) }
        let answered = LockedBox(false)
        let guarded = TestProcedure(name: "guarded")
        guarded.addCondition(BlockCondition { _, completion in
            // Answers later, on another thread.
            DispatchQueue.global().async {
                answered.mutate { $0 = true }
                completion(.satisfied)
            }
        })
        readiness.answered = answered
        wait(for: guarded, on: queue)
        XCTAssertEqual(readiness.readyEvents.value, [true], "one ready event, after the condition answered")
    }

    func testAttributesGroupChildrenToTheirGroupAtAnyDepth() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let leaf = TestProcedure(name: "leaf")
        let inner = GroupProcedure(operations: [leaf])
        inner.name = "inner"
        let outer = GroupProcedure(operations: [inner, TestProcedure(name: "sibling")])
        outer.name = "outer"
        wait(for: outer, on: queue)

        let byName = Dictionary(uniqueKeysWithValues: profiler.profiles.map { ($0.name, $0) })
        XCTAssertEqual(Set(byName.keys), ["outer", "inner", "leaf", "sibling"])
        XCTAssertEqual(byName["leaf"]?.identity.parent?.name, "inner")
        XCTAssertEqual(byName["inner"]?.identity.parent?.name, "outer")
        XCTAssertEqual(byName["sibling"]?.identity.parent?.name, "outer")
        XCTAssertNil(byName["outer"]?.identity.parent)
        XCTAssertEqual(byName["inner"]?.identity.parent?.id, byName["outer"]?.identity.procedure.id)
        // Children were enqueued (and ready) when their group was made, before anything
        // followed the group: they are still profiled in full.
        for name in ["leaf", "inner", "sibling"] {
            XCTAssertNotNil(byName[name]?.readyAt, name)
            XCTAssertNotNil(byName[name]?.execution, name)
        }
        // A group runs until its last child finished.
        XCTAssertGreaterThanOrEqual(byName["outer"]!.finishedAt!, byName["leaf"]!.finishedAt!)
    }

    func testRecordsCancellationAndErrors() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let failing = TestProcedure(name: "failing", error: TestError("boom"))
        let cancelled = TestProcedure(name: "cancelled")
        cancelled.cancel()
        wait(for: failing, cancelled, on: queue)

        let byName = Dictionary(uniqueKeysWithValues: profiler.profiles.map { ($0.name, $0) })
        XCTAssertEqual(byName["failing"]?.errors.count, 1)
        XCTAssertTrue(byName["failing"]?.failed ?? false)
        XCTAssertTrue(byName["cancelled"]?.cancelled ?? false)
        XCTAssertNil(byName["cancelled"]?.execution, "a procedure cancelled before it started never executes")
        let summary = profiler.summary()
        XCTAssertEqual(summary.count, 2)
        XCTAssertEqual(summary.cancelledCount, 1)
        XCTAssertEqual(summary.failedCount, 1)
    }

    func testACancelFromAWillExecuteObserverIsTimedBeforeTheFinish() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let procedure = TestProcedure(name: "stopped")
        procedure.addWillExecuteBlockObserver { $0.cancel() }
        wait(for: procedure, on: queue)
        let profile = profiler.profiles.first
        XCTAssertEqual(profile?.cancelled, true)
        XCTAssertNil(profile?.execution, "cancelled before execute()")
        XCTAssertGreaterThanOrEqual(profile!.cancelledAt!, profile!.startedAt!)
        XCTAssertGreaterThanOrEqual(profile!.finishedAt!, profile!.cancelledAt!)
    }

    func testChildrenOfAGroupAndProductsOfAProcedure() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let product = TestProcedure(name: "product")
        let producer = TestProcedure(name: "producer", produced: product)
        let group = GroupProcedure(operations: [producer, TestProcedure(name: "other")])
        wait(for: group, on: queue)
        wait(for: product)
        let profiles = Dictionary(uniqueKeysWithValues: profiler.profiles.map { ($0.name, $0) })
        XCTAssertEqual(Set(profiler.children(of: profiles["GroupProcedure"]!).map(\.name)), ["producer", "other", "product"])
        XCTAssertEqual(profiler.children(of: profiles["producer"]!).map(\.name), ["product"])
    }

    func testAttachedToOneProcedureFollowsItsChildrenAndProductsOnly() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        let product = TestProcedure(name: "product")
        let producer = TestProcedure(name: "producer", produced: product)
        let group = GroupProcedure(operations: [producer])
        group.name = "group"
        profiler.attach(to: group)
        defer { profiler.detach() }
        let bystander = TestProcedure(name: "bystander")
        wait(for: group, bystander, on: queue)
        wait(for: product)

        let byName = Dictionary(uniqueKeysWithValues: profiler.profiles.map { ($0.name, $0) })
        XCTAssertEqual(Set(byName.keys), ["group", "producer", "product"])
        XCTAssertEqual(byName["product"]?.identity.producer?.name, "producer")
        XCTAssertEqual(byName["product"]?.identity.parent?.name, "group")
    }

    func testSummaryPutsTheSlowestFirstAndSeparatesWaitingFromRunning() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let slow = TestProcedure(name: "slow", delay: 0.05)
        let quick = (0..<5).map { TestProcedure(name: "quick \($0)") }
        let dependent = TestProcedure(name: "dependent")
        dependent.addDependency(slow)
        wait(forAll: [slow, dependent] + quick, on: queue)

        let summary = profiler.summary(slowest: 3)
        XCTAssertEqual(summary.slowest.first?.name, "slow")
        XCTAssertEqual(summary.slowest.count, 3)
        let dependentProfile = profiler.profiles.first { $0.name == "dependent" }!
        // It waited for the slow one (50 ms) and ran briefly.
        XCTAssertGreaterThanOrEqual(dependentProfile.waitingTime!, .milliseconds(50))
        XCTAssertGreaterThanOrEqual(dependentProfile.dependencyWaitTime!, .milliseconds(50))
        XCTAssertGreaterThan(summary.totalRunningTime, .milliseconds(50))
        XCTAssertTrue(summary.description.contains("slow#"), summary.description)
    }

    func testKeepsAtMostItsCapacityAndCountsTheRest() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler(capacity: 10)
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let count = stressIterations(2_000)
        let procedures = (0..<count).map { TestProcedure(name: "p\($0)") }
        wait(forAll: procedures, on: queue)

        let profiles = profiler.profiles
        XCTAssertLessThanOrEqual(profiles.count, 10)
        XCTAssertEqual(profiles.count + profiler.droppedCount, count)
        XCTAssertEqual(profiler.summary().droppedCount, profiler.droppedCount)
    }

    func testAMillionEventsStayWithinTheBuffer() {
        // Events fed straight in: a million real procedures would take far too long here.
        let profiler = ProcedureProfiler(capacity: 1_000)
        let procedure = BlockProcedure {}
        let events = stressIterations(1_000_000) / 4
        for index in 0..<events {
            let identity = ProcedureIdentity(
                procedure: .init(id: UInt64(index + 1), name: "p"), parent: nil, producer: nil)
            let info = ProcedureIdentity.Snapshot(identity: identity, createdAt: nil)
            for kind: ProcedureLifecycleEvent.Kind in [.enqueued, .ready, .started, .finished(errors: [], cancelled: false)] {
                profiler.record(.init(kind: kind, procedure: procedure, info: info, timestamp: UInt64(index), thread: 1))
            }
        }
        XCTAssertEqual(profiler.profiles.count, min(1_000, events))
        XCTAssertEqual(profiler.droppedCount, max(0, events - 1_000))
        // The newest are kept.
        XCTAssertEqual(profiler.profiles.last?.identity.procedure.id, UInt64(events))
    }

    func testAQueueMadeWhereAFreedOneWasIsNotFollowed() {
        // A new queue often lands at the freed queue's address; identity must not be by address.
        let profiler = ProcedureProfiler()
        defer { profiler.detach() }
        for _ in 0..<20 {
            profiler.attach(to: ProcedureQueue())
            let queue = ProcedureQueue()
            wait(for: TestProcedure(name: "elsewhere"), on: queue)
        }
        XCTAssertTrue(profiler.profiles.isEmpty, "followed \(profiler.profiles.count) procedures of other queues")
    }

    func testDetachedProfilerRecordsNothingMore() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        wait(for: TestProcedure(name: "before"), on: queue)
        profiler.detach()
        wait(for: TestProcedure(name: "after"), on: queue)
        XCTAssertEqual(profiler.profiles.map(\.name), ["before"])
    }
}

extension ProcedureProfilerTests {
    /// ProcedureKit's profiler handed its result over when the procedure finished; here the
    /// profile of a procedure the profiler was attached to is complete once `wait(for:)`
    /// returns, whether it finished, was cancelled by a will-execute observer, or produced.
    func testAProcedureProfiledOnItsOwnIsCompleteWhenWaitReturns() {
        let product = TestProcedure(name: "product")
        let finishing = TestProcedure(name: "finishing", produced: product)
        let stopped = TestProcedure(name: "stopped")
        stopped.addWillExecuteBlockObserver { $0.cancel() }
        let profiler = ProcedureProfiler()
        profiler.attach(to: finishing)
        profiler.attach(to: stopped)
        defer { profiler.detach() }
        wait(for: finishing, stopped)
        wait(for: product)

        let byName = Dictionary(uniqueKeysWithValues: profiler.profiles.map { ($0.name, $0) })
        for name in ["finishing", "stopped", "product"] {
            guard let profile = byName[name] else {
                XCTFail("\(name) was not profiled: \(byName.keys)")
                continue
            }
            let stages = [profile.enqueuedAt, profile.readyAt, profile.startedAt, profile.finishedAt]
            XCTAssertFalse(stages.contains(nil), "\(name) misses a stage: \(stages)")
            XCTAssertEqual(stages.compactMap { $0 }, stages.compactMap { $0 }.sorted(), "\(name)'s stages are out of order")
        }
        XCTAssertEqual(byName["finishing"]?.cancelled, false)
        XCTAssertNotNil(byName["finishing"]?.execution)
        XCTAssertEqual(byName["stopped"]?.cancelled, true)
        XCTAssertGreaterThanOrEqual(byName["stopped"]!.finishedAt!, byName["stopped"]!.cancelledAt!)
        XCTAssertEqual(profiler.children(of: byName["finishing"]!).map(\.name), ["product"])
    }

    /// A profiler follows a procedure from its enqueue: attaching it to one already enqueued
    /// (on a queue, or as a group's child) or finished would record nothing, so the call is
    /// ignored and reported instead of failing silently.
    func testAttachingToAProcedureAlreadyEnqueuedIsReported() {
        let misuse = ProcedureMisuseRecorder()
        defer { misuse.stop() }
        let gate = BlockProcedure { _ in }
        let waiting = TestProcedure(name: "waiting")
        waiting.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addOperations([gate, waiting], waitUntilFinished: false)
        let child = TestProcedure(name: "child")
        let group = GroupProcedure(operations: [child])
        let done = TestProcedure(name: "done")
        wait(for: done)

        let profiler = ProcedureProfiler()
        defer { profiler.detach() }
        for late in [waiting, child, done] { profiler.attach(to: late) }
        gate.finish()
        wait(for: waiting, group)

        XCTAssertTrue(profiler.profiles.isEmpty, "\(profiler.profiles.map(\.name))")
        for late in [waiting, child, done] {
            XCTAssertEqual(misuse.kinds(about: late), [.instrumentAttachedAfterEnqueue], late.name ?? "")
        }
        let early = TestProcedure(name: "early")
        profiler.attach(to: early)
        wait(for: early)
        XCTAssertEqual(misuse.kinds(about: early), [], "attaching before the enqueue is the intended use")
        XCTAssertEqual(profiler.profiles.map(\.name), ["early"])
    }

    /// A group profiled on its own lists each of its children, each profiled in full.
    func testAGroupProfiledOnItsOwnListsItsChildren() {
        let group = GroupProcedure(operations: [TestProcedure(name: "one"), TestProcedure(name: "two")])
        group.name = "group"
        let profiler = ProcedureProfiler()
        profiler.attach(to: group)
        defer { profiler.detach() }
        wait(for: group)
        guard let profile = profiler.profiles.first(where: { $0.name == "group" }) else {
            return XCTFail("the group was not profiled")
        }
        XCTAssertTrue(profile.isFinished)
        let children = profiler.children(of: profile)
        XCTAssertEqual(Set(children.map(\.name)), ["one", "two"])
        for child in children {
            XCTAssertTrue(child.isFinished, child.name)
            XCTAssertGreaterThanOrEqual(profile.finishedAt!, child.finishedAt!, "a group finishes after its children")
        }
    }
}

/// Records, for each `ready` event, whether the condition had answered by then.
private final class ReadinessRecorder: ProcedureInstrument, @unchecked Sendable {
    // @unchecked: `answered` is set before the procedure is enqueued and only read after.
    var answered: LockedBox<Bool>?
    let readyEvents = LockedBox<[Bool]>([])
    func record(_ event: ProcedureLifecycleEvent) {
        guard case .ready = event.kind else { return }
        let answered = self.answered?.value ?? false
        readyEvents.mutate { $0.append(answered) }
    }
}
