import Foundation

extension ProcessProcedure {
    /// The program a ``ProcessProcedure`` with these settings would start, found exactly as
    /// ``execute()`` finds it before it starts anything: the working directory must exist and
    /// be enterable; a path with a slash must exist (relative to the working directory); a bare
    /// name is looked up in the `PATH` of `environment`, the first executable file wins.
    ///
    /// A tool can check a command before running it (what `steps --dry-run` does):
    ///
    /// ```swift
    /// do {
    ///     let path = try ProcessProcedure.locateExecutable("swift")  // "/usr/bin/swift"
    /// } catch {
    ///     print(error)  // executable not found: swift (searched PATH: /usr/local/bin:/usr/bin:/bin)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - executable: a bare name (`"ls"`) or a path (`"./build/app"`, `"/bin/sh"`).
    ///   - environment: the child's environment, whose `PATH` is searched; nil: this process's.
    ///   - workingDirectory: the child's working directory; nil: this process's.
    /// - Returns: the path that would be spawned (a path given with a slash is returned as given).
    /// - Throws: ``ProcessProcedureError/workingDirectoryUnusable(_:reason:)`` or
    ///   ``ProcessProcedureError/executableNotFound(_:searched:)``, as the procedure would fail.
    public static func locateExecutable(
        _ executable: String, environment: [String: String]? = nil, workingDirectory: URL? = nil
    ) throws(ProcessProcedureError) -> String {
        let directory = workingDirectory?.path
        if let directory { try checkWorkingDirectory(directory) }
        return try resolve(executable, environment: environment, workingDirectory: directory)
    }
}
