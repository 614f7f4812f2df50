import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// The part the three network procedures share: checking the request, holding the running
/// task so a cancel can stop it at once, and turning the session's answer into a result.
final class NetworkTaskRunner: @unchecked Sendable {
    // @unchecked: `task` and `lastProgress` are guarded by `lock`.
    private let lock = NSLock()
    private var task: (any NetworkTask)?
    /// The task's byte count when it completed, so that the progress does not drop back.
    private var lastProgress: ProgressUnits?

    /// The request's URL, if the procedures can fetch it (http or https, with a host).
    static func validatedURL(of request: URLRequest) throws(NetworkError) -> URL {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { throw .invalidURL(request.url?.absoluteString ?? "(no URL)") }
        return url
    }

    /// The URL to fetch for `request`, the input of `procedure`, from its `execute()`; if there
    /// is none (no request: ``ProcedureError/missingInput(name:)``; not http(s):
    /// ``NetworkError/invalidURL(_:)``) it finishes the procedure with why and returns nil.
    static func url(toFetch request: URLRequest?, for procedure: Procedure) -> URL? {
        guard let request else {
            procedure.finish(withError: ProcedureError.missingInput(name: procedure.displayName))
            return nil
        }
        do { return try validatedURL(of: request) } catch {
            procedure.finish(withError: error)
            return nil
        }
    }

    /// Finishes `procedure` with a completed task's outcome.
    static func finish<Output>(_ procedure: ResultProcedure<Output>, with outcome: Result<Output, any Error>) {
        switch outcome {
        case .success(let value): procedure.finish(withOutput: value)
        case .failure(let error): procedure.finish(withError: error)
        }
    }

    /// Keeps `task` for ``cancel()`` and starts it. Called from `execute()`, which never
    /// overlaps the did-cancel hook that calls ``cancel()``.
    func run(_ task: any NetworkTask, for procedure: Procedure) {
        lock.withLock { self.task = task }
        task.resume()
        pollProgress(of: procedure)
    }

    /// The bytes moved (nothing before the task starts, nor when its session counts nothing).
    var progressUnits: ProgressUnits {
        lock.lock()
        let running = task
        let last = lastProgress
        lock.unlock()
        if let counted = running?.transferProgress { return counted }
        return last ?? ProgressUnits(completed: 0, of: 0)
    }

    /// Reads the byte count ten times a second while the task runs and someone tracks the
    /// procedure's progress (from the start, or from when they begin to).
    func pollProgress(of procedure: Procedure) {
        guard lock.withLock({ task != nil }) else { return }
        procedure.pollProgress(every: 0.1, clock: SystemClock.shared)
    }

    /// Cancels the running task, now. The session then completes it with `URLError.cancelled`.
    func cancel() {
        lock.withLock { task }?.cancel()
    }

    /// Lets go of the task once it completed.
    func taskCompleted() {
        let task = lock.withLock { self.task }
        let last = task?.transferProgress
        lock.withLock {
            lastProgress = last
            self.task = nil
        }
    }

    /// The HTTP response and payload of a completed task, or why there is none.
    static func outcome<Payload>(
        url: URL, payload: Payload?, response: URLResponse?, error: (any Error)?,
        acceptableStatusCodes: Set<Int>?, body: Data? = nil
    ) -> Result<HTTPPayloadResponse<Payload>, any Error> {
        if let error {
            if let urlError = error as? URLError { return .failure(NetworkError.transport(urlError)) }
            return .failure(error)
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(NetworkError.notHTTPResponse(url: url.absoluteString))
        }
        if let acceptableStatusCodes, !acceptableStatusCodes.contains(http.statusCode) {
            let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap { NetworkError.retryAfterSeconds($0) }
            return .failure(
                NetworkError.unacceptableStatus(
                    http.statusCode, url: url.absoluteString, body: body ?? Data(), retryAfter: retryAfter))
        }
        guard let payload else { return .failure(NetworkError.noPayload(url: url.absoluteString)) }
        return .success(HTTPPayloadResponse(payload: payload, response: http))
    }
}
