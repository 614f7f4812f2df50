import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// A procedure that downloads a request's response body to a file.
///
/// The file is moved to `destination` (replacing what was there) or, without one, to a new
/// file in the temporary directory that the caller then owns; ``HTTPPayloadResponse/payload``
/// is its URL. A download that fails (its status not acceptable included) moves nothing and
/// leaves `destination` as it was. Status codes, failures, cancellation and injection behave
/// as for ``NetworkDataProcedure``.
public final class NetworkDownloadProcedure: NetworkTaskProcedure<URLRequest, URL>, @unchecked Sendable {
    // @unchecked: `destination` is immutable; the rest is NetworkTaskProcedure's (see there).

    /// Where the file goes; nil for a new temporary file.
    public let destination: URL?

    /// Downloads `request` (or the request injected later) with `session` to `destination`.
    public init(session: any NetworkSession, request: URLRequest? = nil, destination: URL? = nil) {
        self.destination = destination
        super.init(session: session, input: request, name: "NetworkDownload(\(request?.url?.absoluteString ?? "injected"))")
    }

    override func request(in input: URLRequest) -> URLRequest { input }

    override func makeTask(for request: URLRequest, url: URL) -> any NetworkTask {
        let destination = destination
        return session.makeDownloadTask(with: request) { [self] file, response, error in
            // The session deletes its file when this handler returns: moved now, if it succeeded.
            finish(answering: url, response: response, error: error, body: nil) { () throws(NetworkError) in
                try file.map { file throws(NetworkError) in try Self.move(file, to: destination) }
            }
        }
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
