import Foundation

/// ProcedureKit's shorthands: a procedure whose output is a sequence makes the procedure that
/// maps, filters or reduces that output, with the result already injected.
///
/// ```swift
/// let numbers = ResultProcedure { [1, 2, 3, 4] }
/// let evens = numbers.filter { $0 % 2 == 0 }      // a FilterProcedure, output [2, 4]
/// let total = evens.reduce(0, +)                  // a ReduceProcedure, output 6
/// queue.addOperations([numbers, evens, total], waitUntilFinished: false)
/// ```
///
/// Each returns a new procedure that depends on this one (add both to a queue). If this one
/// fails, is cancelled or has no output, the new one is cancelled with the error
/// ``InputProcedure/injectResult(from:)-2hhe5`` gives. A collection of output procedures maps
/// the same way after `gathered()`: `[a, b].gathered().map { … }`.
extension OutputProcedure where Output: Sequence, Output.Element: Sendable {
    /// A ``MapProcedure`` of this procedure's output.
    public func map<Transformed: Sendable>(
        _ transform: @escaping @Sendable (Output.Element) throws -> Transformed
    ) -> MapProcedure<Output.Element, Transformed> {
        MapProcedure(transform).injectResult(from: self) { Array($0) }
    }

    /// A ``FilterProcedure`` of this procedure's output.
    public func filter(
        _ isIncluded: @escaping @Sendable (Output.Element) throws -> Bool
    ) -> FilterProcedure<Output.Element> {
        FilterProcedure(isIncluded).injectResult(from: self) { Array($0) }
    }

    /// A ``FlatMapProcedure`` of this procedure's output: the transformed arrays, concatenated.
    public func flatMap<Transformed: Sendable>(
        _ transform: @escaping @Sendable (Output.Element) throws -> [Transformed]
    ) -> FlatMapProcedure<Output.Element, Transformed> {
        FlatMapProcedure(transform).injectResult(from: self) { Array($0) }
    }

    /// A ``CompactMapProcedure`` of this procedure's output: the non-nil results.
    public func compactMap<Transformed: Sendable>(
        _ transform: @escaping @Sendable (Output.Element) throws -> Transformed?
    ) -> CompactMapProcedure<Output.Element, Transformed> {
        CompactMapProcedure(transform).injectResult(from: self) { Array($0) }
    }

    /// A ``ReduceProcedure`` of this procedure's output, starting from `initialResult`.
    public func reduce<Result: Sendable>(
        _ initialResult: Result, _ nextPartialResult: @escaping @Sendable (Result, Output.Element) throws -> Result
    ) -> ReduceProcedure<Output.Element, Result> {
        ReduceProcedure(initialResult, nextPartialResult).injectResult(from: self) { Array($0) }
    }

    /// A ``ReduceProcedure`` of this procedure's output that updates an accumulator starting
    /// as `initialResult`.
    public func reduce<Result: Sendable>(
        into initialResult: Result, _ updateAccumulatingResult: @escaping @Sendable (inout Result, Output.Element) throws -> Void
    ) -> ReduceProcedure<Output.Element, Result> {
        ReduceProcedure(into: initialResult, updateAccumulatingResult).injectResult(from: self) { Array($0) }
    }
}
