import XCTest
@testable import StepsCore

/// XXH64 gives the reference implementation's answers (computed with libxxhash 0.8.1), in one
/// call and fed in pieces of every size; every path of the algorithm is covered: the 32-byte
/// stripes, then 8-, 4- and 1-byte tails.
final class XXHash64Tests: XCTestCase {
    private let vectors: [(String, UInt64, UInt64)] = [
        ("", 0, 0xEF46_DB37_51D8_E999),
        ("a", 0, 0xD24E_C4F1_A98C_6E5B),
        ("abc", 0, 0x44BC_2CF5_AD77_0999),
        ("Nobody inspects the spammish repetition", 0, 0xFBCE_A83C_8A37_8BF1),
        ("xxhash", 20_141_025, 0xB559_B98D_844E_0635),
        ("aaaaaaaa", 0, 0xD546_2E50_1DE9_70F3),
        (String(repeating: "a", count: 64), 0, 0xECDB_66A0_AA93_22E2),
    ]

    func testKnownVectors() {
        for (text, seed, expected) in vectors {
            XCTAssertEqual(XXHash64.hash(text, seed: seed).hex16, expected.hex16, "\"\(text)\" seed \(seed)")
        }
    }

    func testFeedingInPiecesGivesTheSameHash() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = XXHash64.hash(bytes)
        for piece in [1, 3, 7, 8, 31, 32, 33, 64, 100, 999] {
            var hasher = XXHash64()
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + piece)
                hasher.update(Array(bytes[offset..<end]))
                offset = end
            }
            XCTAssertEqual(hasher.finish(), whole, "pieces of \(piece)")
        }
        XCTAssertEqual(whole, 0x9959_4F48_2804_3D35)
        XCTAssertNotEqual(XXHash64.hash(bytes.dropLast()), whole)
    }
}
