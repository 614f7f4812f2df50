import Foundation

/// A procedure that transforms each element of its input, in order, like `Sequence.map`.
///
/// ```swift
/// let lengths = MapProcedure(input: ["a", "bcd"]) { $0.count }   // output [1, 3]
/// ```
///
/// It is a ``ReduceProcedure``: a cancel stops it before the next element, an error thrown
/// fails it, and ``ReduceProcedure/partialOutput`` then holds the elements transformed so far.
public final class MapProcedure<Element: Sendable, Transformed: Sendable>: ReduceProcedure<Element, [Transformed]>,
    @unchecked Sendable
{
    // @unchecked: no stored properties of its own.

    /// Transforms each element of the input with `transform`.
    public init(input: [Element]? = nil, _ transform: @escaping @Sendable (Element) throws -> Transformed) {
        super.init(input: input, into: []) { result, element in
            result.append(try transform(element))
        }
    }
}
