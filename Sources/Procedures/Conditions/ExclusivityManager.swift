import Foundation
import ProceduresSupport

/// One procedure's claim on a set of exclusivity categories.
///
/// The procedure's ``ConditionGate`` is its request (the only subclass): an exclusive
/// procedure allocates one object for both, and the request lives exactly as long as the gate
/// needs it. Every stored property is `final`, so reading one costs no dynamic dispatch.
class ExclusivityRequest: @unchecked Sendable {
    // @unchecked: the joined lines, `status`, `missingHeads` and `procedure` are guarded by
    // the manager's lock; `categories` is set once, before the request is submitted (its
    // gate's procedure lock orders that write before every reader), and never changes after.
    enum Status { case new, waiting, granted, withdrawn }

    @exclusivity(unchecked) final private(set) var categories: [String] = []
    /// The lines it joined, in `categories` order (set by `submit`), so that leaving them
    /// needs no lookup by name: the first one inline, so that a request for one category (the
    /// usual case) allocates no array.
    @exclusivity(unchecked) final var firstLine: ExclusivityManager.Line?
    @exclusivity(unchecked) final var otherLines: [ExclusivityManager.Line] = []
    @exclusivity(unchecked) final var status = Status.new
    /// How many of its lines it is not yet first in.
    @exclusivity(unchecked) final var missingHeads = 0
    /// The procedure making the request: told when the request is granted (its condition
    /// gate opens), and named to a waiter asking who holds a category. Dropped when the
    /// request is withdrawn (a withdrawn request may linger in a line).
    @exclusivity(unchecked) final var procedure: Procedure?

    init() {}

    /// Sets what the request asks for, once, before it is submitted.
    final func ask(for categories: [String], by procedure: Procedure) {
        self.categories = categories.uniqued { $0 }
        self.procedure = procedure
    }

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
package final class ExclusivityManager: @unchecked Sendable {
    // @unchecked: `lines` (and every request's mutable fields) are guarded by `lock`.
    static let shared = ExclusivityManager()

    /// One category's holder and waiters, in order; fields guarded by the manager's lock.
    final class Line {
        let category: String
        @exclusivity(unchecked) var entries: [ExclusivityRequest] = []
        @exclusivity(unchecked) var head = 0
        var isEmpty: Bool { head == entries.count }

        init(category: String) {
            self.category = category
        }
    }

    private let lock = InlineLock()
    @exclusivity(unchecked) private var lines: [String: Line] = [:]
    /// The line joined last: usually one hot category is asked for again and again, and
    /// comparing its name (often the very same string) is far cheaper than hashing it.
    @exclusivity(unchecked) private var recentLine: Line?

    /// Joins the lines; the request's procedure is told (`exclusivityGranted()`, on this
    /// thread, or on the thread releasing the last category it waits for) once it holds them
    /// all. Ignored for a withdrawn request.
    func submit(_ request: ExclusivityRequest) {
        let granted = lock.withLock { () -> Procedure? in
            guard request.status == .new else { return nil }
            request.status = .waiting
            for category in request.categories {
                let line = line(for: category)
                if !line.isEmpty { request.missingHeads += 1 }
                line.entries.append(request)
                request.join(line)
            }
            return request.missingHeads == 0 ? grant(request) : nil
        }
        granted?.exclusivityGranted()
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
            // Only a request first in its line holds anyone up; one further back is skipped
            // when it comes first.
            request.forEachJoinedLine { line in
                if !line.isEmpty && line.entries[line.head] === request { advance(line, granted: &granted) }
            }
            request.firstLine = nil
            request.otherLines = []
            return request.procedure
        }
        _ = consume dropped  // released outside the lock: it may be the last reference
        granted.run()
    }

    /// The procedures a withdrawal granted their categories, told once the lock is released:
    /// the first inline, since releasing one category usually grants one request.
    private struct Grants {
        var first: Procedure?
        var more: [Procedure] = []

        mutating func append(_ procedure: Procedure) {
            if first == nil { first = procedure } else { more.append(procedure) }
        }

        func run() {
            first?.exclusivityGranted()
            for procedure in more { procedure.exclusivityGranted() }
        }
    }

    /// True while `request` holds its categories.
    func isGranted(_ request: ExclusivityRequest) -> Bool {
        lock.withLock { request.status == .granted }
    }

    /// Withdraws `request` unless it already holds its categories.
    func leaveLine(_ request: ExclusivityRequest) {
        withdraw(request, unlessGranted: true)
    }

    /// Removes the first entry of `line` and any withdrawn ones behind it; the new first
    /// entry gets one step closer to being granted. Call under `lock`.
    private func advance(_ line: Line, granted: inout Grants) {
        line.head += 1
        while !line.isEmpty, line.entries[line.head].status == .withdrawn { line.head += 1 }
        if line.isEmpty {
            // An emptied line is dropped (a later request makes a new one), so categories
            // used once do not pile up.
            lines[line.category] = nil
            if recentLine === line { recentLine = nil }
            line.entries = []
            line.head = 0
            return
        }
        if line.head > 32 && line.head * 2 > line.entries.count {
            line.entries.removeFirst(line.head)
            line.head = 0
        }
        let next = line.entries[line.head]
        next.missingHeads -= 1
        if next.missingHeads == 0, let procedure = grant(next) { granted.append(procedure) }
    }

    /// Under `lock`: the request holds its categories; its procedure, to be told.
    private func grant(_ request: ExclusivityRequest) -> Procedure? {
        request.status = .granted
        return request.procedure
    }

    /// The procedure first in `category`'s line: it holds the category (or takes it as soon
    /// as the other categories it asked for are free). Nil when nobody holds it.
    func holder(of category: String) -> Procedure? {
        lock.withLock {
            guard let line = lines[category], !line.isEmpty else { return nil }
            return line.entries[line.head].procedure
        }
    }

    /// While `request` waits: the first of its categories that someone else is ahead of it
    /// for, and that one's procedure (see ``holder(of:)``).
    func blocker(of request: ExclusivityRequest) -> (category: String, holder: Procedure?)? {
        lock.withLock {
            guard request.status == .waiting else { return nil }
            guard let line = request.joinedLine(where: { !$0.isEmpty && $0.entries[$0.head] !== request }) else { return nil }
            return (line.category, line.entries[line.head].procedure)
        }
    }

    /// True while some procedure holds or waits for `category` (for tests: a category nobody
    /// uses any more must not be kept).
    package static func isInUse(_ category: String) -> Bool {
        shared.lock.withLock { shared.lines[category] != nil }
    }
}
