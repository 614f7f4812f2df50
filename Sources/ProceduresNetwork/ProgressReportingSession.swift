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
