import Foundation

/// The pipeline files of a folder such as `Examples/` or `Fuzz/regressions/`: its visible
/// `.json` files, sorted by name. What running a pipeline leaves next to it (its `.steps/`
/// folder of logs and state), other folders and hidden files are not pipelines.
public enum PipelineFiles {
    public static func all(in folder: URL) throws -> [URL] {
        let entries = try FileManager.default.contentsOfDirectory(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        return try entries.filter { entry in
            guard entry.pathExtension == "json", !entry.lastPathComponent.hasPrefix(".") else { return false }
            return try entry.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile ?? false
        }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}
