/// A procedure's conditions, in the order added: the first one inline, so that a procedure
/// with one condition (the usual case) allocates no array for it.
struct ConditionList: RandomAccessCollection {
    private var first: Condition?
    private var rest: [Condition] = []

    var startIndex: Int { 0 }
    var endIndex: Int { first == nil ? 0 : rest.count + 1 }

    subscript(position: Int) -> Condition {
        // Only ever read at valid positions (as any collection's subscript).
        position == 0 ? first.unsafelyUnwrapped : rest[position - 1]
    }

    mutating func append(_ condition: Condition) {
        if first == nil { first = condition } else { rest.append(condition) }
    }

    /// The conditions as an array (for the few readers that keep them).
    var array: [Condition] { Array(self) }
}
