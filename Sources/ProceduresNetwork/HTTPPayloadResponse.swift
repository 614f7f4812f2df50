import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a network procedure produces: the response body (`Data`, or the `URL` of a
/// downloaded file) and the HTTP response it came with.
public struct HTTPPayloadResponse<Payload: Sendable>: Sendable {
    /// The body: bytes, or where the downloaded file is.
    public var payload: Payload
    /// The response: status code, headers, final URL.
    public var response: HTTPURLResponse

    /// A payload and its response.
    public init(payload: Payload, response: HTTPURLResponse) {
        self.payload = payload
        self.response = response
    }

    /// The response's status code.
    public var statusCode: Int { response.statusCode }
}

/// What ``NetworkUploadProcedure`` takes: a request and the body to send with it.
public struct HTTPPayloadRequest<Payload: Sendable>: Sendable {
    /// The body to send.
    public var payload: Payload
    /// The request (method, URL, headers).
    public var request: URLRequest

    /// A request and its body.
    public init(payload: Payload, request: URLRequest) {
        self.payload = payload
        self.request = request
    }
}

/// Two responses are equal when their payloads are and their `HTTPURLResponse`s are equal
/// (`isEqual`, which for two distinct response objects means identical).
extension HTTPPayloadResponse: Equatable where Payload: Equatable {}

/// Two requests are equal when their payloads and their `URLRequest`s are.
extension HTTPPayloadRequest: Equatable where Payload: Equatable {}
