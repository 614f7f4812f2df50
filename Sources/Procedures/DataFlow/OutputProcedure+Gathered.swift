import Foundation

extension Collection where Element: OutputProcedure {
    /// A procedure whose output is the outputs of these procedures, in this collection's
    /// order.
    ///
    /// It depends on every one of them. If any of them fails, is cancelled, or finishes
    /// without an output, the gathering procedure is cancelled with the error
    /// ``InputProcedure/injectResult(from:)-2hhe5`` would give (for the first such procedure in
    /// order). Add it to a queue along with the procedures it gathers.
    ///
    /// ```swift
    /// let sizes = urls.map { url in ResultProcedure { try Data(contentsOf: url).count } }
    /// let all = sizes.gathered()       // ResultProcedure<[Int]>
    /// queue.addOperations(sizes + [all], waitUntilFinished: false)
    /// ```
    public func gathered() -> ResultProcedure<[Element.Output]> {
        let sources = Array(self)
        let gather = ResultProcedure<[Element.Output]> {
            try sources.map { source in
                switch InputInjection.value(from: source) {
                case .success(let value): return value
                case .failure(let error): throw error
                }
            }
        }
        gather.addDependencies(sources)
        gather.addWillExecuteBlockObserver { gather in
            for source in sources {
                if case .failure(let error) = InputInjection.value(from: source) {
                    InputInjection.cancel(gather, withError: error, from: source)
                    return
                }
            }
        }
        return gather
    }
}
