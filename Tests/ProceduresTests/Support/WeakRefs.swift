import Foundation
import XCTest

/// Weak references to check that nothing outlives a test's scope.
final class WeakRefs: @unchecked Sendable {
    // @unchecked: `refs` is only touched under `lock`.
    private struct Ref {
        weak var object: AnyObject?
        let label: String
    }
    private let lock = NSLock()
    private var refs: [Ref] = []

    func track(_ object: AnyObject, _ label: String) {
        lock.withLock { refs.append(Ref(object: object, label: label)) }
    }

    /// The labels of the objects still alive.
    var alive: [String] { lock.withLock { refs.filter { $0.object != nil }.map(\.label) } }

    var count: Int { lock.withLock { refs.count } }
}

extension XCTestCase {
    /// Polls until every object tracked by `refs` has been released, failing after `timeout`.
    /// (Foundation's queues may release a finished operation a moment after it finished.)
    func waitUntilReleased(_ refs: WeakRefs, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line) {
        let released = XCTNSPredicateExpectation(
            predicate: NSPredicate { _, _ in refs.alive.isEmpty }, object: nil)
        let outcome = XCTWaiter().wait(for: [released], timeout: timeout)
        if outcome != .completed {
            let alive = refs.alive
            XCTFail(
                "\(alive.count) of \(refs.count) still alive after \(timeout) s: \(alive.prefix(20))",
                file: file, line: line)
        }
    }
}
