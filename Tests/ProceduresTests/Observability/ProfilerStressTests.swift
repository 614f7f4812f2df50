import Foundation
import ProceduresTesting
import XCTest

@testable import Procedures

final class ProfilerStressTests: XCTestCase {
    /// Groups running at once, each given a child at creation and one once running, while
    /// being followed: every procedure is profiled once, complete, under the right group.
    func testEveryChildOfConcurrentlyGrowingGroupsIsProfiledOnceUnderItsGroup() {
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        profiler.attach(to: queue)
        defer { profiler.detach() }
        let groups = (0..<stressIterations(200)).map { index -> GroupProcedure in
            let group = GroupProcedure(operations: [TestProcedure(name: "first \(index)")])
            group.name = "group \(index)"
            // Added once the group is followed and running, while other groups run on other threads.
            group.addWillExecuteBlockObserver { group in
                group.addChild(TestProcedure(name: "late \(index)"))
            }
            return group
        }
        wait(forAll: groups, on: queue, timeout: 30)

        let profiles = profiler.profiles
        XCTAssertEqual(profiles.count, groups.count * 3, "each group, its first and its late child")
        XCTAssertEqual(Set(profiles.map(\.identity.procedure.id)).count, profiles.count, "profiled once each")
        for profile in profiles {
            XCTAssertNotNil(profile.finishedAt, "\(profile.identity) did not finish in the profile")
            XCTAssertNotNil(profile.startedAt, "\(profile.identity)")
            if profile.name.hasPrefix("group") { continue }
            let index = profile.name.split(separator: " ").last!
            XCTAssertEqual(profile.identity.parent?.name, "group \(index)")
        }
    }

    /// A profiler attached to a procedure at the moment another thread enqueues it either
    /// follows it in full or reports the late attach: never neither, never both.
    func testAttachRacingTheEnqueueIsFollowedOrReportedNeverLost() {
        let misuse = ProcedureMisuseRecorder()
        defer { misuse.stop() }
        let queue = ProcedureQueue()
        let profiler = ProcedureProfiler()
        defer { profiler.detach() }
        let procedures = (0..<stressIterations(1000)).map { TestProcedure(name: "raced \($0)") }
        let bothSidesDone = expectation(description: "every attach and enqueue returned")
        bothSidesDone.expectedFulfillmentCount = procedures.count * 2
        for procedure in procedures {
            ThreadRace.run(
                {
                    profiler.attach(to: procedure)
                    bothSidesDone.fulfill()
                },
                {
                    queue.addOperation(procedure)
                    bothSidesDone.fulfill()
                })
        }
        wait(for: [bothSidesDone], timeout: 30)
        wait(forAll: procedures, on: queue, timeout: 30)

        let profiled = Dictionary(uniqueKeysWithValues: profiler.profiles.map { ($0.name, $0) })
        var followed = 0
        for procedure in procedures {
            let name = procedure.name ?? ""
            let reported = misuse.kinds(about: procedure) == [.instrumentAttachedAfterEnqueue]
            if let profile = profiled[name] {
                followed += 1
                XCTAssertFalse(reported, "\(name) was followed and reported")
                XCTAssertNotNil(profile.enqueuedAt, name)
                XCTAssertNotNil(profile.finishedAt, name)
            } else {
                XCTAssertTrue(reported, "\(name) was neither followed nor reported: \(misuse.kinds(about: procedure))")
            }
        }
        XCTAssertEqual(profiled.count, followed, "only the raced procedures are profiled")
    }

    /// Instruments attached and detached while procedures run never crash or deadlock them.
    func testAttachingAndDetachingWhileProceduresRun() {
        let queue = ProcedureQueue()
        let procedures = (0..<stressIterations(2_000)).map { TestProcedure(name: "p\($0)") }
        let churn = DispatchQueue(label: "churn")
        let done = expectation(description: "churned")
        churn.async {
            for _ in 0..<stressIterations(500) {
                let profiler = ProcedureProfiler(capacity: 16)
                profiler.attach(to: queue)
                profiler.detach()
            }
            done.fulfill()
        }
        wait(forAll: procedures, on: queue, timeout: 30)
        wait(for: [done], timeout: 30)
        XCTAssertFalse(ProcedureInstrumentation.isActive, "nothing left attached")
    }
}
