import InMemoryLogging
import Logging
import Procedures
import ProceduresLogging
import ProceduresTesting
import XCTest

final class SwiftLogSinkTests: XCTestCase {
    override func tearDown() {
        ProcedureLog.minimumLevel = nil
        ProcedureLog.sink = StandardErrorLogSink()
        super.tearDown()
    }

    func testMessagesReachTheLoggerWithLevelAndProcedureMetadata() {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test", factory: { _ in handler })
        logger.logLevel = .trace
        ProcedureLog.sink = SwiftLogSink(logger: logger)
        ProcedureLog.minimumLevel = .debug

        final class Chatty: Procedure, @unchecked Sendable {
            override func execute() {
                log.notice("working")
                finish(withError: TestError("bad"))
            }
        }
        let chatty = Chatty()
        chatty.name = "chatty"
        let group = GroupProcedure(operations: [chatty])
        group.name = "outer"
        wait(for: group)

        let about = handler.entries.filter { $0.metadata["procedure"] == "chatty" }
        let working = about.first { $0.message == "working" }
        XCTAssertEqual(working?.level, .notice)
        XCTAssertEqual(working?.metadata["procedure.group"]?.description.hasPrefix("outer#"), true)
        XCTAssertNotNil(working?.metadata["procedure.id"])
        XCTAssertNil(working?.metadata["procedure.event"])
        let failed = about.first { $0.message.description.hasPrefix("finished with errors") }
        XCTAssertEqual(failed?.level, .warning)
        XCTAssertEqual(failed?.metadata["procedure.event"], "library")
        XCTAssertTrue(about.contains { $0.message == "started" && $0.level == .debug })
        XCTAssertFalse(about.contains { $0.level == .trace }, "below the minimum level")
    }

    func testLevelsMapOneToOne() {
        XCTAssertEqual(ProcedureLog.Level.allCases.map(SwiftLogSink.level), Logger.Level.allCases)
    }
}
