import Foundation
import Synchronization
import ProceduresSupport

/// One procedure's claim on a set of exclusivity categories.
///
/// The procedure's ``ConditionGate`` is its request (the only subclass): an exclusive
/// procedure allocates one object for both, and the request lives exactly as long as the gate
/// needs it. Every stored property is `final`, so reading one costs no dynamic dispatch.
class ExclusivityRequest: @unchecked Sendable {
    // @unchecked: `claim` is written and read only under the manager's lock; the two atomics
    // are read and written without it.
    enum Status {
        case new, waiting, granted, withdrawn
        /// It gave its categories back because it could not start for want of a slot; it
        /// joins its lines again, at their front, once it has a slot (see `claimForStart`).
        case steppedAside
    }

    /// Its place in the manager's lines, the request's share of the manager's state.
    // The words first and the bytes last: the claim is part of every exclusive procedure's gate.
    struct Claim {
        /// Set by `submit`, with `procedure`.
        var categories = CategoryList()
        /// The lines it joined, in `categories` order (set by `submit`), so that leaving them
        /// needs no lookup by name: the first one inline, so that a request for one category
        /// (the usual case) allocates no array.
        var firstLine: ExclusivityManager.Line?
        var otherLines: [ExclusivityManager.Line] = []
        /// How many of its lines it is not yet first in.
        var missingHeads = 0
        /// The procedure making the request: told when the request is granted (its condition
        /// gate opens), and named to a waiter asking who holds a category. Dropped when the
        /// request is withdrawn (a withdrawn request may linger in a line).
        var procedure: Procedure?
        var status = Status.new
        /// Set once its procedure started holding the categories: from then on it never steps aside.
        var started = false
        /// True while it waits, holding a slot, to take back the categories it gave back.
        var isReturning = false
    }

    // Unchecked: only touched under the manager's lock, which already makes each access exclusive.
    @exclusivity(unchecked) final var claim = Claim()
    /// Set once its procedure, granted, was handed to its scheduler and gave its categories
    /// back if it had to wait for a slot: until then a granted request is in transit. Atomic,
    /// so that a procedure that did not wait sets it without the manager's lock.
    final let slotDecided = Atomic<Bool>(false)
    /// Who came first, without the manager's lock: its procedure starting (1) or its giving
    /// its categories back for want of a slot (2); 0 until one did. Most procedures start,
    /// and a start then takes no lock.
    final let startClaim = Atomic<UInt8>(0)

    init() {}

    /// The first line it joined for which `predicate` holds.
    final func joinedLine(where predicate: (ExclusivityManager.Line) -> Bool) -> ExclusivityManager.Line? {
        guard let firstLine = claim.firstLine else { return nil }
        if predicate(firstLine) { return firstLine }
        return claim.otherLines.first(where: predicate)
    }

    final func forEachJoinedLine(_ body: (ExclusivityManager.Line) -> Void) {
        guard let firstLine = claim.firstLine else { return }
        body(firstLine)
        for line in claim.otherLines { body(line) }
    }

    final func join(_ line: ExclusivityManager.Line) {
        if claim.firstLine == nil {
            claim.firstLine = line
        } else {
            if claim.otherLines.isEmpty { claim.otherLines.reserveCapacity(claim.categories.count - 1) }
            claim.otherLines.append(line)
        }
    }
}

/// Grants exclusivity categories, process-wide, first come first served per category.
///
/// A request joins the line of each of its categories in one critical section, so every line
/// orders requests the same way (by arrival); a request is granted once it is first in all its
/// lines. The oldest waiting request is therefore always first in each of its lines once the
/// holders ahead of it release: no order of naming categories can deadlock. Each request
/// becomes first in each of its lines once, and a withdrawn request is skipped (not searched
/// for) when it comes first, so every operation costs O(categories of the request), amortized.
///
/// A granted procedure that cannot start for want of a slot *steps aside*: it gives its
/// categories back, so that a procedure its slot's holder waits for can take them, and once it
/// has a slot it joins its lines again ahead of every request that has not been granted (behind
/// a holder). So a category is never held by a procedure that waits for a slot, and FIFO per
/// category holds among procedures that can run: a request is passed only while it could not
/// have started anyway, and never again once it has its slot.
package final class ExclusivityManager: @unchecked Sendable {
    // @unchecked: `state` (and every request's `claim`, every line's `queue`) is guarded by `lock`.
    static let shared = ExclusivityManager()

    /// One category's holder and waiters, in order.
    final class Line {
        let category: String
        // Unchecked: only touched under the manager's lock, which already makes each access exclusive.
        @exclusivity(unchecked) var queue = LineQueue()

        init(category: String) {
            self.category = category
        }
    }

    /// A line's requests, the line's share of the manager's state.
    struct LineQueue {
        var entries: [ExclusivityRequest] = []
        var head = 0
        /// Requests that stepped aside and now hold a slot: after a holder, before `entries`.
        var returning: [ExclusivityRequest] = []
        var returningHead = 0
        /// The request first in line (the holder, or the next to hold it), counted as first in
        /// its `missingHeads`; nil for an empty line.
        var first: ExclusivityRequest?

        /// Who should be first now: a granted request, else the first returning one, else the
        /// first in `entries`; withdrawn ones at either front are dropped.
        mutating func front() -> ExclusivityRequest? {
            while head < entries.count, entries[head].claim.status == .withdrawn { head += 1 }
            while returningHead < returning.count, returning[returningHead].claim.status == .withdrawn { returningHead += 1 }
            if head < entries.count, entries[head].claim.status == .granted { return entries[head] }
            if returningHead < returning.count { return returning[returningHead] }
            return head < entries.count ? entries[head] : nil
        }

        /// Takes `request`, which is first, out of the line.
        mutating func removeFirst(_ request: ExclusivityRequest) {
            if head < entries.count, entries[head] === request {
                head += 1
            } else if returningHead < returning.count, returning[returningHead] === request {
                returningHead += 1
            }
            first = nil
        }

        /// Drops the requests already gone past, so the arrays do not grow without bound.
        mutating func compact() {
            if head > 32 && head * 2 > entries.count {
                entries.removeFirst(head)
                head = 0
            }
            if returningHead > 0 && returningHead == returning.count {
                returning.removeAll(keepingCapacity: false)
                returningHead = 0
            }
        }
    }

    private let lock = InlineLock()
    // Unchecked: only touched under `lock`, which already makes each access exclusive.
    @exclusivity(unchecked) private var state = ExclusivityState()
    /// How many categories are held or waited for (written under `lock`), for the wait-for
    /// graph to read without it.
    let linesInUse = Atomic<Int>(0)

    /// Runs an event of `state` under `lock` and publishes the number of lines it leaves.
    private func update<Result>(_ event: (inout ExclusivityState) -> Result) -> Result {
        lock.withLock {
            let result = event(&state)
            linesInUse.store(state.lineCount, ordering: .relaxed)
            return result
        }
    }

    /// Asks for `categories` (distinct) for `procedure` and joins their lines; the procedure
    /// is told (`exclusivityGranted()`, on this thread, or on the thread releasing the last
    /// category it waits for) once it holds them all. Ignored for a withdrawn request.
    /// True if it was granted at once (or withdrawn already).
    @discardableResult
    func submit(_ request: ExclusivityRequest, for categories: CategoryList, by procedure: Procedure) -> Bool {
        let (waits, granted) = update { $0.submit(request, for: categories, by: procedure) }
        granted.run()
        return !waits
    }

    /// Leaves the lines (if waiting) or releases the categories (if granted); a request not
    /// yet submitted will never be. Safe to call more than once. `loopComing`: see
    /// `Grants.run(loopComing:)`; true if a procedure granted now was handed to that loop.
    @discardableResult
    func withdraw(_ request: ExclusivityRequest, unlessGranted: Bool = false, loopComing: ProcedureScheduler? = nil) -> Bool {
        let (dropped, granted) = update { $0.withdraw(request, unlessGranted: unlessGranted) }
        _ = consume dropped  // released outside the lock: it may be the last reference
        return granted.run(loopComing: loopComing)
    }

    /// Its granted procedure was handed to its scheduler: if it `waits` for a slot, it gives
    /// its categories back (see the type's documentation), unless it started meanwhile.
    func slotDecided(for request: ExclusivityRequest, waits: Bool) {
        guard waits else { return request.slotDecided.store(true, ordering: .releasing) }
        // Started already (a slot came at once after all): it keeps its categories.
        guard request.startClaim.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged else {
            return request.slotDecided.store(true, ordering: .releasing)
        }
        let granted = update { state in
            request.slotDecided.store(true, ordering: .relaxed)
            return state.stepAside(request)
        }
        granted.run()
    }

    /// True while `request` is granted but its procedure not yet handed to its scheduler
    /// (it starts, or gives the categories back, presently): no wait of its is settled yet.
    func isInTransit(_ request: ExclusivityRequest) -> Bool {
        lock.withLock { request.claim.status == .granted } && !request.slotDecided.load(ordering: .acquiring)
    }

    /// What a procedure with categories, given a slot, does next.
    enum StartClaim {
        /// It holds its categories (or has none to wait for): it starts.
        case start
        /// It stepped aside: it must rejoin its lines (``rejoin(_:)``) before it starts.
        case rejoin
    }

    /// Its procedure has a slot: it starts holding its categories, unless it stepped aside.
    func claimForStart(_ request: ExclusivityRequest) -> StartClaim {
        let (started, claim) = request.startClaim.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing)
        return started || claim == 1 ? .start : .rejoin
    }

    /// A request that stepped aside, whose procedure now holds a slot, joins its lines again
    /// ahead of every request not yet granted. True if it holds its categories at once (or was
    /// withdrawn meanwhile: its procedure then starts only to finish); otherwise its procedure
    /// is told (`exclusivityGranted()`) once it does.
    func rejoin(_ request: ExclusivityRequest) -> Bool {
        update { $0.rejoin(request) }
    }

    /// Withdraws `request` unless it already holds its categories.
    func leaveLine(_ request: ExclusivityRequest) {
        withdraw(request, unlessGranted: true)
    }

    /// The procedure first in `category`'s line: it holds the category (or takes it as soon
    /// as the other categories it asked for are free). Nil when nobody holds it.
    func holder(of category: String) -> Procedure? {
        lock.withLock { state.line(named: category)?.queue.first?.claim.procedure }
    }

    /// While `request` waits: the first of its categories that someone else is ahead of it
    /// for, and that one's procedure (see ``holder(of:)``).
    func blocker(of request: ExclusivityRequest) -> (category: String, holder: Procedure?)? {
        lock.withLock {
            guard request.claim.status == .waiting else { return nil }
            guard let line = request.joinedLine(where: { $0.queue.first != nil && $0.queue.first !== request }) else { return nil }
            return (line.category, line.queue.first?.claim.procedure)
        }
    }

    /// While `request` waits: each of its categories that someone else is ahead of it for,
    /// with that one's procedure (see ``holder(of:)``). It waits for every one of them: any
    /// of them can be the one that never lets go.
    func blockers(of request: ExclusivityRequest) -> [(category: String, holder: Procedure)] {
        lock.withLock {
            guard request.claim.status == .waiting else { return [] }
            var found: [(category: String, holder: Procedure)] = []
            request.forEachJoinedLine { line in
                if let first = line.queue.first, first !== request, let holder = first.claim.procedure { found.append((line.category, holder)) }
            }
            return found
        }
    }

    /// The procedure that holds `category` or takes it next (for tests).
    package static func currentHolder(of category: String) -> Procedure? {
        shared.holder(of: category)
    }

    /// While `request` waits: true if a procedure ahead of it in one of its lines may itself
    /// wait for something (see ``Procedure/mayWait``); false when all are simply running, so
    /// the wait cannot close a cycle.
    func blockersMayWait(_ request: ExclusivityRequest) -> Bool {
        var blockers: [Procedure] = []
        let first = lock.withLock { () -> Procedure? in
            guard request.claim.status == .waiting else { return nil }
            var first: Procedure?
            request.forEachJoinedLine { line in
                guard let blocker = line.queue.first?.claim.procedure, line.queue.first !== request else { return }
                if first == nil { first = blocker } else { blockers.append(blocker) }
            }
            return first
        }
        guard let first else { return false }
        return first.mayWait || blockers.contains { $0.mayWait }
    }

    /// True while some procedure holds or waits for `category` (for tests: a category nobody
    /// uses any more must not be kept).
    package static func isInUse(_ category: String) -> Bool {
        shared.lock.withLock { shared.state.line(named: category) != nil }
    }
}
