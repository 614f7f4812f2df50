import Foundation

extension ObservableProcedure {
    /// Makes `dependency` a dependency and, just before this procedure executes, calls
    /// `block` with this procedure, the dependency and the dependency's errors: ProcedureKit's
    /// general injection, for what ``InputProcedure/injectResult(from:)-2hhe5`` does not cover
    /// (several values, a dependency that is not an ``OutputProcedure``, your own reaction to
    /// its failure).
    ///
    /// `block` runs among this procedure's callbacks (never at the same time as another, and
    /// never under a lock), whether the dependency succeeded, failed or was cancelled; it may
    /// set this procedure's properties or cancel it. It does not run if this procedure was
    /// cancelled before it could execute. Returns this procedure.
    ///
    /// ```swift
    /// let upload = UploadProcedure().inject(dependency: login) { upload, login, errors in
    ///     if errors.isEmpty { upload.token = login.token } else { upload.cancel(withError: LoginFailed()) }
    /// }
    /// ```
    @discardableResult
    public func inject<Dependency: Procedure>(
        dependency: Dependency, block: @escaping @Sendable (Self, Dependency, [any Error]) -> Void
    ) -> Self {
        addDependency(dependency)
        addWillExecuteBlockObserver { procedure in
            block(procedure, dependency, dependency.errors)
        }
        return self
    }
}
