import Foundation
import ProceduresTesting
import XCTest

/// `Procedure.identity`: name and process-unique number, the one logs and traces show.
final class ProcedureIdentityTests: LogTestCase {
    func testTheIdentityOfOneProcedureIsStable() {
        let procedure = TestProcedure(name: "Download")
        XCTAssertEqual(procedure.identity, procedure.identity)
        XCTAssertEqual(procedure.identity.hashValue, procedure.identity.hashValue)
    }

    func testTwoProceduresWithTheSameNameHaveDifferentIdentities() {
        let first = TestProcedure(name: "Download")
        let second = TestProcedure(name: "Download")
        XCTAssertNotEqual(first.identity, second.identity)
        XCTAssertNotEqual(first.identity.id, second.identity.id)
    }

    func testTheDescriptionIsTheNameThenTheNumber() {
        let procedure = TestProcedure(name: "Download")
        XCTAssertEqual(procedure.identity.description, "Download#\(procedure.identity.id)")
    }

    func testAnUnnamedProcedureIsDescribedByItsTypeName() {
        let procedure = BlockProcedure {}
        XCTAssertNil(procedure.name)
        XCTAssertTrue(procedure.identity.description.hasPrefix("BlockProcedure#"), procedure.identity.description)
    }

    func testTheNumberIsTheOneTheLogShows() {
        let procedure = BlockProcedure {}
        procedure.name = "logged"
        ProcedureLog.minimumLevel = .trace
        procedure.log.info("hello")
        XCTAssertEqual(sink.entries(about: procedure).first?.procedure?.procedure, procedure.identity)
    }
}
