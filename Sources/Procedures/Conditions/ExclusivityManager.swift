import Foundation
import Synchronization
import ProceduresSupport

/// One procedure's claim on a set of exclusivity categories.
///
/// The procedure's ``ConditionGate`` is its request (the only subclass): an exclusive
/// procedure allocates one object for both, and the request lives exactly as long as the gate
/// needs it. Every stored property is `final`, so reading one costs no dynamic dispatch.
class ExclusivityRequest: @unchecked Sendable {
    // @unchecked: every stored property, `categories` and `procedure` included, is written
    // and read only under the manager's lock (the two are set by `submit`).
    enum Status {
        case new, waiting, granted, withdrawn
        /// It gave its categories back because it could not start for want of a slot; it
        /// joins its lines again, at their front, once it has a slot (see `claimForStart`).
        case steppedAside
    }

    @exclusivity(unchecked) final fileprivate(set) var categories: [String] = []
    /// The lines it joined, in `categories` order (set by `submit`), so that leaving them
    /// needs no lookup by name: the first one inline, so that a request for one category (the
    /// usual case) allocates no array.
    @exclusivity(unchecked) final var firstLine: ExclusivityManager.Line?
    @exclusivity(unchecked) final var otherLines: [ExclusivityManager.Line] = []
    @exclusivity(unchecked) final var status = Status.new
    /// How many of its lines it is not yet first in.
    @exclusivity(unchecked) final var missingHeads = 0
    /// Set once its procedure, granted, was handed to its scheduler and gave its categories
    /// back if it had to wait for a slot: until then a granted request is in transit. Atomic,
    /// so that a procedure that did not wait sets it without the manager's lock.
    final let slotDecided = Atomic<Bool>(false)
    /// Who came first, without the manager's lock: its procedure starting (1) or its giving
    /// its categories back for want of a slot (2); 0 until one did. Most procedures start,
    /// and a start then takes no lock.
    final let startClaim = Atomic<UInt8>(0)
    /// Set once its procedure started holding the categories: from then on it never steps aside.
    @exclusivity(unchecked) final var started = false
    /// True while it waits, holding a slot, to take back the categories it gave back.
    @exclusivity(unchecked) final var isReturning = false
    /// The procedure making the request: told when the request is granted (its condition
    /// gate opens), and named to a waiter asking who holds a category. Dropped when the
    /// request is withdrawn (a withdrawn request may linger in a line).
    @exclusivity(unchecked) final var procedure: Procedure?

    init() {}

    /// The first line it joined for which `predicate` holds.
    final func joinedLine(where predicate: (ExclusivityManager.Line) -> Bool) -> ExclusivityManager.Line? {
        guard let firstLine else { return nil }
        if predicate(firstLine) { return firstLine }
        return otherLines.first(where: predicate)
    }

    final func forEachJoinedLine(_ body: (ExclusivityManager.Line) -> Void) {
        guard let firstLine else { return }
        body(firstLine)
        for line in otherLines { body(line) }
    }

    final func join(_ line: ExclusivityManager.Line) {
        if firstLine == nil {
            firstLine = line
        } else {
            if otherLines.isEmpty { otherLines.reserveCapacity(categories.count - 1) }
            otherLines.append(line)
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
    // @unchecked: `lines` (and every request's mutable fields) are guarded by `lock`.
    static let shared = ExclusivityManager()

    /// One category's holder and waiters, in order; fields guarded by the manager's lock.
    final class Line {
        let category: String
        @exclusivity(unchecked) var entries: [ExclusivityRequest] = []
        @exclusivity(unchecked) var head = 0
        /// Requests that stepped aside and now hold a slot: after a holder, before `entries`.
        @exclusivity(unchecked) var returning: [ExclusivityRequest] = []
        @exclusivity(unchecked) var returningHead = 0
        /// The request first in line (the holder, or the next to hold it), counted as first in
        /// its `missingHeads`; nil for an empty line.
        @exclusivity(unchecked) var first: ExclusivityRequest?
        var isEmpty: Bool { first == nil }

        init(category: String) {
            self.category = category
        }

        /// Who should be first now: a granted request, else the first returning one, else the
        /// first in `entries`; withdrawn ones at either front are dropped.
        func front() -> ExclusivityRequest? {
            while head < entries.count, entries[head].status == .withdrawn { head += 1 }
            while returningHead < returning.count, returning[returningHead].status == .withdrawn { returningHead += 1 }
            if head < entries.count, entries[head].status == .granted { return entries[head] }
            if returningHead < returning.count { return returning[returningHead] }
            return head < entries.count ? entries[head] : nil
        }

        /// Takes `request`, which is first, out of the line.
        func removeFirst(_ request: ExclusivityRequest) {
            if head < entries.count, entries[head] === request {
                head += 1
            } else if returningHead < returning.count, returning[returningHead] === request {
                returningHead += 1
            }
            first = nil
        }

        /// Drops the requests already gone past, so the arrays do not grow without bound.
        func compact() {
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
    @exclusivity(unchecked) private var lines: [String: Line] = [:]
    /// How many categories are held or waited for (written under `lock`), for the wait-for
    /// graph to read without it.
    let linesInUse = Atomic<Int>(0)
    /// The line joined last: usually one hot category is asked for again and again, and
    /// comparing its name (often the very same string) is far cheaper than hashing it.
    @exclusivity(unchecked) private var recentLine: Line?

    /// Asks for `categories` (distinct) for `procedure` and joins their lines; the procedure
    /// is told (`exclusivityGranted()`, on this thread, or on the thread releasing the last
    /// category it waits for) once it holds them all. Ignored for a withdrawn request.
    /// True if it was granted at once (or withdrawn already).
    @discardableResult
    func submit(_ request: ExclusivityRequest, for categories: [String], by procedure: Procedure) -> Bool {
        var granted = Grants()
        let waits = lock.withLock { () -> Bool in
            guard request.status == .new else { return false }
            request.categories = categories
            request.procedure = procedure
            request.status = .waiting
            join(request, atFront: false, granted: &granted)
            return request.status == .waiting
        }
        granted.run()
        return !waits
    }

    /// Under `lock`: puts a waiting `request` in each of its lines (at the back, or among the
    /// returning ones) and makes it first where nobody is ahead of it.
    private func join(_ request: ExclusivityRequest, atFront: Bool, granted: inout Grants) {
        request.missingHeads = request.categories.count
        for category in request.categories {
            let line = line(for: category)
            if atFront { line.returning.append(request) } else { line.entries.append(request) }
            request.join(line)
            settle(line, granted: &granted, movedOn: false)
        }
    }

    /// Under `lock`: makes the request that should be first in `line` the one counted first
    /// (one that a returning request displaced counts the line as missing again), and grants
    /// it if it is first everywhere. Drops the line once it is empty. `movedOn`: the one first
    /// before left; a new first that still waits is one the line's waiters now wait for, a
    /// wait that may close a cycle (a request joining is checked by whoever submits it).
    private func settle(_ line: Line, granted: inout Grants, movedOn: Bool) {
        let front = line.front()
        if front != nil, front === line.first { return }
        if let displaced = line.first, displaced.status == .waiting { displaced.missingHeads += 1 }
        line.first = front
        guard let front else {
            // An emptied line is dropped (a later request makes a new one), so categories
            // used once do not pile up.
            lines[line.category] = nil
            linesInUse.store(lines.count, ordering: .relaxed)
            if recentLine === line { recentLine = nil }
            line.entries = []
            line.head = 0
            line.returning = []
            line.returningHead = 0
            return
        }
        line.compact()
        front.missingHeads -= 1
        if front.missingHeads == 0, front.status == .waiting, let procedure = grant(front) {
            granted.append(procedure)
        } else if movedOn, front.status == .waiting, let procedure = front.procedure {
            granted.waitsToCheck.append(procedure)
        }
    }

    /// `category`'s line, made if nobody holds or waits for it. Call under `lock`.
    private func line(for category: String) -> Line {
        if let recentLine, recentLine.category == category { return recentLine }
        let line: Line
        if let existing = lines[category] {
            line = existing
        } else {
            line = Line(category: category)
            lines[category] = line
            linesInUse.store(lines.count, ordering: .relaxed)
        }
        recentLine = line
        return line
    }

    /// Leaves the lines (if waiting) or releases the categories (if granted); a request not
    /// yet submitted will never be. Safe to call more than once.
    func withdraw(_ request: ExclusivityRequest, unlessGranted: Bool = false) {
        var granted = Grants()
        let dropped = lock.withLock { () -> Procedure? in
            let previous = request.status
            if unlessGranted && previous == .granted { return nil }
            request.status = .withdrawn
            defer { request.procedure = nil }
            guard previous == .waiting || previous == .granted else { return request.procedure }
            leaveLines(request, granted: &granted)
            return request.procedure
        }
        _ = consume dropped  // released outside the lock: it may be the last reference
        granted.run()
    }

    /// Under `lock`: takes `request` out of its lines. Only a request first in its line holds
    /// anyone up; one further back is skipped when it comes first.
    private func leaveLines(_ request: ExclusivityRequest, granted: inout Grants) {
        request.forEachJoinedLine { line in
            if line.first === request {
                line.removeFirst(request)
                settle(line, granted: &granted, movedOn: true)
            }
        }
        request.firstLine = nil
        request.otherLines = []
    }

    /// Its granted procedure was handed to its scheduler: if it `waits` for a slot, it gives
    /// its categories back (see the type's documentation), unless it started meanwhile.
    func slotDecided(for request: ExclusivityRequest, waits: Bool) {
        guard waits else { return request.slotDecided.store(true, ordering: .releasing) }
        // Started already (a slot came at once after all): it keeps its categories.
        guard request.startClaim.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged else {
            return request.slotDecided.store(true, ordering: .releasing)
        }
        var granted = Grants()
        lock.withLock {
            request.slotDecided.store(true, ordering: .relaxed)
            guard request.status == .granted, !request.started else { return }
            request.status = .steppedAside
            leaveLines(request, granted: &granted)
        }
        granted.run()
    }

    /// True while `request` is granted but its procedure not yet handed to its scheduler
    /// (it starts, or gives the categories back, presently): no wait of its is settled yet.
    func isInTransit(_ request: ExclusivityRequest) -> Bool {
        lock.withLock { request.status == .granted } && !request.slotDecided.load(ordering: .acquiring)
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
        lock.withLock {
            if request.status == .granted {
                // Its giving them back was decided but not done yet: it keeps them instead.
                request.started = true
                return true
            }
            guard request.status == .steppedAside else { return true }
            request.status = .waiting
            request.isReturning = true
            var granted = Grants()
            join(request, atFront: true, granted: &granted)
            // Joining can grant only the joining request: it is told by this answer instead.
            return request.status == .granted
        }
    }

    /// The procedures a withdrawal granted their categories, told once the lock is released:
    /// the first inline, since releasing one category usually grants one request. With the
    /// procedures that became first in a line but still wait, whose waits are then checked.
    private struct Grants {
        var first: Procedure?
        var more: [Procedure] = []
        var waitsToCheck: [Procedure] = []

        mutating func append(_ procedure: Procedure) {
            if first == nil { first = procedure } else { more.append(procedure) }
        }

        func run() {
            first?.exclusivityGranted()
            for procedure in more { procedure.exclusivityGranted() }
            for procedure in waitsToCheck { WaitForGraph.checkWaits(of: procedure) }
        }
    }

    /// Withdraws `request` unless it already holds its categories.
    func leaveLine(_ request: ExclusivityRequest) {
        withdraw(request, unlessGranted: true)
    }

    /// Under `lock`: the request holds its categories; its procedure, to be told. A returning
    /// request's procedure already holds its slot, so it has started.
    private func grant(_ request: ExclusivityRequest) -> Procedure? {
        request.status = .granted
        if request.isReturning { request.started = true }
        return request.procedure
    }

    /// The procedure first in `category`'s line: it holds the category (or takes it as soon
    /// as the other categories it asked for are free). Nil when nobody holds it.
    func holder(of category: String) -> Procedure? {
        lock.withLock { lines[category]?.first?.procedure }
    }

    /// While `request` waits: the first of its categories that someone else is ahead of it
    /// for, and that one's procedure (see ``holder(of:)``).
    func blocker(of request: ExclusivityRequest) -> (category: String, holder: Procedure?)? {
        lock.withLock {
            guard request.status == .waiting else { return nil }
            guard let line = request.joinedLine(where: { $0.first != nil && $0.first !== request }) else { return nil }
            return (line.category, line.first?.procedure)
        }
    }

    /// While `request` waits: each of its categories that someone else is ahead of it for,
    /// with that one's procedure (see ``holder(of:)``). It waits for every one of them: any
    /// of them can be the one that never lets go.
    func blockers(of request: ExclusivityRequest) -> [(category: String, holder: Procedure)] {
        lock.withLock {
            guard request.status == .waiting else { return [] }
            var found: [(category: String, holder: Procedure)] = []
            request.forEachJoinedLine { line in
                if let first = line.first, first !== request, let holder = first.procedure { found.append((line.category, holder)) }
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
            guard request.status == .waiting else { return nil }
            var first: Procedure?
            request.forEachJoinedLine { line in
                guard let blocker = line.first?.procedure, line.first !== request else { return }
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
        shared.lock.withLock { shared.lines[category] != nil }
    }
}
