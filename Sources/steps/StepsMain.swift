import Foundation
import StepsCore

/// The `steps` program: the command (Sources/StepsCore), its errors mapped to exit statuses.
@main
enum StepsMain {
    static func main() {
        let command = StepsCommand(arguments: Array(CommandLine.arguments.dropFirst()))
        do {
            try command.start { exit($0) }
        } catch {
            // Thrown away if standard error is closed (SIGPIPE is ignored by then).
            try? FileHandle.standardError.write(contentsOf: Data(error.lines.map { $0 + "\n" }.joined().utf8))
            exit(error.exitStatus)
        }
        withExtendedLifetime(command) { dispatchMain() }
    }
}
