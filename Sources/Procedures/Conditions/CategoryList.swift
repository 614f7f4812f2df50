/// The exclusivity categories a procedure claims, each once, in the order its conditions name
/// them: the first one inline, so that a claim of one category (the usual case) allocates no
/// array, from the `MutuallyExclusive` that names it to the manager's lines.
struct CategoryList: RandomAccessCollection {
    private var first: String?
    private var rest: [String] = []
    /// Every category, once a claim names more than a few: looking each up stays O(1).
    private var seen: Set<String>?

    init() {}

    /// `categories`, each once.
    init(_ categories: some Sequence<String>) {
        append(contentsOf: categories)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { first == nil ? 0 : rest.count + 1 }

    subscript(position: Int) -> String {
        // Only ever read at valid positions (as any collection's subscript).
        position == 0 ? first.unsafelyUnwrapped : rest[position - 1]
    }

    /// Adds `category` unless it is there already.
    mutating func append(_ category: String) {
        guard let first else {
            self.first = category
            return
        }
        if seen == nil {
            // A few: a linear look is cheapest.
            if first == category || rest.contains(category) { return }
            rest.append(category)
            if rest.count == Self.linearLimit { seen = Set(self) }
        } else if seen!.insert(category).inserted {
            rest.append(category)
        }
    }

    /// How many categories are looked up one by one before a set takes over.
    private static let linearLimit = 8

    mutating func append(contentsOf categories: some Sequence<String>) {
        for category in categories { append(category) }
    }

    /// The categories as an array (for descriptions).
    var array: [String] { Array(self) }
}
