import Foundation

/// Lets at most one procedure per category run at a time, in the whole process.
///
/// Add it as a condition. Procedures naming the same category run one after another, in the
/// order they asked (once their dependencies finished and their other conditions were
/// satisfied), whatever queue or group they are on. A procedure with several categories
/// takes them all at once or waits for all of them, so no order of naming them can deadlock.
/// It holds them until it finishes, however it finishes; a procedure cancelled while
/// waiting for them leaves the line at once. While it waits it holds no queue slot and no
/// thread.
///
/// ```swift
/// let alert = ShowAlert()
/// alert.addCondition(MutuallyExclusive<ShowAlert>())
/// alert.addCondition(MutuallyExclusive(category: "screen"))
/// ```
///
/// The category of `MutuallyExclusive<T>()` is `T`'s full name; `MutuallyExclusive(category:)`
/// names it directly. The categories are taken after every condition of the procedure was
/// satisfied, so a condition's own produced procedures can use the same categories.
public final class MutuallyExclusive<T>: Condition, @unchecked Sendable {
    // @unchecked: `category` is immutable; the base class locks its own state.

    /// The category this condition claims.
    public let category: String

    /// Claims the category named after `T` (its full name, so that two types of the same
    /// name in different modules do not share a category). The condition's ``Condition/name``
    /// uses the short name: `MutuallyExclusive<Alert>`.
    public override init() {
        self.category = String(reflecting: T.self)
        super.init()
    }

    /// Claims the category named `category`; `T` only documents what it is for, as in
    /// ProcedureKit's `MutuallyExclusive<Alert>(category: "alerts")`.
    public convenience init(category: String) {
        self.init(categoryName: category)
    }

    init(categoryName: String) {
        self.category = categoryName
        super.init()
    }

    /// Named after the category as given, or after `T`'s short name for a category named after `T`.
    override var defaultName: String {
        let shown = category == String(reflecting: T.self) ? String(describing: T.self) : category
        return "MutuallyExclusive<\(shown)>"
    }

    /// Always satisfied: the exclusivity is applied after the conditions.
    public override func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.satisfied)
    }

    /// Final, and `evaluate` always answers `.satisfied`.
    override var isSatisfiedByDefinition: Bool { true }

    /// The one category.
    public override var mutuallyExclusiveCategories: [String] { [category] }

    /// Its category, with no array made (the procedure's gate asks this, not the array).
    override func addCategories(to list: inout CategoryList) {
        list.append(category)
    }
}

extension MutuallyExclusive where T == Never {
    /// Claims the category named `category`.
    public convenience init(category: String) {
        self.init(categoryName: category)
    }
}
