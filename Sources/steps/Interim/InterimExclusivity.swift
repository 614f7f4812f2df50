import Foundation
import Procedures

// INTERIM: stands in for the library's MutuallyExclusive(category:) (issue 11) until it
// reaches main. Unlike the library's, a step waiting here holds one of the --jobs slots.

/// At most one holder per category; waiters granted in the order they asked, all of their
/// categories at once (so no order of naming them can deadlock).
final class InterimExclusivity: @unchecked Sendable {
    // @unchecked: `held` and `waiting` are guarded by `lock`; grants run after unlocking.
    private let lock = NSLock()
    private var held: Set<String> = []
    private var waiting: [(id: ObjectIdentifier, categories: Set<String>, grant: @Sendable () -> Void)] = []

    /// Calls `grant` (perhaps at once) when every category is free for `id`.
    func acquire(_ categories: Set<String>, for id: ObjectIdentifier, grant: @escaping @Sendable () -> Void) {
        lock.lock()
        waiting.append((id, categories, grant))
        let grants = grantable()
        lock.unlock()
        grants.forEach { $0() }
    }

    /// Leaves the line (a cancelled waiter); returns whether it was still waiting.
    func withdraw(_ id: ObjectIdentifier) -> Bool {
        lock.withLock {
            guard let index = waiting.firstIndex(where: { $0.id == id }) else { return false }
            waiting.remove(at: index)
            return true
        }
    }

    func release(_ categories: Set<String>) {
        lock.lock()
        held.subtract(categories)
        let grants = grantable()
        lock.unlock()
        grants.forEach { $0() }
    }

    /// Under `lock`: grants, in line order, every waiter whose categories are all free and not
    /// wanted by an earlier waiter still in line.
    private func grantable() -> [@Sendable () -> Void] {
        var grants: [@Sendable () -> Void] = []
        var claimed = held
        var remaining: [(id: ObjectIdentifier, categories: Set<String>, grant: @Sendable () -> Void)] = []
        for waiter in waiting {
            if waiter.categories.isDisjoint(with: claimed) {
                held.formUnion(waiter.categories)
                grants.append(waiter.grant)
            } else {
                remaining.append(waiter)
            }
            claimed.formUnion(waiter.categories)
        }
        waiting = remaining
        return grants
    }
}

/// A child that finishes once its step holds its categories (or at once when cancelled).
final class InterimExclusivityWait: Procedure, @unchecked Sendable {
    // @unchecked: `granted` is guarded by `lock`; the rest is immutable.
    let categories: Set<String>
    let registry: InterimExclusivity
    private let lock = NSLock()
    private var granted = false

    init(categories: Set<String>, registry: InterimExclusivity) {
        self.categories = categories
        self.registry = registry
        super.init()
    }

    var isGranted: Bool { lock.withLock { granted } }

    override func execute() {
        registry.acquire(categories, for: ObjectIdentifier(self)) { [self] in
            lock.withLock { granted = true }
            finish()
        }
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        if registry.withdraw(ObjectIdentifier(self)) { finish() }
    }
}
