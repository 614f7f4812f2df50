import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// A ``NetworkSession`` whose tasks count the bytes they move, so that the network procedures'
/// ``Procedures/Procedure/progress`` shows them.
///
/// On Linux a task made with a completion handler (as `URLSession.shared` makes them for the
/// network procedures) counts no bytes until it ends: corelibs reports progress only to a
/// session's delegate. This session is a `URLSession` of its own with such a delegate; it
/// hands each task's answer to the completion handler as `URLSession` would (a downloaded
/// file is deleted when the handler returns), and counts bytes received (data and download
/// tasks) and sent (the body of upload tasks) as they move.
///
/// ```swift
/// let session = ProgressReportingSession()
/// let download = NetworkDownloadProcedure(session: session, request: URLRequest(url: url))
/// download.observeProgress { update in
///     print("\(update.completedUnitCount) of \(update.totalUnitCount) bytes")
/// }
/// queue.addOperation(download)
/// ```
///
/// Make one and keep it for many requests; ``invalidate()`` it when done (a `URLSession` with
/// a delegate keeps it, and its connections, until invalidated).
public final class ProgressReportingSession: NetworkSession, @unchecked Sendable {
    // @unchecked: `session` is set once, by `init`; the delegate guards its own state.
    private let delegate = TransferDelegate()
    private let session: URLSession

    /// A session with `configuration` (default: `.default`).
    public init(configuration: URLSessionConfiguration = .default) {
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Lets the running tasks finish, then lets go of the session and its connections.
    public func invalidate() {
        session.finishTasksAndInvalidate()
    }

    /// A data task whose received bytes are counted.
    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        delegate.track(session.dataTask(with: request), direction: .receiving, completion: .data(completionHandler))
    }

    /// A download task whose received bytes are counted.
    public func makeDownloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        delegate.track(session.downloadTask(with: request), direction: .receiving, completion: .file(completionHandler))
    }

    /// An upload task whose sent body bytes are counted.
    public func makeUploadTask(
        with request: URLRequest, from body: Data,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        delegate.track(
            session.uploadTask(with: request, from: body), direction: .sending(Int64(body.count)),
            completion: .data(completionHandler))
    }
}

/// One task of a ``ProgressReportingSession``: the `URLSessionTask` and its byte count.
final class CountedTask: NetworkTask, @unchecked Sendable {
    // @unchecked: `units` is guarded by `lock`; `task` is immutable (and thread-safe).
    private let task: URLSessionTask
    private let lock = NSLock()
    private var units: ProgressUnits

    init(_ task: URLSessionTask, expected: Int64) {
        self.task = task
        units = ProgressUnits(completed: 0, of: expected)
    }

    func resume() { task.resume() }
    func cancel() { task.cancel() }

    var transferProgress: ProgressUnits? { lock.withLock { units } }

    func count(_ completed: Int64, of expected: Int64?) {
        lock.withLock {
            units.completed = completed
            if let expected { units.total = expected }
        }
    }
}

/// The delegate of a ``ProgressReportingSession``: counts each task's bytes and hands its
/// answer to the completion handler.
private final class TransferDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate,
    @unchecked Sendable
{
    // @unchecked: `records` is guarded by `lock`; each record's fields too.
    enum Direction {
        case receiving
        /// Sending a body of this many bytes.
        case sending(Int64)
    }

    enum Completion {
        case data(@Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        case file(@Sendable (URL?, URLResponse?, (any Error)?) -> Void)
    }

    private struct Record {
        let counted: CountedTask
        let direction: Direction
        let completion: Completion
        var data = Data()
        var file: URL?
    }

    private let lock = NSLock()
    private var records: [Int: Record] = [:]

    func track(_ task: URLSessionTask, direction: Direction, completion: Completion) -> any NetworkTask {
        let expected: Int64
        switch direction {
        case .receiving: expected = -1
        case .sending(let bytes): expected = bytes
        }
        let counted = CountedTask(task, expected: expected)
        lock.withLock { records[task.taskIdentifier] = Record(counted: counted, direction: direction, completion: completion) }
        return counted
    }

    private func record(of task: URLSessionTask) -> Record? {
        lock.withLock { records[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let record = record(of: dataTask), case .receiving = record.direction {
            record.counted.count(0, of: response.expectedContentLength)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let counted = lock.withLock { () -> (CountedTask, Int64)? in
            guard var record = records[dataTask.taskIdentifier] else { return nil }
            record.data.append(data)
            records[dataTask.taskIdentifier] = record
            guard case .receiving = record.direction else { return nil }
            return (record.counted, Int64(record.data.count))
        }
        if let (task, received) = counted { task.count(received, of: nil) }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        record(of: downloadTask)?.counted.count(totalBytesWritten, of: totalBytesExpectedToWrite)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The session deletes `location` when this returns; the handler runs later, once the
        // task completes, so the file is kept until then.
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("counted-download-\(UUID().uuidString)")
        let moved = (try? FileManager.default.moveItem(at: location, to: kept)) != nil
        lock.withLock { records[downloadTask.taskIdentifier]?.file = moved ? kept : nil }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let record = record(of: task), case .sending(let body) = record.direction else { return }
        record.counted.count(totalBytesSent, of: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : body)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let record = lock.withLock({ records.removeValue(forKey: task.taskIdentifier) }) else { return }
        switch record.completion {
        case .data(let handler):
            handler(error == nil ? record.data : nil, task.response, error)
        case .file(let handler):
            handler(error == nil ? record.file : nil, task.response, error)
            if let file = record.file { try? FileManager.default.removeItem(at: file) }
        }
    }
}
