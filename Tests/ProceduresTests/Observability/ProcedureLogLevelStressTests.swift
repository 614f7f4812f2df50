import Foundation
import ProceduresTesting
import Synchronization
import XCTest

@testable import Procedures

final class ProcedureLogLevelStressTests: OwnLogLevelTestCase {
    /// Threads log from procedures while others set and reset those procedures' levels and
    /// the process-wide level. Every level ever set is `.notice` or above (or off), so no
    /// `.info` message may ever be written, whatever the interleaving; and once every level is
    /// reset, no procedure counts as having one.
    func testChangingLevelsWhileManyThreadsLogIsSafe() {
        let procedures = (0..<8).map { index in resettingAtTearDown(BlockProcedure {}).named("p\(index)") }
        let iterations = stressIterations(20_000)
        let infoBuilt = Atomic<Int>(0)
        let ownLevels: [ProcedureLog.Level?] = [.notice, .critical, nil]
        let globalLevels: [ProcedureLog.Level?] = [.warning, nil, .error]
        DispatchQueue.concurrentPerform(iterations: 6) { thread in
            for step in 0..<iterations {
                let procedure = procedures[(step &+ thread) % procedures.count]
                switch thread {
                case 0:
                    procedure.log.minimumLevel = ownLevels[step % ownLevels.count]
                case 1:
                    if step % 3 == 0 { procedure.log.resetMinimumLevel() } else { procedure.log.minimumLevel = .notice }
                case 2:
                    if step % 64 == 0 { ProcedureLog.minimumLevel = globalLevels[(step / 64) % globalLevels.count] }
                    procedure.log.critical("critical \(step)")
                default:
                    procedure.log.info({
                        infoBuilt.add(1, ordering: .relaxed)
                        return "info \(step)"
                    }())
                    procedure.log.warning("warning \(step)")
                }
            }
        }
        XCTAssertEqual(infoBuilt.load(ordering: .relaxed), 0, "an .info message was built")
        XCTAssertFalse(sink.entries.contains { $0.level == .info }, "an .info message was written")
        XCTAssertTrue(sink.entries.contains { $0.level == .critical }, "the test logged nothing at all")

        for procedure in procedures { procedure.log.resetMinimumLevel() }
        XCTAssertEqual(ProcedureLogLevels.ownLevelCount.load(ordering: .relaxed), 0, "the count drifted")
        ProcedureLog.minimumLevel = nil
        XCTAssertFalse(ProcedureInstrumentation.isActive)
        XCTAssertEqual(ProcedureLogLevels.gate.load(ordering: .relaxed), ProcedureLogLevels.off)
    }

    /// Procedures given levels, reset and freed on many threads at once: every one stops
    /// counting when it goes, so the hooks are off again afterwards.
    func testProceduresWithLevelsFreedConcurrentlyLeaveNoneCounted() {
        let iterations = stressIterations(5_000)
        let traced = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for step in 0..<iterations {
                let procedure = BlockProcedure {}
                procedure.log.minimumLevel = step.isMultiple(of: 2) ? .debug : nil
                if (step &+ thread).isMultiple(of: 3) {
                    procedure.log.resetMinimumLevel()
                } else if step.isMultiple(of: 2) {
                    traced.add(1, ordering: .relaxed)
                }
                procedure.log.debug("debug \(step)")
            }  // each procedure is freed here, on its thread
        }
        XCTAssertEqual(ProcedureLogLevels.ownLevelCount.load(ordering: .relaxed), 0)
        XCTAssertFalse(ProcedureInstrumentation.isActive)
        XCTAssertEqual(
            sink.entries.count, traced.load(ordering: .relaxed),
            "exactly the messages of procedures that kept their .debug level")
    }
}

extension Procedure {
    fileprivate func named(_ name: String) -> Self {
        self.name = name
        return self
    }
}
