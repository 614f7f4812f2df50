import InMemoryTracing
import Procedures
import ProceduresTesting
import ProceduresTracing
import Tracing
import XCTest

final class ProcedureTracerTests: XCTestCase {
    func testASpanPerProcedureNestedUnderItsGroup() throws {
        let tracer = InMemoryTracer()
        let tracing = ProcedureTracer(tracer: tracer)
        let queue = ProcedureQueue()
        tracing.attach(to: queue)
        defer { tracing.detach() }
        let leaf = TestProcedure(name: "leaf")
        let inner = GroupProcedure(operations: [leaf])
        inner.name = "inner"
        let outer = GroupProcedure(operations: [inner])
        outer.name = "outer"
        wait(for: outer, on: queue)

        let spans = Dictionary(uniqueKeysWithValues: tracer.finishedSpans.map { ($0.operationName, $0) })
        XCTAssertEqual(Set(spans.keys), ["outer", "inner", "leaf"])
        XCTAssertNil(spans["outer"]?.parentSpanID)
        XCTAssertEqual(spans["inner"]?.parentSpanID, spans["outer"]?.spanID)
        XCTAssertEqual(spans["leaf"]?.parentSpanID, spans["inner"]?.spanID)
        XCTAssertEqual(spans["leaf"]?.traceID, spans["outer"]?.traceID)
        XCTAssertEqual(spans["leaf"]?.events.map(\.name), ["ready", "started"])
        XCTAssertEqual(tracing.openSpanCount, 0)
    }

    func testAProducedProcedureIsAChildOfItsProducer() throws {
        let tracer = InMemoryTracer()
        let tracing = ProcedureTracer(tracer: tracer)
        let queue = ProcedureQueue()
        tracing.attach(to: queue)
        defer { tracing.detach() }
        let product = TestProcedure(name: "product")
        let producer = TestProcedure(name: "producer", produced: product)
        wait(for: producer, on: queue)
        wait(for: product)
        let spans = Dictionary(uniqueKeysWithValues: tracer.finishedSpans.map { ($0.operationName, $0) })
        XCTAssertEqual(spans["product"]?.parentSpanID, spans["producer"]?.spanID)
    }

    func testErrorsAndCancellationAreRecorded() throws {
        let tracer = InMemoryTracer()
        let tracing = ProcedureTracer(tracer: tracer)
        let queue = ProcedureQueue()
        tracing.attach(to: queue)
        defer { tracing.detach() }
        let failing = TestProcedure(name: "failing", error: TestError("boom"))
        let cancelled = TestProcedure(name: "cancelled")
        cancelled.cancel(withError: TestError("stop"))
        wait(for: failing, cancelled, on: queue)

        let spans = Dictionary(uniqueKeysWithValues: tracer.finishedSpans.map { ($0.operationName, $0) })
        XCTAssertEqual(spans["failing"]?.errors.map { "\($0.error)" }, ["TestError(boom)"])
        XCTAssertEqual(spans["failing"]?.status?.code, .error)
        XCTAssertEqual(spans["cancelled"]?.attributes["procedure.cancelled"]?.toSpanAttribute(), true)
        XCTAssertEqual(spans["cancelled"]?.errors.map { "\($0.error)" }, ["TestError(stop)"], "the cancel error is the procedure's error")
    }

    func testACancelWhileRunningIsAnEventOfTheSpan() throws {
        let tracer = InMemoryTracer()
        let tracing = ProcedureTracer(tracer: tracer)
        let queue = ProcedureQueue()
        tracing.attach(to: queue)
        defer { tracing.detach() }
        let running = BlockProcedure(asyncBlock: { procedure in
            procedure.cancel()
            procedure.finish()
        })
        running.name = "running"
        wait(for: running, on: queue)
        let span = tracer.finishedSpans.first { $0.operationName == "running" }
        XCTAssertEqual(span?.events.map(\.name), ["ready", "started", "cancelled"])
        XCTAssertEqual(span?.attributes["procedure.cancelled"]?.toSpanAttribute(), true)
    }

    func testTopLevelSpansBelongToTheGivenContext() throws {
        let tracer = InMemoryTracer()
        let request = tracer.startSpan("request")
        let tracing = ProcedureTracer(tracer: tracer, context: request.context)
        let queue = ProcedureQueue()
        tracing.attach(to: queue)
        defer { tracing.detach() }
        wait(for: TestProcedure(name: "work"), on: queue)
        request.end()
        let spans = Dictionary(uniqueKeysWithValues: tracer.finishedSpans.map { ($0.operationName, $0) })
        XCTAssertEqual(spans["work"]?.parentSpanID, spans["request"]?.spanID)
    }
}
