import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures
import ProceduresNetwork

/// N1: GET requests as procedures against `URLSession.dataTask` called directly.
enum N1Requests {
    static let scenario = Scenario(
        id: "N1", title: "HTTP GETs", sizes: [100, 1_000],
        statistics: [.median(.ratioAtMost(1.2))],
        ours: ours, baseline: baseline,
        note: "N `NetworkDataProcedure`s fetching a 64-byte body from a loopback HTTP/1.1 server (in this process, "
            + "one thread per connection, Connection: close) on a `ProcedureQueue` of width 8; baseline: N "
            + "`URLSession.dataTask`s, at most 8 in flight (a semaphore-free counter refills the window).")

    private static let server = BenchmarkHTTPServer()
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 8
        return URLSession(configuration: configuration)
    }()

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 8
        let request = URLRequest(url: server.url)
        let fetches = (0..<n).map { _ in NetworkDataProcedure(session: session, request: request) }
        let seconds = Stopwatch.time {
            queue.addOperations(fetches, waitUntilFinished: false)
            queue.waitUntilAllOperationsAreFinished()
        }
        precondition(fetches.allSatisfy { $0.output?.payload.count == 64 }, "N1: a request failed")
        return [seconds]
    }

    static func baseline(_ n: Int) -> [Double] {
        let request = URLRequest(url: server.url)
        let done = DispatchSemaphore(value: 0)
        let state = NSLock()
        nonisolated(unsafe) var started = 0
        nonisolated(unsafe) var finished = 0
        nonisolated(unsafe) var failures = 0
        // Keeps 8 requests in flight, like the queue's width: each completion starts the next.
        @Sendable func startNext() {
            let go: Bool = state.withLock {
                guard started < n else { return false }
                started += 1
                return true
            }
            guard go else { return }
            session.dataTask(with: request) { data, _, error in
                let last: Bool = state.withLock {
                    if error != nil || data?.count != 64 { failures += 1 }
                    finished += 1
                    return finished == n
                }
                if last { done.signal() } else { startNext() }
            }.resume()
        }
        let seconds = Stopwatch.time {
            for _ in 0..<min(8, n) { startNext() }
            done.wait()
        }
        precondition(state.withLock { failures } == 0, "N1 baseline: a request failed")
        return [seconds]
    }
}
