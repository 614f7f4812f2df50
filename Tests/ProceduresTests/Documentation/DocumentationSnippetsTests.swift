import Foundation
import XCTest

/// Keeps the guides honest: every Swift code block in `Documentation/*.md` and `README.md`
/// must appear (ignoring indentation) in a test source file (of this package or of
/// Integrations/), where it is compiled and run. A block's leading `import` lines must be
/// imports of a file that holds the rest of it, so a guide names the library its code needs.
final class DocumentationSnippetsTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func testEverySwiftSnippetIsCompiledByATest() throws {
        // The Integrations/ package's tests hold the snippets that need its dependencies.
        let testSources = try (swiftFiles(under: root.appendingPathComponent("Tests"))
            + swiftFiles(under: root.appendingPathComponent("Integrations/Tests")))
            .map { try normalized(String(contentsOf: $0, encoding: .utf8)) }
        var documents = try FileManager.default
            .contentsOfDirectory(at: root.appendingPathComponent("Documentation"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
        documents.append(root.appendingPathComponent("README.md"))
        var checked = 0
        for document in documents where FileManager.default.fileExists(atPath: document.path) {
            for snippet in try swiftSnippets(in: String(contentsOf: document, encoding: .utf8)) {
                checked += 1
                let (imports, body) = splitImports(normalized(snippet))
                let holders = testSources.filter { $0.contains(body) }
                guard !holders.isEmpty else {
                    XCTFail("A snippet in \(document.lastPathComponent) is not compiled by any test:\n\(snippet)")
                    continue
                }
                XCTAssertTrue(
                    holders.contains { source in
                        let lines = Set(source.split(separator: "\n").map(String.init))
                        return imports.allSatisfy(lines.contains)
                    },
                    "A snippet in \(document.lastPathComponent) imports "
                        + "\(imports.map { $0.dropFirst("import ".count) }.joined(separator: ", ")), "
                        + "but no test file that compiles it does:\n\(snippet)")
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

    /// A normalized snippet's leading `import` lines, and the rest.
    private func splitImports(_ snippet: String) -> (imports: [String], body: String) {
        let lines = snippet.split(separator: "\n").map(String.init)
        let imports = lines.prefix { $0.hasPrefix("import ") }
        return (Array(imports), lines.dropFirst(imports.count).joined(separator: "\n"))
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
