import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 (a port the system picks) for the network tests: one
/// thread accepts, one thread per connection answers, every answer closes its connection.
///
/// Routes:
/// - `GET /bytes/N` — 200 with N bytes.
/// - `GET /lines/N` — 200 with N lines of text.
/// - `GET /status/CODE?retry-after=S` — that status, with `Retry-After: S` if asked.
/// - `GET /delay/MS` — 200 after MS milliseconds (gives up early if the client goes away).
/// - `GET /hang`, `POST /hang` — never answers (until the client goes away or the server stops).
/// - `GET /drop` — closes the connection without answering.
/// - `GET /flaky/KEY/N?status=CODE&retry-after=S` — CODE (503) for the first N-1 requests
///   with this KEY, then 200; with `hang`, the first N-1 get no answer at all.
/// - `POST /echo` — 200 with the request's body.
/// - `GET /halves/N/KEY` — 200 with N bytes: the first half at once, the rest once the test
///   calls `release(KEY)`.
///
/// It counts requests by path, and notes connections whose client went away early.
final class LoopbackHTTPServer: @unchecked Sendable {
    // @unchecked: the mutable state is guarded by `lock`; `listener` and `port` are set once in init.
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var counts: [String: Int] = [:]
    private var abandoned = 0
    private var released: Set<String> = []

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 512) == 0 else {
            close(listener)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        // A server whose port is unknown would send every request to port 0.
        guard named == 0, address.sin_port != 0 else {
            let error = POSIXError(.init(rawValue: errno) ?? .EIO)
            close(listener)
            throw error
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackHTTPServer.accept"
        thread.start()
    }

    /// `http://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// How many requests arrived for `path` (without its query).
    func requestCount(_ path: String) -> Int { lock.withLock { counts[path, default: 0] } }

    /// How many slow or hanging answers were cut short because the client went away.
    var abandonedCount: Int { lock.withLock { abandoned } }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Lets `GET /halves/N/KEY` send its second half.
    func release(_ key: String) {
        lock.withLock { _ = released.insert(key) }
    }

    /// Stops accepting; connections still open end at their next check.
    func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !isStopped {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    // MARK: - One connection

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        guard let request = readRequest(fd) else { return }
        let path = String(request.target.split(separator: "?", maxSplits: 1).first ?? "")
        let query = Self.query(of: request.target)
        let count = lock.withLock {
            counts[path, default: 0] += 1
            return counts[path]!
        }
        let parts = path.split(separator: "/").map(String.init)
        switch (request.method, parts.first ?? "") {
        case ("GET", "bytes"):
            respond(fd, status: 200, body: Data(repeating: UInt8(ascii: "x"), count: Int(parts.last ?? "") ?? 0))
        case ("GET", "lines"):
            let lines = (0..<(Int(parts.last ?? "") ?? 0)).map { "line \($0)\n" }.joined()
            respond(fd, status: 200, body: Data(lines.utf8))
        case ("GET", "status"):
            let code = Int(parts.last ?? "") ?? 500
            respond(fd, status: code, headers: query["retry-after"].map { ["Retry-After": $0] } ?? [:], body: Data("status \(code)".utf8))
        case ("GET", "delay"):
            let milliseconds = Int(parts.last ?? "") ?? 0
            if waitWhileClientStays(fd, milliseconds: milliseconds) { respond(fd, status: 200, body: Data("slow".utf8)) }
        case ("GET", "hang"), ("POST", "hang"):
            _ = waitWhileClientStays(fd, milliseconds: Int.max)
        case ("GET", "drop"):
            return
        case ("GET", "flaky"):
            let succeedOn = parts.count > 2 ? Int(parts[2]) ?? 3 : 3
            if count >= succeedOn {
                respond(fd, status: 200, body: Data("ok after \(count)".utf8))
            } else if query["hang"] != nil {
                _ = waitWhileClientStays(fd, milliseconds: Int.max)
            } else {
                let code = Int(query["status"] ?? "") ?? 503
                respond(fd, status: code, headers: query["retry-after"].map { ["Retry-After": $0] } ?? [:], body: Data("try again".utf8))
            }
        case ("POST", "echo"), ("PUT", "echo"):
            respond(fd, status: 200, body: request.body)
        case ("GET", "halves"):
            let total = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            let key = parts.count > 2 ? parts[2] : ""
            let body = Data(repeating: UInt8(ascii: "x"), count: total)
            sendAll(fd, Data("HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\nConnection: close\r\n\r\n".utf8) + body.prefix(total / 2))
            while !lock.withLock({ released.contains(key) }) {
                if !waitWhileClientStays(fd, milliseconds: 10) { return }
            }
            sendAll(fd, body.dropFirst(total / 2))
            shutdown(fd, Int32(SHUT_WR))
        default:
            respond(fd, status: 404, body: Data("no route".utf8))
        }
    }

    private struct Request {
        var method: String
        var target: String
        var body: Data
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 16384)
        let separator = Data("\r\n\r\n".utf8)
        var headerEnd: Range<Data.Index>?
        while headerEnd == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
            headerEnd = buffer.range(of: separator)
        }
        let head = String(decoding: buffer[..<headerEnd!.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var length = 0
        for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        var body = Data(buffer[headerEnd!.upperBound...])
        while body.count < length {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            body.append(contentsOf: chunk[0..<count])
        }
        return Request(method: String(requestLine[0]), target: String(requestLine[1]), body: body)
    }

    /// Waits up to `milliseconds`, checking every 10 ms that the client is still connected and
    /// the server still running. True if the whole wait passed.
    private func waitWhileClientStays(_ fd: Int32, milliseconds: Int) -> Bool {
        let deadline = milliseconds == Int.max ? Date.distantFuture : Date(timeIntervalSinceNow: Double(milliseconds) / 1000)
        while Date() < deadline {
            if isStopped { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 10) > 0 {
                var byte: UInt8 = 0
                if recv(fd, &byte, 1, Int32(MSG_PEEK)) <= 0 {
                    lock.withLock { abandoned += 1 }
                    return false
                }
            }
        }
        return true
    }

    private func respond(_ fd: Int32, status: Int, headers: [String: String] = [:], body: Data) {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var bytes = Data(head.utf8)
        bytes.append(body)
        sendAll(fd, bytes)
        shutdown(fd, Int32(SHUT_WR))
    }

    private func sendAll(_ fd: Int32, _ bytes: Data) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    private static func query(of target: String) -> [String: String] {
        guard let query = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            result[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return result
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}
