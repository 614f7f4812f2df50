extension Future {
    /// The value, awaited without blocking a thread.
    ///
    /// Throws the future's error, or `CancellationError` if it completed as cancelled. If the
    /// awaiting Task is cancelled, a plain cancel request is sent (the awaiting Task counts
    /// as one consumer while it waits, under the tree rule); the await still ends only when
    /// the future completes, with whatever result the producer chose.
    public var value: Value {
        get async throws {
            if let result { return try result.get() }
            let token = cancellationToken()
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<FutureResult<Value>, Never>) in
                    onComplete(context: .immediate) { continuation.resume(returning: $0) }
                }
            } onCancel: {
                token.cancel()
            }
            // Read again under the future's lock: a continuation resumed before the task
            // suspended lets it carry on through an atomic of Swift's runtime that
            // ThreadSanitizer does not see; the lock orders what the producer wrote before
            // completing it before what this task does next.
            return try (self.result ?? result).get()
        }
    }

    /// A future of an `async` operation, run in a new unstructured `Task`.
    ///
    /// A cancel request that reaches this future cancels the Task; the future then completes
    /// with what the operation does about it: `CancellationError` (or any error while the Task
    /// is cancelled) completes it as cancelled, a returned value still succeeds it.
    ///
    /// ```swift
    /// let page = Future { try await client.fetchPage(3) }
    /// page.cancel()    // cancels the Task running fetchPage
    /// ```
    public convenience init(
        priority: TaskPriority? = nil,
        operation: @escaping @Sendable () async throws -> Value
    ) {
        self.init()
        let task = Task(priority: priority) { [self] in
            do {
                complete(.success(try await operation()))
            } catch {
                complete(error is CancellationError || Task.isCancelled ? .cancelled : .failure(error))
            }
        }
        addRequestHandler { _ in
            task.cancel()
            return .continue
        }
    }
}

/// A future of an `async` operation; the same as ``Future/init(priority:operation:)``.
public func future<T: Sendable>(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable () async throws -> T
) -> Future<T> {
    Future(priority: priority, operation: operation)
}
