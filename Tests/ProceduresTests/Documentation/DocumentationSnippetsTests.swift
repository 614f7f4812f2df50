import Foundation
import XCTest

/// Keeps the guides honest: every Swift code block in `Documentation/*.md` and `README.md`
/// must appear (ignoring indentation) in a test source file (of this package or of
/// Integrations/), where it is compiled and run.
final class DocumentationSnippetsTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func testEverySwiftSnippetIsCompiledByATest() throws {
        // The Integrations/ package's tests hold the snippets that need its dependencies.
        let testSources = try (swiftFiles(under: root.appendingPathComponent("Tests"))
            + swiftFiles(under: root.appendingPathComponent("Integrations/Tests")))
            .map { try normalized(String(contentsOf: $0, encoding: .utf8)) }
            .joined(separator: "\n")
        var documents = try FileManager.default
            .contentsOfDirectory(at: root.appendingPathComponent("Documentation"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
        documents.append(root.appendingPathComponent("README.md"))
        var checked = 0
        for document in documents where FileManager.default.fileExists(atPath: document.path) {
            for snippet in try swiftSnippets(in: String(contentsOf: document, encoding: .utf8)) {
                checked += 1
                XCTAssertTrue(
                    testSources.contains(normalized(snippet)),
                    "A snippet in \(document.lastPathComponent) is not compiled by any test:\n\(snippet)")
            }
        }
        XCTAssertGreaterThan(checked, 10, "expected the guides to have snippets")
    }

    private func swiftSnippets(in markdown: String) -> [String] {
        var snippets: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                snippets.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return snippets
    }

    private func normalized(_ text: String) -> String {
        text.split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    private func swiftFiles(under directory: URL) throws -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        else { return [] }
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }
}
