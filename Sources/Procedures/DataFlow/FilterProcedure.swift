import Foundation

/// A procedure that keeps the elements of its input for which a closure returns true, in
/// order, like `Sequence.filter`.
///
/// ```swift
/// let evens = FilterProcedure(input: [1, 2, 3, 4]) { $0 % 2 == 0 }   // output [2, 4]
/// ```
///
/// It is a ``ReduceProcedure``: a cancel stops it before the next element, an error thrown
/// fails it, and ``ReduceProcedure/partialOutput`` then holds the elements kept so far.
public final class FilterProcedure<Element: Sendable>: ReduceProcedure<Element, [Element]>, @unchecked Sendable {
    // @unchecked: no stored properties of its own.

    /// Keeps the elements for which `isIncluded` returns true.
    public init(input: [Element]? = nil, _ isIncluded: @escaping @Sendable (Element) throws -> Bool) {
        super.init(input: input, into: []) { result, element in
            if try isIncluded(element) { result.append(element) }
        }
    }
}
