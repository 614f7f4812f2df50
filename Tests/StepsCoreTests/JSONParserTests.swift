import XCTest
@testable import StepsCore

/// The JSON parser, in process: values and escapes as RFC 8259 says, every error with the
/// byte offset where it is, and no recursion however deep the input.
final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    private func failure(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> JSONParser.Failure? {
        do {
            _ = try JSONParser.parse(bytes)
            XCTFail("accepted", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    private func failure(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONParser.Failure? {
        failure(Array(text.utf8), file: file, line: line)
    }

    func testValuesAndTheirOffsets() throws {
        let root = try parse(#" { "a": [1, -2.5e1, true, null], "b": "x" } "#)
        XCTAssertEqual(root.offset, 1)
        XCTAssertEqual(root.kindName, "an object")
        guard case .array(let elements)? = root["a"]?.kind else { return XCTFail("a is a list") }
        XCTAssertEqual(elements.map(\.kindName), ["a number", "a number", "true or false", "null"])
        if case .number(let value) = elements[1].kind { XCTAssertEqual(value, -25) } else { XCTFail() }
        XCTAssertEqual(elements.map(\.offset), [9, 12, 20, 26])
        XCTAssertEqual(root.offset(of: ["a", "[2]"]), 20)
        XCTAssertEqual(root.offset(of: ["a", "[9]"]), 8, "the nearest enclosing value that exists")
        XCTAssertEqual(root.offset(of: ["b"]), 38)
    }

    func testLongListsAndObjectsKeepEveryElementInOrderWithItsOffset() throws {
        let count = 50_000
        let members = (0..<count).map { #""k\#($0)":[\#($0),{"v":\#($0)}]"# }.joined(separator: ",")
        let root = try parse("{" + members + "}")
        guard case .object(let read) = root.kind else { return XCTFail("an object") }
        XCTAssertEqual(read.count, count)
        XCTAssertEqual(read.map(\.key), (0..<count).map { "k\($0)" })
        var offset = 1
        for (index, member) in read.enumerated() {
            offset += "\"k\(index)\":".utf8.count
            XCTAssertEqual(member.value.offset, offset)
            guard case .array(let pair) = member.value.kind, case .number(let number) = pair[0].kind, case .number(let inner)? = pair[1]["v"]?.kind else {
                return XCTFail("member \(index)")
            }
            XCTAssertEqual([number, inner], [Double(index), Double(index)])
            offset += "[\(index),{\"v\":\(index)}],".utf8.count
        }
        XCTAssertEqual(failure("{" + members + #","k7":1}"#)?.message, #"JSON syntax error: the field "k7" appears twice in the same object"#)
    }

    func testEscapesAreDecodedAndAWholeSurrogatePairIsOneCharacter() throws {
        let root = try parse(#"{ "\u006eame": "\"\\\/\b\f\n\r\t \u00e9 \ud83d\ude00" }"#)
        guard case .string(let text)? = root["name"]?.kind else { return XCTFail("the key's escape was decoded") }
        XCTAssertEqual(text, "\"\\/\u{8}\u{C}\n\r\t é 😀")
    }

    func testSyntaxErrorsSayWhatAndWhere() {
        let cases: [(String, String, Int)] = [
            ("", "JSON syntax error: the file is empty", 0),
            ("[1,]", "JSON syntax error: unexpected ']' after ',' (trailing commas are not allowed)", 3),
            (#"{"a":1 "b":2}"#, "JSON syntax error: unexpected '\"', expected ',' or '}'", 7),
            (#"{"a":1,"a":2}"#, "JSON syntax error: the field \"a\" appears twice in the same object", 7),
            ("[tru]", "JSON syntax error: unexpected 't', expected a value (strings need double quotes)", 1),
            ("[01]", "JSON syntax error: invalid number: leading zeros are not allowed", 2),
            (#"["\x"]"#, "JSON syntax error: invalid escape '\\x' in a string", 3),
            (#"["\u12"]"#, "JSON syntax error: invalid \\u escape in a string: expected four hexadecimal digits", 6),
            ("[\"a", "JSON syntax error: unterminated string", 1),
            ("{} x", "JSON syntax error: unexpected 'x' after the end of the document", 3),
        ]
        for (text, message, offset) in cases {
            XCTAssertEqual(failure(text), JSONParser.Failure(message: message, offset: offset), text)
        }
    }

    func testTextThatIsNotUTF8IsRefusedAtTheBadByte() {
        XCTAssertEqual(failure([0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D]),
            JSONParser.Failure(message: "the text is not valid UTF-8 (byte 0xFF); save the file as UTF-8", offset: 3))
        XCTAssertEqual(failure([0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D])?.offset, 2, "an encoded surrogate is not UTF-8")
        XCTAssertEqual(failure([0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D])?.offset, 2, "an overlong form is not UTF-8")
        XCTAssertEqual(failure([0xFE, 0xFF, 0x00, 0x5B])?.message, "the file is UTF-16 text; save it as UTF-8")
        XCTAssertNotNil(try? JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[]".utf8)), "a UTF-8 byte order mark is allowed")
    }

    func testHalfASurrogatePairIsRefusedAtItsEscape() {
        XCTAssertEqual(failure(#"["ab\ud800"]"#)?.offset, 4)
        XCTAssertEqual(failure(#"["\ud800\u0041"]"#)?.message.contains("first half"), true)
        XCTAssertEqual(failure(#"["\udfff"]"#)?.message.contains("second half"), true)
    }

    func testANumberBeyondDoubleIsRefusedAndATinyOneIsZero() throws {
        XCTAssertEqual(failure("[1, 1e309]"), JSONParser.Failure(
            message: "number out of range: 1e309 is beyond the largest number a pipeline can hold (about 1.8e308)", offset: 4))
        XCTAssertEqual(failure("[" + String(repeating: "9", count: 400) + "]")?.message.hasPrefix("number out of range: 99999999999999999999…"), true)
        guard case .array(let elements) = try parse("[1e-400]").kind, case .number(let zero) = elements[0].kind else { return XCTFail() }
        XCTAssertEqual(zero, 0)
    }

    func testNestingIsBoundedWithoutRecursion() throws {
        let limit = JSONParser.maximumDepth
        XCTAssertNoThrow(try parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)))
        for depth in [limit + 1, 100_000, 1_000_000] {
            let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            XCTAssertEqual(failure(text), JSONParser.Failure(
                message: "nesting deeper than \(limit) levels (lists and objects inside each other)", offset: limit), "depth \(depth)")
        }
    }

    func testPositionsCountLinesAndCharacters() {
        let positions = TextPositions(Array("ab\né€x\n\nz".utf8))
        XCTAssertEqual(positions.position(of: 0).description, "1:1")
        XCTAssertEqual(positions.position(of: 3).description, "2:1")
        XCTAssertEqual(positions.position(of: 8).description, "2:3", "é and € are one column each")
        XCTAssertEqual(positions.position(of: 11).description, "4:1")
        let many = positions.positions(of: [11, 0, 8, 8])
        XCTAssertEqual(many.mapValues(\.description), [0: "1:1", 8: "2:3", 11: "4:1"])
    }
}
