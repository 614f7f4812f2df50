import XCTest
@testable import StepsCore

/// A step's bytes, shown on a terminal: control characters and what is not UTF-8 as `\xNN`,
/// everything else as it is.
final class TerminalTextTests: XCTestCase {
    private func shown(_ bytes: [UInt8]) -> String { TerminalText.escaped(bytes) }

    func testPrintableTextAndTabsAreShownAsTheyAre() {
        XCTAssertEqual(shown(Array("plain text\tand é, 漢字, 🎉".utf8)), "plain text\tand é, 漢字, 🎉")
        XCTAssertEqual(shown([]), "")
    }

    func testControlCharactersAreEscaped() {
        XCTAssertEqual(shown(Array("\u{1B}[31mred\u{1B}[0m\r\u{07}\u{08}\u{7F}".utf8)), "\\x1b[31mred\\x1b[0m\\x0d\\x07\\x08\\x7f")
        XCTAssertEqual(shown([0x00]), "\\x00")
        // C1 controls (U+009B is a one-character escape sequence to some terminals) as their two bytes.
        XCTAssertEqual(shown([0x41, 0xC2, 0x9B, 0x33, 0x31, 0x6D]), "A\\xc2\\x9b31m")
        XCTAssertEqual(shown([0xC2, 0xA0]), "\u{A0}", "U+00A0 is not a control")
    }

    func testBytesThatAreNotUTF8AreEscapedOneByOne() {
        XCTAssertEqual(shown([0xFF, 0xFE, 0x41]), "\\xff\\xfeA")
        XCTAssertEqual(shown([0xC3]), "\\xc3", "a sequence cut short")
        XCTAssertEqual(shown([0xC3, 0x41]), "\\xc3A", "a missing continuation byte")
        XCTAssertEqual(shown([0xC0, 0xAF]), "\\xc0\\xaf", "overlong")
        XCTAssertEqual(shown([0xE0, 0x80, 0xAF]), "\\xe0\\x80\\xaf", "overlong")
        XCTAssertEqual(shown([0xED, 0xA0, 0x80]), "\\xed\\xa0\\x80", "a surrogate")
        XCTAssertEqual(shown([0xF4, 0x90, 0x80, 0x80]), "\\xf4\\x90\\x80\\x80", "beyond U+10FFFF")
        XCTAssertEqual(shown([0x80, 0xE2, 0x82, 0xAC]), "\\x80€", "valid text after a stray byte is itself")
    }

    func testEveryByteValueLeavesNoControlCharacter() {
        let text = shown(Array(0...255))
        XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || (0x7F...0x9F).contains($0.value) }, text)
    }
}
