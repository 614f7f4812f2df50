import Foundation

/// A procedure that finishes when a future completes, with the future's value as its output,
/// so a future can be a dependency, a group child, or the source of an injected result.
///
/// Success finishes it with the value, failure with the error; a cancelled future cancels it.
/// Cancelling the procedure sends a cancel request to the future (it counts as one consumer of
/// the future for the tree rule).
///
/// ```swift
/// let download = FutureProcedure(session.download(url))
/// let unzip = TransformProcedure { (data: Data) in try unzip(data) }
/// unzip.injectResult(from: download)
/// ```
public final class FutureProcedure<Value: Sendable>: ResultProcedure<Value>, @unchecked Sendable {
    // @unchecked: both stored properties are immutable and Sendable.
    private let source: Future<Value>
    private let request: FutureCancelToken

    /// A procedure that waits for `future`.
    public init(_ future: Future<Value>) {
        source = future
        request = future.cancellationToken()
        super.init()
        name = "FutureProcedure<\(Value.self)>"
    }

    /// Waits for the future and finishes with its outcome.
    public override func execute() {
        source.onComplete(context: .immediate) { [self] result in
            switch result {
            case .success(let value): finish(withOutput: value)
            case .failure(let error): finish(withError: error)
            case .cancelled:
                cancel()
                finishAutomatically()
            }
        }
    }

    /// Sends a cancel request to the future.
    public override func procedureDidCancel(withErrors errors: [any Error]) {
        request.cancel()
    }
}
