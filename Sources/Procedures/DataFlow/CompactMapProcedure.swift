import Foundation

/// A procedure that transforms each element of its input and keeps the non-nil results, in
/// order, like `Sequence.compactMap`.
///
/// ```swift
/// let numbers = CompactMapProcedure(input: ["1", "x", "3"]) { Int($0) }   // output [1, 3]
/// ```
public final class CompactMapProcedure<Element: Sendable, Transformed: Sendable>:
    ReduceProcedure<Element, [Transformed]>, @unchecked Sendable
{
    // @unchecked: no stored properties of its own.

    /// Keeps `transform(element)` for each element of the input where it is not nil.
    public init(input: [Element]? = nil, _ transform: @escaping @Sendable (Element) throws -> Transformed?) {
        super.init(input: input, into: []) { result, element in
            if let transformed = try transform(element) { result.append(transformed) }
        }
    }
}
