import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// A running request that can be started and cancelled: `URLSessionTask` is one.
public protocol NetworkTask: AnyObject, Sendable {
    /// Starts (or resumes) the request.
    func resume()
    /// Stops the request; its completion handler then reports `URLError.cancelled`.
    func cancel()
    /// The bytes moved so far (received, or an upload's body sent) of those expected, if the
    /// session counts them (a ``ProgressReportingSession`` does); nil if it does not.
    var transferProgress: ProgressUnits? { get }
}

extension NetworkTask {
    /// Nil: a task counts no bytes unless its session does.
    public var transferProgress: ProgressUnits? { nil }
}

/// What the network procedures need from a session: `URLSession` conforms; a test double or
/// a wrapper (adding headers, recording requests) can too.
///
/// Completion handlers are called once, on any thread.
public protocol NetworkSession: Sendable {
    /// A task that fetches `request`'s response body into memory.
    func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask

    /// A task that downloads `request`'s response body to a temporary file, which is deleted
    /// when `completionHandler` returns.
    func makeDownloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask

    /// A task that sends `body` with `request` and fetches the response body into memory.
    func makeUploadTask(
        with request: URLRequest, from body: Data,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask
}

extension URLSessionTask: NetworkTask {}

extension URLSession: NetworkSession {
    /// `dataTask(with:completionHandler:)`.
    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        dataTask(with: request, completionHandler: completionHandler)
    }

    /// `downloadTask(with:completionHandler:)`.
    public func makeDownloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        downloadTask(with: request, completionHandler: completionHandler)
    }

    /// `uploadTask(with:from:completionHandler:)`.
    public func makeUploadTask(
        with request: URLRequest, from body: Data,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkTask {
        uploadTask(with: request, from: body, completionHandler: completionHandler)
    }
}
