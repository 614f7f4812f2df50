import Foundation

/// The ``ExclusivityManager``'s state, kept under its lock: every category's line, with the
/// requests' claims and the lines' queues it reaches through them.
///
/// Each event is a `mutating func` returning what the manager does once it has unlocked:
/// the ``Grants`` to tell, and a procedure to release.
struct ExclusivityState {
    typealias Line = ExclusivityManager.Line

    private var lines: [String: Line] = [:]
    /// The line joined last: usually one hot category is asked for again and again, and
    /// comparing its name (often the very same string) is far cheaper than hashing it.
    private var recentLine: Line?

    /// How many categories are held or waited for.
    var lineCount: Int { lines.count }

    /// `category`'s line, if somebody holds or waits for it.
    func line(named category: String) -> Line? {
        lines[category]
    }

    /// `request` asks for `categories` for `procedure` and joins their lines; ignored unless
    /// the request is new. `waits`: it joined and was not granted at once.
    mutating func submit(_ request: ExclusivityRequest, for categories: CategoryList, by procedure: Procedure) -> (waits: Bool, granted: Grants) {
        var granted = Grants()
        guard request.claim.status == .new else { return (false, granted) }
        request.claim.categories = categories
        request.claim.procedure = procedure
        request.claim.status = .waiting
        join(request, atFront: false, granted: &granted)
        return (request.claim.status == .waiting, granted)
    }

    /// `request` leaves its lines (if waiting) or releases its categories (if granted), unless
    /// `unlessGranted` and it is granted. `dropped`: its procedure, to release after unlocking
    /// (it may be the last reference).
    mutating func withdraw(_ request: ExclusivityRequest, unlessGranted: Bool) -> (dropped: Procedure?, granted: Grants) {
        var granted = Grants()
        let previous = request.claim.status
        if unlessGranted && previous == .granted { return (nil, granted) }
        request.claim.status = .withdrawn
        if previous == .waiting || previous == .granted { leaveLines(request, granted: &granted) }
        let dropped = request.claim.procedure
        request.claim.procedure = nil
        return (dropped, granted)
    }

    /// A granted `request` whose procedure must wait for a slot gives its categories back,
    /// unless it has started holding them.
    mutating func stepAside(_ request: ExclusivityRequest) -> Grants {
        var granted = Grants()
        guard request.claim.status == .granted, !request.claim.started else { return granted }
        request.claim.status = .steppedAside
        leaveLines(request, granted: &granted)
        return granted
    }

    /// A `request` that stepped aside, whose procedure now holds a slot, joins its lines again
    /// at their front. True if it holds its categories at once, or was withdrawn meanwhile.
    mutating func rejoin(_ request: ExclusivityRequest) -> Bool {
        if request.claim.status == .granted {
            // Its giving them back was decided but not done yet: it keeps them instead.
            request.claim.started = true
            return true
        }
        guard request.claim.status == .steppedAside else { return true }
        request.claim.status = .waiting
        request.claim.isReturning = true
        var granted = Grants()
        join(request, atFront: true, granted: &granted)
        // Joining can grant only the joining request: it is told by this answer instead.
        return request.claim.status == .granted
    }

    /// Puts a waiting `request` in each of its lines (at the back, or among the returning
    /// ones) and makes it first where nobody is ahead of it.
    private mutating func join(_ request: ExclusivityRequest, atFront: Bool, granted: inout Grants) {
        request.claim.missingHeads = request.claim.categories.count
        for category in request.claim.categories {
            let line = line(for: category)
            if atFront { line.queue.returning.append(request) } else { line.queue.entries.append(request) }
            request.join(line)
            // Joining at the back of a line that has a first changes nothing at its front: the
            // request just waits (and the front, which another thread works on, is not read).
            guard atFront || line.queue.first == nil else { continue }
            settle(line, granted: &granted, movedOn: false)
        }
    }

    /// Makes the request that should be first in `line` the one counted first (one that a
    /// returning request displaced counts the line as missing again), and grants it if it is
    /// first everywhere. Drops the line once it is empty. `movedOn`: the one first before
    /// left; a new first that still waits is one the line's waiters now wait for, a wait that
    /// may close a cycle (a request joining is checked by whoever submits it).
    private mutating func settle(_ line: Line, granted: inout Grants, movedOn: Bool) {
        let front = line.queue.front()
        if front != nil, front === line.queue.first { return }
        if let displaced = line.queue.first, displaced.claim.status == .waiting { displaced.claim.missingHeads += 1 }
        line.queue.first = front
        guard let front else {
            // An emptied line is dropped (a later request makes a new one), so categories
            // used once do not pile up.
            lines[line.category] = nil
            if recentLine === line { recentLine = nil }
            line.queue = ExclusivityManager.LineQueue()
            return
        }
        line.queue.compact()
        front.claim.missingHeads -= 1
        if front.claim.missingHeads == 0, front.claim.status == .waiting, let procedure = grant(front) {
            granted.append(procedure)
        } else if movedOn, front.claim.status == .waiting, let procedure = front.claim.procedure {
            granted.waitsToCheck.append(procedure)
        }
    }

    /// `category`'s line, made if nobody holds or waits for it.
    private mutating func line(for category: String) -> Line {
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

    /// Takes `request` out of its lines. Only a request first in its line holds anyone up;
    /// one further back is skipped when it comes first.
    private mutating func leaveLines(_ request: ExclusivityRequest, granted: inout Grants) {
        request.forEachJoinedLine { line in
            if line.queue.first === request {
                line.queue.removeFirst(request)
                settle(line, granted: &granted, movedOn: true)
            }
        }
        request.claim.firstLine = nil
        request.claim.otherLines = []
    }

    /// The request holds its categories; its procedure, to be told. A returning request's
    /// procedure already holds its slot, so it has started.
    private func grant(_ request: ExclusivityRequest) -> Procedure? {
        request.claim.status = .granted
        if request.claim.isReturning { request.claim.started = true }
        return request.claim.procedure
    }

    /// The procedures an event granted their categories, told once the lock is released: the
    /// first inline, since releasing one category usually grants one request. With the
    /// procedures that became first in a line but still wait, whose waits are then checked.
    struct Grants {
        var first: Procedure?
        var more: [Procedure] = []
        var waitsToCheck: [Procedure] = []

        mutating func append(_ procedure: Procedure) {
            if first == nil { first = procedure } else { more.append(procedure) }
        }

        /// Tells the granted procedures; `loopComing`: the scheduler whose drain loop on this
        /// thread takes its next step once this returns (see
        /// ``ProcedureScheduler/submitToRunningLoop(_:)``). True if one was handed to it.
        @discardableResult
        func run(loopComing: ProcedureScheduler? = nil) -> Bool {
            var handed = first?.exclusivityGranted(loopComing: loopComing) ?? false
            for procedure in more where procedure.exclusivityGranted(loopComing: loopComing) { handed = true }
            for procedure in waitsToCheck { WaitForGraph.checkCategoryOrSlotWait(of: procedure) }
            return handed
        }
    }
}
