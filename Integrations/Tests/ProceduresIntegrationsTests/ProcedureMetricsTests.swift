import MetricsTestKit
import Procedures
import ProceduresMetrics
import ProceduresTesting
import XCTest

final class ProcedureMetricsTests: XCTestCase {
    func testCountsOutcomesAndTimesDurationAndQueueWait() throws {
        let metrics = TestMetrics()
        let recorder = ProcedureMetrics(factory: metrics, dimensions: [("service", "test")])
        let queue = ProcedureQueue()
        recorder.attach(to: queue)
        defer { recorder.detach() }
        let slow = TestProcedure(name: "slow", delay: 0.02)
        let dependent = TestProcedure(name: "dependent")
        dependent.addDependency(slow)
        let failing = TestProcedure(name: "failing", error: TestError("x"))
        let cancelled = TestProcedure(name: "cancelled")
        cancelled.cancel()
        let group = GroupProcedure(operations: [TestProcedure(name: "child")])
        wait(for: slow, dependent, failing, cancelled, group, on: queue)

        let dimensions = [("service", "test")]
        // slow, dependent, failing, cancelled, the group and its child.
        XCTAssertEqual(try metrics.expectCounter("procedures_started_total", dimensions).totalValue, 6)
        XCTAssertEqual(try metrics.expectCounter("procedures_finished_total", dimensions).totalValue, 6)
        XCTAssertEqual(try metrics.expectCounter("procedures_failed_total", dimensions).totalValue, 1)
        XCTAssertEqual(try metrics.expectCounter("procedures_cancelled_total", dimensions).totalValue, 1)
        let durations = try metrics.expectTimer("procedures_duration", dimensions).values
        XCTAssertEqual(durations.count, 6)
        XCTAssertGreaterThanOrEqual(durations.max() ?? 0, 20_000_000, "the slow one ran 20 ms")
        let waits = try metrics.expectTimer("procedures_queue_wait", dimensions).values
        XCTAssertEqual(waits.count, 6)
        XCTAssertGreaterThanOrEqual(waits.max() ?? 0, 20_000_000, "the dependent waited for the slow one")
    }

    func testDimensionByNameSplitsTheSeries() throws {
        let metrics = TestMetrics()
        let recorder = ProcedureMetrics(factory: metrics, prefix: "jobs", dimensionByName: true)
        let queue = ProcedureQueue()
        recorder.attach(to: queue)
        defer { recorder.detach() }
        wait(for: TestProcedure(name: "a"), TestProcedure(name: "a"), TestProcedure(name: "b"), on: queue)
        XCTAssertEqual(try metrics.expectCounter("jobs_finished_total", [("procedure", "a")]).totalValue, 2)
        XCTAssertEqual(try metrics.expectCounter("jobs_finished_total", [("procedure", "b")]).totalValue, 1)
    }
}
