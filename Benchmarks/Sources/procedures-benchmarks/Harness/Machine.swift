import Foundation

/// A description of the machine, for the header of RESULTS.md.
enum Machine {
    static func describe() -> [String] {
        var lines: [String] = []
        lines.append("date: \(ISO8601DateFormatter().string(from: Date()))")
        lines.append("`uname -a`: \(command("/bin/uname", ["-a"]) ?? "unknown")")
        lines.append("CPU: \(cpuModel() ?? "unknown")")
        lines.append("cores: \(ProcessInfo.processInfo.activeProcessorCount)")
        lines.append("Swift: \(command("/usr/bin/env", ["swift", "--version"])?.split(separator: "\n").first.map(String.init) ?? compiledWith)")
        return lines
    }

    /// The 1/5/15-minute load averages, to tell how busy the shared machine was.
    static func loadAverage() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    private static func cpuModel() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            return line.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// Fallback when no `swift` is on PATH (the binary was run directly).
    private static var compiledWith: String {
        #if compiler(>=6.4)
            return "compiled with Swift 6.4 or later"
        #elseif compiler(>=6.3)
            return "compiled with Swift 6.3"
        #else
            return "compiled with Swift before 6.3"
        #endif
    }

    private static func command(_ path: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
