import Foundation

extension Future {
    /// The future's result, awaited without blocking a thread and without throwing: success,
    /// failure, or cancelled, as the future completed.
    ///
    /// Unlike ``value``, a cancelled future is not turned into a thrown `CancellationError`,
    /// so the three outcomes stay apart. ``result`` is the same thing without waiting (nil
    /// while pending). If the awaiting Task is cancelled, a plain cancel request is sent (the
    /// Task counts as one consumer while it waits, under the tree rule); the await still ends
    /// only when the future completes.
    ///
    /// ```swift
    /// switch await download.outcome {
    /// case .success(let data): save(data)
    /// case .failure(let error): report(error)
    /// case .cancelled: break
    /// }
    /// ```
    public var outcome: FutureResult<Value> {
        get async {
            if let result { return result }
            let token = cancellationToken()
            let awaited = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<FutureResult<Value>, Never>) in
                    onComplete(context: .immediate) { continuation.resume(returning: $0) }
                }
            } onCancel: {
                token.cancel()
            }
            // Read again under the future's lock, for ThreadSanitizer (see `value`).
            return self.result ?? awaited
        }
    }
}
