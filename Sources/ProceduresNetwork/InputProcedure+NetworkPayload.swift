import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

extension InputProcedure {
    /// Makes `source` a dependency and, just before this procedure executes, sets ``Procedures/InputProcedure/input``
    /// to the payload of `source`'s response (the body, or the downloaded file's URL), without
    /// the response around it. ProcedureKit's `injectPayload(fromNetwork:)`.
    ///
    /// A `source` that failed, was cancelled or produced no output cancels this procedure, as
    /// ``Procedures/InputProcedure/injectResult(from:transform:)`` does. It returns this procedure.
    ///
    /// ```swift
    /// let fetch = NetworkProcedure { NetworkDataProcedure(session: URLSession.shared, request: URLRequest(url: url)) }
    /// let size = TransformProcedure { (body: Data) in body.count }.injectPayload(fromNetwork: fetch)
    /// ```
    @discardableResult
    public func injectPayload<Source: OutputProcedure>(fromNetwork source: Source) -> Self
    where Source.Output == HTTPPayloadResponse<Input> {
        injectResult(from: source) { $0.payload }
    }
}
