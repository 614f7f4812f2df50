import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 for N1: every request gets 200 with a 64-byte body
/// and `Connection: close`. One thread accepts; one thread per connection answers. It lives as
/// long as the benchmark process and only ever listens on the loopback address.
final class BenchmarkHTTPServer: @unchecked Sendable {
    // @unchecked: immutable after init.
    let url: URL
    private let listener: Int32

    init() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(listener >= 0, "socket failed")
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(bound == 0 && listen(listener, 512) == 0, "bind/listen failed")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/small")!
        let thread = Thread { Self.acceptLoop(listener) }
        thread.start()
    }

    private static func acceptLoop(_ listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { continue }
            Thread { serve(connection) }.start()
        }
    }

    private static let response: [UInt8] = Array(
        ("HTTP/1.1 200 OK\r\nContent-Length: 64\r\nConnection: close\r\n\r\n" + String(repeating: "x", count: 64)).utf8)

    private static func serve(_ fd: Int32) {
        defer { close(fd) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while !received.ends(with: end) {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            received.append(contentsOf: chunk[0..<count])
            if received.count > 65536 { return }
        }
        response.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return }
                offset += sent
            }
        }
        shutdown(fd, Int32(SHUT_WR))
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
