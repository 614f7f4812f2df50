import Foundation

/// A procedure that transforms each element of its input into several and concatenates them,
/// in order, like `Sequence.flatMap`.
///
/// ```swift
/// let letters = FlatMapProcedure(input: ["ab", "c"]) { Array($0) }   // output ["a", "b", "c"]
/// ```
///
/// ProcedureKit's `FlatMapProcedure` dropped `nil`s instead: that is ``CompactMapProcedure``
/// here, as in the standard library. It is a ``ReduceProcedure``: a cancel stops it before
/// the next element, and ``ReduceProcedure/partialOutput`` then holds what it had so far.
public final class FlatMapProcedure<Element: Sendable, Transformed: Sendable>:
    ReduceProcedure<Element, [Transformed]>, @unchecked Sendable
{
    // @unchecked: no stored properties of its own.

    /// Concatenates `transform(element)` for each element of the input.
    public init(input: [Element]? = nil, _ transform: @escaping @Sendable (Element) throws -> [Transformed]) {
        super.init(input: input, into: []) { result, element in
            result.append(contentsOf: try transform(element))
        }
    }
}
