import Foundation
import ProceduresTesting
import XCTest

/// `EncodeJSONProcedure` and `DecodeJSONProcedure`.
final class JSONProcedureTests: MisuseRecordingTestCase {
    struct Note: Codable, Equatable, Sendable {
        var title: String
        var created: Date
    }

    func testAGroupRoundTripsItsInjectedInputThroughJSON() {
        let note = Note(title: "hello", created: Date(timeIntervalSince1970: 1_000_000))
        let source = ResultProcedure { note }
        let roundTrip = JSONRoundTrip<Note>().injectResult(from: source)
        wait(for: source, roundTrip)
        assertProcedureFinished(roundTrip)
        XCTAssertEqual(roundTrip.output, note)
    }

    func testAGroupRoundTripsAnArrayThroughJSON() {
        let notes = (1...4).map { Note(title: "note \($0)", created: Date(timeIntervalSince1970: Double($0))) }
        let source = ResultProcedure { notes }
        let roundTrip = JSONRoundTrip<[Note]>().injectResult(from: source)
        wait(for: source, roundTrip)
        assertProcedureFinished(roundTrip)
        XCTAssertEqual(roundTrip.output, notes)
    }

    func testEncodesAndDecodesThroughInjection() {
        let note = Note(title: "hello", created: Date(timeIntervalSince1970: 1_000_000))
        let encode = EncodeJSONProcedure(input: note)
        let decode = DecodeJSONProcedure<Note>()
        decode.injectResult(from: encode)
        wait(for: encode, decode)
        XCTAssertEqual(decode.output, note)
    }

    func testTheEncoderIsConfigurable() throws {
        let note = Note(title: "t", created: Date(timeIntervalSince1970: 0))
        let encode = EncodeJSONProcedure(input: note) { encoder in
            encoder.outputFormatting = .sortedKeys
            encoder.dateEncodingStrategy = .iso8601
        }
        wait(for: encode)
        let text = try XCTUnwrap(encode.output.flatMap { String(data: $0, encoding: .utf8) })
        XCTAssertEqual(text, #"{"created":"1970-01-01T00:00:00Z","title":"t"}"#)
    }

    func testTheDecoderIsConfigurable() {
        let json = Data(#"{"title":"t","created":"1970-01-01T00:00:10Z"}"#.utf8)
        let decode = DecodeJSONProcedure<Note>(input: json) { $0.dateDecodingStrategy = .iso8601 }
        wait(for: decode)
        XCTAssertEqual(decode.output, Note(title: "t", created: Date(timeIntervalSince1970: 10)))
    }

    func testInvalidJSONFailsWithADecodingError() {
        let decode = DecodeJSONProcedure<Note>(input: Data("{".utf8))
        wait(for: decode)
        assertProcedureFinishedWithErrors(decode, count: 1)
        XCTAssertTrue(decode.errors.first is DecodingError)
    }

    func testAnUnencodableValueFailsWithAnEncodingError() {
        let encode = EncodeJSONProcedure(input: Double.nan)
        wait(for: encode)
        assertProcedureFinishedWithErrors(encode, count: 1)
        XCTAssertTrue(encode.errors.first is EncodingError)
    }

    func testNoInputFailsWithMissingInput() {
        let decode = DecodeJSONProcedure<Note>()
        let encode = EncodeJSONProcedure<Note>()
        wait(for: decode, encode)
        for procedure in [decode, encode] as [Procedure] {
            guard case .missingInput = procedure.errors.first as? ProcedureError else {
                return XCTFail("expected missingInput, got \(procedure.errors)")
            }
        }
    }
}

/// Encodes its input and decodes it again: its input goes to the encoder (`bind(to:)`), its
/// output comes from the decoder (`bind(from:)`).
private final class JSONRoundTrip<Value: Codable & Sendable>: ResultGroupProcedure<Value>, InputProcedure,
    @unchecked Sendable
{
    // @unchecked: `input` is set before the group executes (by the injection) and read by a
    // child's observer, which runs after that.
    var input: Value?

    init() {
        let encode = EncodeJSONProcedure<Value>()
        let decode = DecodeJSONProcedure<Value>().injectResult(from: encode)
        super.init(operations: [encode, decode])
        bind(to: encode)
        bind(from: decode)
    }
}
