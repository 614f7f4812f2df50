import Foundation

/// Where the pipeline comes from: the file named on the command line, or the bundled example
/// (Sources/StepsCore/demo.json), which runs in a new temporary directory each time, so that
/// each run starts afresh; the command removes it when the run ends (``remove(_:)``).
enum PipelineSource {
    /// The pipeline read and checked, or every problem of its file. The bundled one's directory
    /// is made only if it is to run (`run`).
    static func load(_ path: String?, run: Bool) throws(StepsError) -> PipelineDocument {
        do {
            if let path { return try PipelineFile.load(path: path) }
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("steps-demo-\(getpid())-\(Int(Date().timeIntervalSince1970))")
            do {
                if run { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
            } catch {
                throw StepsError.refused(["cannot make a directory for the bundled pipeline: \((error as NSError).localizedDescription)"])
            }
            return try PipelineFile.parse(Data(PackageResources.demo_json), named: "demo.json", directory: directory)
        } catch let error as PipelineError {
            throw .pipeline(error)
        } catch let error as StepsError {
            throw error
        } catch {
            throw .refused(["\(error)"])
        }
    }

    /// Removes the bundled example's temporary directory, with what its steps made and its logs.
    static func remove(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
    }

    /// How the run announces the pipeline: its path, or what the bundled one is.
    static func describe(_ path: String?) -> String { path ?? "the bundled example pipeline" }
}
