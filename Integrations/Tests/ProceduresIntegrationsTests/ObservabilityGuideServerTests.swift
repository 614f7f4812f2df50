import Logging
import Metrics
import Procedures
import ProceduresLogging
import ProceduresMetrics
import ProceduresTesting
import ProceduresTracing
import Tracing
import XCTest

// Documentation/Observability.md, the server wiring, verbatim. It runs on whatever backends
// are bootstrapped: none in this process, so swift-log's default handler and the no-op
// metrics and tracer.
final class ObservabilityGuideServerTests: XCTestCase {
    override func tearDown() {
        ProcedureLog.minimumLevel = nil
        ProcedureLog.sink = StandardErrorLogSink()
        super.tearDown()
    }

    func testWiringAServerQueue() {
        let queue = ProcedureQueue()
        ProcedureLog.sink = SwiftLogSink(logger: Logger(label: "procedures"))
        ProcedureLog.minimumLevel = .notice
        let metrics = ProcedureMetrics()
        metrics.attach(to: queue)
        let tracing = ProcedureTracer()
        tracing.attach(to: queue)
        defer {
            metrics.detach()
            tracing.detach()
        }
        let work = GroupProcedure(operations: [BlockProcedure {}, BlockProcedure {}])
        wait(for: work, on: queue)
        XCTAssertTrue(ProcedureLog.sink is SwiftLogSink)
        XCTAssertEqual(tracing.openSpanCount, 0, "every span was ended")
    }
}
