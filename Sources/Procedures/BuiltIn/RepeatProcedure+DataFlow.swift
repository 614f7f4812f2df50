import Foundation

extension RepeatProcedure: InputProcedure where T: InputProcedure {
    /// The input every operation gets: each operation added after it is set (the first one
    /// too, when it is set or injected before the repeat executes) has its `input` set to
    /// it, before the configure blocks run. So a ``RetryProcedure`` can take an injected
    /// result and give it to every attempt:
    ///
    /// ```swift
    /// let upload = RetryProcedure(maxAttempts: 3) { UploadProcedure() }   // an InputProcedure
    /// upload.injectResult(from: encode)
    /// ```
    public var input: T.Input? {
        get { inputForOperations as? T.Input }
        set { setInputForOperations(newValue) { operation in operation.input = newValue } }
    }
}

extension RepeatProcedure: OutputProcedure where T: OutputProcedure {
    /// The output of the last operation, once the repeat has finished without errors and
    /// without being cancelled: for a ``RetryProcedure``, the attempt that succeeded. Nil
    /// before, and after a failure, a cancel, or a last operation that was cancelled.
    public var output: T.Output? {
        guard isFinished, !isCancelled, errors.isEmpty, let last = current, !last.isCancelled, !last.failed else {
            return nil
        }
        return last.output
    }
}
