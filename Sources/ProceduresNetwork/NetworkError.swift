import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a network procedure failed.
public enum NetworkError: Error, Sendable, CustomStringConvertible {
    /// The request has no URL the procedures can fetch: missing, not http(s), or no host.
    case invalidURL(String)
    /// The request did not complete: connection refused or lost, host not found, timed out
    /// (`URLError.timedOut`: the server never answered within the request's
    /// `timeoutInterval`)… The `URLError` says which. A session's `NSError` in
    /// `NSURLErrorDomain` is turned into the `URLError` it stands for.
    case transport(URLError)
    /// The session answered with something other than an HTTP response.
    case notHTTPResponse(url: String)
    /// The session reported success without a body or file.
    case noPayload(url: String)
    /// The server answered with a status outside the procedure's `acceptableStatusCodes`.
    /// The body is kept (empty for a download), and `retryAfter` is the server's
    /// `Retry-After`, in seconds, if it sent one.
    case unacceptableStatus(Int, url: String, body: Data, retryAfter: TimeInterval?)
    /// Moving a downloaded file to its destination failed.
    case fileNotMoved(to: String, reason: String)

    /// One line.
    public var description: String {
        switch self {
        case .invalidURL(let url): return "invalid URL: \(url)"
        case .transport(let error): return "request failed: \(error.code) (\(error.localizedDescription))"
        case .notHTTPResponse(let url): return "not an HTTP response from \(url)"
        case .noPayload(let url): return "no body from \(url)"
        case .unacceptableStatus(let code, let url, _, _): return "HTTP \(code) from \(url)"
        case .fileNotMoved(let path, let reason): return "could not move the download to \(path): \(reason)"
        }
    }

    /// True for failures worth trying again: the connection failed or timed out, or the
    /// server said 408, 429 or 5xx.
    public var isTransient: Bool {
        switch self {
        case .transport(let error):
            return NetworkError.transientCodes.contains(error.code)
        case .unacceptableStatus(let code, _, _, _):
            return code == 408 || code == 429 || (500...599).contains(code)
        default:
            return false
        }
    }

    /// The server's `Retry-After`, in seconds, for an unacceptable status that carried one.
    public var retryAfter: TimeInterval? {
        if case .unacceptableStatus(_, _, _, let retryAfter) = self { return retryAfter }
        return nil
    }

    /// Reads a `Retry-After` value: a number of seconds, or an HTTP date (seconds from `now`,
    /// never negative). Nil if it is neither.
    public static func retryAfterSeconds(_ value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? TimeInterval(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// `error` as a `URLError`: a `URLError`, or an `NSError` in `NSURLErrorDomain` (what test
    /// doubles and Objective-C code report), which on Linux does not bridge to `URLError`.
    static func urlError(from error: any Error) -> URLError? {
        if let urlError = error as? URLError { return urlError }
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return nil }
        // Failable on Linux (an enum there), not on Apple platforms: written for both.
        let code: URLError.Code? = URLError.Code(rawValue: nsError.code)
        return URLError(code ?? .unknown, userInfo: nsError.userInfo)
    }

    private static let transientCodes: Set<URLError.Code> = [
        .timedOut, .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet,
        .cannotFindHost, .dnsLookupFailed, .badServerResponse, .secureConnectionFailed,
    ]
}
