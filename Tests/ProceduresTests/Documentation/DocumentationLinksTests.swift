import Foundation
import XCTest

/// Keeps the documentation's links alive in both places it is read: on the repository page
/// (plain Markdown: a relative link must name a file, and an anchor one of its headings) and in
/// the DocC site (`make docs`), which holds only the guides and their images, and where
/// scripts/guide-for-docc.pl turns links between guides into DocC links.
final class DocumentationLinksTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private var guides: [URL] {
        get throws {
            try FileManager.default
                .contentsOfDirectory(at: root.appendingPathComponent("Documentation"), includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "md" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
    }

    private var documents: [URL] {
        get throws {
            try guides + ["README.md", "CHANGELOG.md"].map { root.appendingPathComponent($0) }
        }
    }

    func testEveryRelativeLinkResolvesToAFileAndItsAnchorToAHeading() throws {
        var checked = 0
        for document in try documents {
            let markdown = try String(contentsOf: document, encoding: .utf8)
            for target in MarkdownLinks.targets(in: markdown) where MarkdownLinks.isRelative(target) {
                checked += 1
                if let problem = MarkdownLinks.problem(with: target, in: document) {
                    XCTFail("\(document.lastPathComponent): \(problem)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 40, "expected the documents to link each other")
    }

    func testGuidesLinkOnlyToGuidesAndTheirImagesWhichTheDocCSiteHasToo() throws {
        for guide in try guides {
            for target in MarkdownLinks.targets(in: try String(contentsOf: guide, encoding: .utf8))
            where MarkdownLinks.isRelative(target) {
                let path = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                let isGuide = path.isEmpty || (path.hasSuffix(".md") && !path.contains("/"))
                let isImage = path.hasPrefix("Images/") && !path.dropFirst("Images/".count).contains("/")
                XCTAssertTrue(
                    isGuide || isImage,
                    "\(guide.lastPathComponent) links to \(target), which the DocC site does not have: link a guide, an image in Images/, or a full URL")
            }
        }
    }

    func testNoDocumentUsesALinkThatOnlyDocCUnderstands() throws {
        for document in try documents {
            let markdown = MarkdownLinks.withoutCode(try String(contentsOf: document, encoding: .utf8))
            XCTAssertFalse(
                markdown.contains("<doc:") || markdown.contains("](doc:"),
                "\(document.lastPathComponent) has a doc: link, dead on a repository page: write [Title](Guide.md)")
        }
    }

    func testEveryGuideIsListedInTheReadmeAndInTheDocCatalog() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let catalog = try String(
            contentsOf: root.appendingPathComponent("Documentation/Procedures.docc/Procedures.md"), encoding: .utf8)
        let listed = Set(MarkdownLinks.targets(in: readme))
        for guide in try guides {
            let name = guide.deletingPathExtension().lastPathComponent
            XCTAssertTrue(listed.contains("Documentation/\(name).md"), "the README does not list \(name).md")
            XCTAssertTrue(catalog.contains("<doc:\(name)>"), "Procedures.docc/Procedures.md does not list \(name)")
        }
    }

    func testTheCheckFindsAMissingFileAndAMissingHeading() throws {
        let readme = root.appendingPathComponent("README.md")
        XCTAssertEqual(
            MarkdownLinks.targets(in: "See [a](Documentation/Futures.md#no-such-heading) and\n[b\nc](Nowhere.md), `[d](Code.md)`."),
            ["Documentation/Futures.md#no-such-heading", "Nowhere.md"])
        XCTAssertNotNil(MarkdownLinks.problem(with: "Documentation/Futures.md#no-such-heading", in: readme))
        XCTAssertNotNil(MarkdownLinks.problem(with: "Nowhere.md", in: readme))
        XCTAssertNil(MarkdownLinks.problem(with: "Documentation/Futures.md#cancelling-futures", in: readme))
        XCTAssertNil(MarkdownLinks.problem(with: "#installation", in: readme))
        XCTAssertEqual(MarkdownLinks.anchor(of: "Callbacks and combinators with a `CancellationToken`"),
                       "callbacks-and-combinators-with-a-cancellationtoken")
    }
}

/// Links in Markdown, and the anchors a repository page (GitHub) gives headings.
private enum MarkdownLinks {
    /// The targets of the inline links and images, outside code, in order.
    static func targets(in markdown: String) -> [String] {
        let text = withoutCode(markdown)
        // A link text may hold one level of brackets and span lines.
        let pattern = try! NSRegularExpression(pattern: #"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^()\s]+)(?:\s+"[^"]*")?\)"#)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// True for a link to a file of the repository (not a URL with a scheme).
    static func isRelative(_ target: String) -> Bool {
        target.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) == nil
    }

    /// Why `target`, a relative link in `document`, is dead; nil if it is not.
    static func problem(with target: String, in document: URL) -> String? {
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let file = parts[0].isEmpty ? document : document.deletingLastPathComponent().appendingPathComponent(parts[0])
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            return "\(target): no such file"
        }
        guard parts.count == 2 else { return nil }
        guard !isDirectory.boolValue, file.pathExtension == "md",
            let markdown = try? String(contentsOf: file, encoding: .utf8)
        else { return "\(target): an anchor in something that is not a Markdown file" }
        return anchors(in: markdown).contains(parts[1]) ? nil : "\(target): \(file.lastPathComponent) has no heading with that anchor"
    }

    /// The anchors of the headings, outside code blocks; a repeated one gets -1, -2…
    static func anchors(in markdown: String) -> Set<String> {
        var found = Set<String>()
        var inCode = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inCode.toggle() }
            guard !inCode, let match = line.range(of: #"^#{1,6}\s+"#, options: .regularExpression) else { continue }
            let base = anchor(of: line[match.upperBound...].trimmingCharacters(in: .whitespaces))
            var candidate = base
            var repeats = 0
            while found.contains(candidate) {
                repeats += 1
                candidate = "\(base)-\(repeats)"
            }
            found.insert(candidate)
        }
        return found
    }

    /// A heading's anchor: lowercased, punctuation dropped, each space a hyphen.
    static func anchor(of heading: String) -> String {
        String(heading.lowercased()
            .filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }
            .map { $0 == " " ? "-" : $0 })
    }

    /// `markdown` without its fenced code blocks and code spans, whose brackets are not links.
    static func withoutCode(_ markdown: String) -> String {
        var lines: [Substring] = []
        var inCode = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inCode.toggle()
                lines.append("")
            } else {
                lines.append(inCode ? "" : line)
            }
        }
        // A code span keeps its place, so that a link whose text is code stays a link.
        return lines.joined(separator: "\n")
            .replacingOccurrences(of: #"(`+)[^`]+?\1"#, with: "code", options: .regularExpression)
    }
}
