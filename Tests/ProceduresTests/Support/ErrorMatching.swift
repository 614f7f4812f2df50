import Foundation
import ProceduresTesting
import XCTest

/// The ids of the `TestError`s in `errors`, sorted, so order-independent comparisons read well.
func testErrorIDs(_ errors: [any Error]) -> [String] {
    errors.compactMap { ($0 as? TestError)?.id }.sorted()
}

/// True if any of `errors` is a ``ProcedureError/parentCancelled(errors:)``.
func containsParentCancelled(_ errors: [any Error]) -> Bool {
    errors.contains {
        if case .parentCancelled = $0 as? ProcedureError { return true }
        return false
    }
}

/// The errors inside the first ``ProcedureError/parentCancelled(errors:)`` of `errors`.
func parentCancelledErrors(_ errors: [any Error]) -> [any Error]? {
    for error in errors {
        if case .parentCancelled(let inner) = error as? ProcedureError { return inner }
    }
    return nil
}
