import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// A procedure that downloads a request's response body to a file.
///
/// The file is moved to `destination` (replacing what was there) or, without one, to a new
/// file in the temporary directory that the caller then owns; ``HTTPPayloadResponse/payload``
/// is its URL. Status codes, failures, cancellation and injection behave as for
/// ``NetworkDataProcedure``.
public final class NetworkDownloadProcedure: ResultProcedure<HTTPPayloadResponse<URL>>, InputProcedure,
    ProgressUnitsSource, @unchecked Sendable
{
    // @unchecked: as NetworkDataProcedure.

    /// The session that runs the request.
    public let session: any NetworkSession
    /// Where the file goes; nil for a new temporary file.
    public let destination: URL?
    /// The request; set it, or inject it.
    public var input: URLRequest?
    /// The status codes that count as success; any other fails the procedure with
    /// ``NetworkError/unacceptableStatus(_:url:body:retryAfter:)``. Nil (the default) accepts
    /// every status. Set it before the procedure executes (``NetworkProcedure`` does).
    public var acceptableStatusCodes: Set<Int>?
    private let runner = NetworkTaskRunner()

    /// Downloads `request` (or the request injected later) with `session` to `destination`.
    public init(session: any NetworkSession, request: URLRequest? = nil, destination: URL? = nil) {
        self.session = session
        self.destination = destination
        input = request
        super.init()
        name = "NetworkDownload(\(request?.url?.absoluteString ?? "injected"))"
    }

    /// Starts the task.
    public override func execute() {
        guard let url = NetworkTaskRunner.url(toFetch: input, for: self), let request = input else { return }
        let destination = destination
        runner.run(
            session.makeDownloadTask(with: request) { [self] file, response, error in
                runner.taskCompleted()
                guard !isCancelled else { return finish() }  // the only finish of a started request
                // The session deletes its file when this handler returns: move it now.
                var kept: URL?
                if let file, error == nil {
                    do { kept = try Self.move(file, to: destination) } catch { return finish(withError: error) }
                }
                NetworkTaskRunner.finish(self, with: NetworkTaskRunner.outcome(
                    url: url, payload: kept, response: response, error: error,
                    acceptableStatusCodes: acceptableStatusCodes))
            }, for: self)
    }

    /// Its progress counts bytes received, with a session that counts them (see
    /// ``ProgressReportingSession``).
    package var progressUnits: ProgressUnits { runner.progressUnits }

    /// Polls the byte count from now on if the request is running.
    package func progressTrackingBegan() { runner.pollProgress(of: self) }

    /// Cancels the task at once; the procedure finishes when the session reports it stopped.
    public override func procedureDidCancel(withErrors errors: [any Error]) {
        super.procedureDidCancel(withErrors: errors)
        runner.cancel()
    }

    private static func move(_ file: URL, to destination: URL?) throws(NetworkError) -> URL {
        let target = destination
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID().uuidString)")
        do {
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.moveItem(at: file, to: target)
            return target
        } catch {
            throw .fileNotMoved(to: target.path, reason: "\(error)")
        }
    }
}
