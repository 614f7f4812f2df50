import Foundation
import ProceduresSupport
import Synchronization

/// One wait of the wait-for graph: `waiter` cannot go on until `target` finishes (or lets go
/// of what it holds).
struct WaitEdge: CustomStringConvertible {
    enum Kind: Equatable {
        /// An unfinished dependency.
        case dependency
        /// A dependency of one of the waiter's conditions.
        case conditionDependency
        /// A category the target holds, or takes next (first in its line).
        case category(String)
        /// A slot of the waiter's queue or group, which the target holds while it waits itself.
        case slot
        /// The waiter is a running group; the target is one of its unfinished children.
        case child
        /// The waiter is a child of the target, a group that has not started.
        case groupStart
    }

    let waiter: Procedure
    let kind: Kind
    let target: Procedure

    var description: String {
        let waiter = waiter.displayName, target = target.displayName
        switch kind {
        case .dependency: return "\(waiter) waits for its dependency \(target)"
        case .conditionDependency: return "\(waiter) waits for \(target), a dependency of its condition"
        case .category(let category): return "\(waiter) waits for category \"\(category)\" held by \(target)"
        case .slot: return "\(waiter) waits for a slot held by \(target)"
        case .child: return "\(waiter) waits for its child \(target)"
        case .groupStart: return "\(waiter) waits for its group \(target) to start"
        }
    }
}

/// The waits between procedures as one graph, read on demand from what each procedure, the
/// exclusivity lines and the schedulers already track: a wait that closes a cycle can never
/// end, so it is reported as ``ProcedureMisuse/Kind/deadlock`` naming the whole cycle and
/// ended by cancelling one of its procedures with ``ProcedureError/deadlock(reason:)``.
///
/// A search runs only when a wait begins that could close a cycle: a category the procedure
/// cannot take at once (or a category's line moving on to one that still waits), a slot held
/// by a procedure that itself waits (a running group, say), the dependencies of its
/// conditions, a group starting while one of its children waits for something outside it, and
/// the dependencies of a procedure that something already waits for. Anything else (a plain procedure on a queue with room, a queue whose
/// running procedures wait for nothing) pays nothing.
enum WaitForGraph {
    /// Serialises finding a cycle with choosing the procedure whose cancel ends it, and holds
    /// those chosen whose cancel has not yet taken effect: a search counts them as going on, so
    /// two threads closing the same cycle end it once, and a waiter stuck in a second cycle
    /// behind one being ended is told of the second. Nothing under it runs user code (names are
    /// built, and the cancel made, after it is let go).
    private static let ending = LockedValue(Set<ObjectIdentifier>())

    /// How many groups exist: with none, and no category in use, every cycle is one of
    /// dependencies alone, which `checkForCycle` finds; a dependency wait is then not searched.
    static let liveGroups = Atomic<Int>(0)

    /// True if a wait for a category or a slot can close a cycle: only while a group exists.
    /// Without one, what holds a category or a slot and waits is a procedure taking its
    /// categories back, and those are granted in one order across every line (returning ones
    /// by when they rejoined, ahead of the rest by when they asked): the first is granted, so
    /// categories and slots alone never close a cycle.
    static var categoryOrSlotWaitMayCycle: Bool {
        liveGroups.load(ordering: .relaxed) > 0
    }

    /// True if a wait other than a dependency can exist (a group, a category in use).
    static var mayHaveWaitsBeyondDependencies: Bool {
        liveGroups.load(ordering: .relaxed) > 0 || ExclusivityManager.shared.linesInUse.load(ordering: .relaxed) > 0
    }

    /// How many procedures a search begun by a dependency wait reads at most: such waits
    /// are many (a chain behind a pending barrier reaches every procedure before it), and a
    /// cycle closed by one through a group or category is short in practice.
    static let dependencySearchLimit = 1_000

    /// What `procedure` waits for now. `unclaimed`: count the dependencies of a procedure not
    /// yet added too (for a condition's dependencies, which the gate adds itself).
    static func edges(of procedure: Procedure, unclaimed: Bool = false) -> [WaitEdge] {
        enum Seen {
            case none
            case waiting(dependencies: [Procedure], gate: ConditionGate?, group: GroupProcedure?)
            case ready(any ProcedureOwner, group: GroupProcedure?, request: ExclusivityRequest?)
            case running(takingBack: ConditionGate?)
        }
        let seen = procedure.lock.withLock { () -> Seen in
            let group = procedure.state.owner?.ownerRole.group
            switch procedure.state.phase {
            case .initial:
                guard unclaimed else { return .none }
                return .waiting(dependencies: procedure.state.dependencies, gate: procedure.state.gate, group: nil)
            case .waiting:
                if procedure.state.cancellation != .none { return .none }
                let checking = procedure.state.lifecycle.isCheckingGate
                return .waiting(
                    dependencies: checking ? [] : procedure.state.dependencies,
                    gate: checking || unclaimed ? procedure.state.gate : nil, group: group)
            case .ready:
                return procedure.state.owner.map { .ready($0, group: group, request: procedure.state.gate?.request) } ?? .none
            case .started:
                return .running(takingBack: procedure.state.gate.flatMap { $0.isTakingCategoriesBack ? $0 : nil })
            case .executing:
                return .running(takingBack: nil)
            case .finishing, .finished:
                return .none
            }
        }
        var edges: [WaitEdge] = []
        switch seen {
        case .none:
            return []
        case .waiting(let dependencies, let gate, let group):
            for dependency in dependencies where !dependency.isFinished {
                edges.append(WaitEdge(waiter: procedure, kind: .dependency, target: dependency))
            }
            if let gate { edges += gateEdges(of: procedure, gate: gate, unclaimed: unclaimed) }
            if let group, !group.hasStartedChildren { edges.append(WaitEdge(waiter: procedure, kind: .groupStart, target: group)) }
        case .ready(let owner, let group, let request):
            // Granted a moment ago, it is about to start or to give its categories back.
            if let request, ExclusivityManager.shared.isInTransit(request) { return [] }
            if let group, !group.hasStartedChildren { return [WaitEdge(waiter: procedure, kind: .groupStart, target: group)] }
            // A slot wait ends when any holder finishes: it is stuck only while every slot is
            // taken by a holder that waits itself (a suspension ends when the user resumes).
            let scheduler = owner.scheduler
            guard scheduler.hasWaitingHolders else { return [] }
            let (suspended, fullWidth) = scheduler.readyHoldUp
            guard !suspended, fullWidth != nil else { return [] }
            let holders = owner.ownedProcedures.filter { $0 !== procedure && $0.waitsWhileHoldingASlot }
            guard scheduler.counts.running <= holders.count else { return [] }
            for holder in holders {
                edges.append(WaitEdge(waiter: procedure, kind: .slot, target: holder))
            }
        case .running(let takingBack):
            if let takingBack {
                for blocker in ExclusivityManager.shared.blockers(of: takingBack) {
                    edges.append(WaitEdge(waiter: procedure, kind: .category(blocker.category), target: blocker.holder))
                }
            }
            for child in procedure.waitedForWhileRunning where !child.isFinished {
                edges.append(WaitEdge(waiter: procedure, kind: .child, target: child))
            }
        }
        return edges
    }

    private static func gateEdges(of procedure: Procedure, gate: ConditionGate, unclaimed: Bool) -> [WaitEdge] {
        if unclaimed, procedure.lock.withLock({ !procedure.state.lifecycle.isCheckingGate }) {
            // Its conditions' dependencies, which it will wait for once its own have finished.
            var dependencies: [Procedure] = [], produced: [Procedure] = []
            Condition.collectDependencies(of: procedure.lock.withLock { gate.conditions }, into: &dependencies, produced: &produced)
            return dependencies.filter { !$0.isFinished }.map { WaitEdge(waiter: procedure, kind: .conditionDependency, target: $0) }
        }
        let (waiting, request) = gate.currentWait(of: procedure)
        switch waiting {
        case .dependencies(let dependencies):
            return dependencies.filter { !$0.isFinished }.map { WaitEdge(waiter: procedure, kind: .conditionDependency, target: $0) }
        case .exclusivity:
            guard let request else { return [] }
            return ExclusivityManager.shared.blockers(of: request).map {
                WaitEdge(waiter: procedure, kind: .category($0.category), target: $0.holder)
            }
        case .nothing, .queueResume, .condition:
            return []
        }
    }

    /// A cycle of procedures that can never go on, through the waiter of `waits` (all of
    /// one procedure) if there is one: the waits reachable from it are read once (`waitsOf`
    /// reads a procedure's), then every procedure that can go on is marked so, from those that
    /// wait for nothing (a procedure waiting for dependencies, a category, children or its
    /// group goes on once all it waits for do; one waiting for a slot once any holder does).
    /// `goingOn` (victims of cycles being ended) are marked from the start. If the waiter is
    /// left unmarked, the shortest cycle back to it through unmarked procedures is returned,
    /// or, if none comes back to it, the first cycle met following their waits (one the waiter
    /// is stuck behind). O(procedures + waits).
    static func cycle(
        closedBy waits: [WaitEdge], goingOn: Set<ObjectIdentifier> = [], limit: Int = .max,
        waitsOf: (Procedure) -> [WaitEdge]
    ) -> [WaitEdge]? {
        guard let start = waits.first?.waiter else { return nil }
        // Reachable waits, by procedure.
        var index: [ObjectIdentifier: Int] = [ObjectIdentifier(start): 0]
        var nodes: [(procedure: Procedure, waits: [WaitEdge])] = [(start, waits)]
        var next = 0
        while next < nodes.count {
            if nodes.count > limit { return nil }
            for wait in nodes[next].waits where index[ObjectIdentifier(wait.target)] == nil {
                index[ObjectIdentifier(wait.target)] = nodes.count
                nodes.append((wait.target, waitsOf(wait.target)))
            }
            next += 1
        }
        // How many of its waits must still end before each can go on, and who waits for whom.
        var needed = nodes.map { node -> Int in
            if node.waits.isEmpty || goingOn.contains(ObjectIdentifier(node.procedure)) { return 0 }
            return node.waits.first?.kind == .slot ? 1 : node.waits.count
        }
        var waitersOf = [[Int]](repeating: [], count: nodes.count)
        for (waiter, node) in nodes.enumerated() {
            for wait in node.waits { waitersOf[index[ObjectIdentifier(wait.target)]!].append(waiter) }
        }
        var free = needed.indices.filter { needed[$0] == 0 }
        var goesOn = [Bool](repeating: false, count: nodes.count)
        while let node = free.popLast() {
            guard !goesOn[node] else { continue }
            goesOn[node] = true
            for waiter in waitersOf[node] where !goesOn[waiter] {
                needed[waiter] -= 1
                if needed[waiter] <= 0 { free.append(waiter) }
            }
        }
        guard !goesOn[0] else { return nil }
        func stuckWaits(of node: Int) -> [(wait: WaitEdge, target: Int)] {
            nodes[node].waits.map { ($0, index[ObjectIdentifier($0.target)]!) }.filter { !goesOn[$0.target] }
        }
        // Breadth first through stuck procedures, for the shortest way back to the waiter: a
        // cycle elsewhere that it is stuck behind may be ending already while this one is not.
        var reachedBy = [(wait: WaitEdge, from: Int)?](repeating: nil, count: nodes.count)
        var line = [0], head = 0
        while head < line.count {
            let node = line[head]
            head += 1
            for (wait, target) in stuckWaits(of: node) {
                if target == 0 {
                    var path = [wait], current = node
                    while current != 0, let step = reachedBy[current] {
                        path.append(step.wait)
                        current = step.from
                    }
                    return path.reversed()
                }
                if reachedBy[target] == nil {
                    reachedBy[target] = (wait, node)
                    line.append(target)
                }
            }
        }
        // None comes back to it: follow waits through stuck procedures until one comes back.
        var path: [WaitEdge] = []
        var onPath: [Int: Int] = [0: 0]
        var current = 0
        while true {
            let (wait, target) = stuckWaits(of: current)[0]
            path.append(wait)
            if let at = onPath[target] { return Array(path[at...]) }
            onPath[target] = path.count
            current = target
        }
    }

    /// True while every wait of `cycle` still holds (read again: the first reading was not
    /// one snapshot, and a wait that ended meanwhile means no deadlock). A prospective first
    /// wait (about to begin) is taken as given.
    private static func stillHolds(_ cycle: [WaitEdge], unclaimed: Bool, prospective: Bool) -> Bool {
        cycle.dropFirst(prospective ? 1 : 0).allSatisfy { wait in
            edges(of: wait.waiter, unclaimed: unclaimed).contains { $0.target === wait.target && $0.kind == wait.kind }
        }
    }

    /// A cycle `waits` close whose every wait still holds when read again (a prospective first
    /// wait, about to begin, taken as given), with the wait whose waiter's cancel is to end it
    /// (the first, if its waiter is `preferred`), found and recorded as ending under `ending`'s lock.
    private static func confirmedCycle(
        closedBy waits: [WaitEdge], unclaimed: Bool = false, prospective: Bool = false, limit: Int,
        preferring preferred: Procedure? = nil
    ) -> (cycle: [WaitEdge], victim: WaitEdge)? {
        ending.withLock { ending in
            // One found while a wait of it ended meanwhile is no deadlock, though the waiter may
            // be stuck in another cycle too: the graph is read again, a bounded number of times.
            for _ in 0..<3 {
                let found = cycle(closedBy: waits, goingOn: ending, limit: limit) { edges(of: $0, unclaimed: unclaimed) }
                guard let found else { return nil }
                let unbegun = prospective && found[0].waiter === waits[0].waiter
                guard stillHolds(found, unclaimed: unclaimed, prospective: unbegun) else { continue }
                let victim = found[0].waiter === preferred ? found[0] : victim(of: found)
                ending.insert(ObjectIdentifier(victim.waiter))
                return (found, victim)
            }
            return nil
        }
    }

    /// The wait whose waiter's cancel ends `cycle` at once: one that waits for a category or a
    /// condition's dependency (it leaves the wait), else for a dependency, else a group waiting
    /// for its children (which cancels them). Never one that waits for a slot or for its group
    /// to start: cancelled, it would still wait for the slot, or to run in the group.
    private static func victim(of cycle: [WaitEdge]) -> WaitEdge {
        let order: [(WaitEdge.Kind) -> Bool] = [
            { if case .category = $0 { return true } else { return false } },
            { $0 == .conditionDependency },
            { $0 == .dependency },
            { $0 == .child },
        ]
        return order.lazy.compactMap { rule in cycle.first { rule($0.kind) } }.first ?? cycle[0]
    }

    /// Reads what `waits` lead to, holding no lock: true if some of them may lead further
    /// (the usual category wait is for a procedure that is simply running).
    private static func mayLeadFurther(_ waits: [WaitEdge], unclaimed: Bool) -> Bool {
        waits.contains { !edges(of: $0.target, unclaimed: unclaimed).isEmpty }
    }

    /// "A waits for …; B waits for …": the cycle in order.
    static func describe(_ cycle: [WaitEdge]) -> String {
        cycle.map(\.description).joined(separator: "; ")
    }

    /// Looks for a cycle that `waiter`'s current waits close, and ends it if there is one.
    /// True if it found one.
    @discardableResult
    static func checkWaits(of waiter: Procedure, limit: Int = .max) -> Bool {
        let waits = edges(of: waiter)
        guard !waits.isEmpty else { return false }
        return check(waits, limit: limit)
    }

    /// As ``checkWaits(of:limit:)``, for a wait for a category or a slot that began: only
    /// while a group exists can one close a cycle (see ``categoryOrSlotWaitMayCycle``).
    static func checkCategoryOrSlotWait(of waiter: Procedure) {
        guard categoryOrSlotWaitMayCycle else { return }
        checkWaits(of: waiter)
    }

    /// Looks for a cycle that `waits` (of one procedure) close, and ends it if there is one.
    /// `prospective`: the waits are about to begin (a condition's dependencies); a cycle
    /// through their waiter then ends by cancelling it, and true tells the caller not to
    /// begin them. Otherwise true if a cycle was found (and ended).
    @discardableResult
    static func check(_ waits: [WaitEdge], unclaimed: Bool = false, prospective: Bool = false, limit: Int = .max) -> Bool {
        guard let start = waits.first?.waiter, mayLeadFurther(waits, unclaimed: unclaimed),
            let (found, victim) = confirmedCycle(
                closedBy: waits, unclaimed: unclaimed, prospective: prospective, limit: limit,
                preferring: prospective ? start : nil)
        else { return false }
        let throughStart = found[0].waiter === start
        end(found, victim: victim)
        if prospective { return throughStart }
        // Its procedures may be stuck in another cycle too (the victim's cancel has taken
        // effect by now): look again from each, a bounded number of times. So may the waiter,
        // when the cycle found lay beyond it (a slot held by a group waiting for two children
        // each stuck in a cycle of its own): it is looked at last.
        var pending = found.map(\.waiter)
        if !throughStart { pending.insert(start, at: 0) }
        var ended = 1
        while let waiter = pending.popLast(), ended < 16 {
            guard waiter.mayWait else { continue }
            let again = edges(of: waiter)
            guard !again.isEmpty, let (cycle, victim) = confirmedCycle(closedBy: again, limit: limit) else { continue }
            end(cycle, victim: victim)
            ended += 1
            pending += cycle.map(\.waiter)
        }
        return true
    }

    /// Reports the cycle and cancels the victim's waiter; once the cancel has taken effect
    /// (the waiter has left its wait), searches read its waits again.
    private static func end(_ cycle: [WaitEdge], victim: WaitEdge) {
        let reason = describe(cycle)
        ProcedureMisuse.report(
            .deadlock,
            "\(reason): none of them can ever go on. \(victim.waiter.displayName) was cancelled so that they finish. Remove one of these waits.",
            subject: victim.waiter)
        victim.waiter.cancel(withError: ProcedureError.deadlock(reason: reason))
        _ = ending.withLock { $0.remove(ObjectIdentifier(victim.waiter)) }
    }
}
