import Foundation
import Procedures

/// `procedures-demo`: measures every file of a directory tree with one procedure per file.
@main
enum ProceduresDemo {
    static func main() {
        let options: DemoOptions
        do {
            options = try DemoOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            Output.error("procedures-demo: \(error) (see --help)")
            exit(2)
        }
        if options.showHelp {
            Output.write(DemoOptions.usage + "\n")
            exit(0)
        }
        let root = options.root ?? defaultRoot()
        let files: [String]
        do {
            files = try listFiles(under: root)
        } catch {
            Output.error("procedures-demo: \(error)")
            exit(2)
        }
        DemoRun(root: root, files: files, options: options).start()
        dispatchMain()
    }

    /// This package's Sources directory: the working directory's when run from the package
    /// (as `make demo` and `swift run` do), else the one this file was built from.
    static func defaultRoot() -> String {
        if FileManager.default.fileExists(atPath: "Sources/procedures-demo") { return "Sources" }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
    }

    struct PathError: Error, CustomStringConvertible {
        let description: String
    }

    /// Every regular file under `root`, sorted; a file given as root is its own list.
    static func listFiles(under root: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
            throw PathError(description: "cannot read '\(root)': no such file or directory")
        }
        guard isDirectory.boolValue else { return [root] }
        guard FileManager.default.isReadableFile(atPath: root),
            let enumerator = FileManager.default.enumerator(atPath: root)
        else {
            throw PathError(description: "cannot read '\(root)': permission denied")
        }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let path = (root as NSString).appendingPathComponent(relative)
            switch enumerator.fileAttributes?[.type] as? FileAttributeType {
            case .typeRegular?:
                files.append(path)
            case .typeSymbolicLink?:
                // Followed if it leads to a file; a broken link is listed, and reported as
                // unreadable when its procedure fails to read it.
                var targetIsDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: path, isDirectory: &targetIsDirectory)
                if !(exists && targetIsDirectory.boolValue) { files.append(path) }
            default:
                break
            }
        }
        return files.sorted()
    }
}
