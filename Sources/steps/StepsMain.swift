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
            FileHandle.standardError.write(Data(error.lines.map { $0 + "\n" }.joined().utf8))
            exit(error.exitStatus)
        }
        withExtendedLifetime(command) { dispatchMain() }
    }
}
