import Foundation

/// One random round of the wait-for graph stress test, as data: queues, groups (nested one
/// level) with children, dependencies, two exclusivity categories, and which procedures are
/// added only once the gated groups are known to be executing. Made from a seed, so a round
/// can be told and made again.
///
/// Its dependencies never form a cycle with the groups' own waits (a group waits for its
/// children to finish, a child for its group to start): a deadlock can only come from slots
/// and categories, the waits the wait-for graph resolves at run time.
struct WaitGraphRoundPlan: CustomStringConvertible {
    struct Node {
        enum Kind: Equatable {
            case instant
            case delay(TimeInterval)
            /// Held until the test releases it, after every procedure was added.
            case held
            /// A held child that makes its group known to be executing.
            case gate
            /// nil: unlimited width.
            case group(width: Int?)
        }

        var name: String
        var kind: Kind
        /// The group it is a child of.
        var parent: Int?
        var children: [Int] = []
        /// The queue of a procedure that is not a child.
        var queue: Int?
        var categories: [Int] = []
        var dependencies: [Int] = []
        /// A child of a gated group added (`addChild`) only once its group is executing.
        var addedToRunningGroup = false
        var isGatedGroup = false

        var isGroup: Bool { if case .group = kind { return true } else { return false } }
    }

    /// nil: unlimited width.
    private(set) var queueWidths: [Int?] = []
    private(set) var nodes: [Node] = []

    init(using random: inout StressRandom) {
        queueWidths = (0..<Int.random(in: 1...2, using: &random)).map { _ in
            [1, 1, 2, 3, nil].randomElement(using: &random)!
        }
        var gatedOnQueue = Array(repeating: 0, count: queueWidths.count)
        for top in 0..<Int.random(in: 2...5, using: &random) {
            let queue = random.nextInt(queueWidths.count)
            guard random.nextInt(100) < 50 else {
                _ = add(Node(name: "p\(top)", kind: leafKind(&random), queue: queue))
                continue
            }
            // A gated group runs before anything else is added: at most one per slot of its queue.
            let gated = gatedOnQueue[queue] < (queueWidths[queue] ?? .max) && Bool.random(using: &random)
            if gated { gatedOnQueue[queue] += 1 }
            // A gated group's gate must start with it: its width is unlimited.
            let width: Int? = gated || random.nextInt(100) < 60 ? nil : Int.random(in: 1...2, using: &random)
            var group = Node(name: "g\(top)", kind: .group(width: width), queue: queue)
            group.isGatedGroup = gated
            let index = add(group)
            if gated { _ = addChild(Node(name: "g\(top).gate", kind: .gate), to: index) }
            for child in 0..<Int.random(in: 1...3, using: &random) {
                let name = "g\(top).c\(child)"
                if random.nextInt(100) < 25 {
                    let innerWidth: Int? = random.nextInt(100) < 60 ? nil : Int.random(in: 1...2, using: &random)
                    let inner = addChild(Node(name: name, kind: .group(width: innerWidth)), to: index)
                    for grandchild in 0..<Int.random(in: 1...2, using: &random) {
                        _ = addChild(Node(name: "\(name).c\(grandchild)", kind: leafKind(&random)), to: inner)
                    }
                } else {
                    var node = Node(name: name, kind: leafKind(&random))
                    node.addedToRunningGroup = gated && random.nextInt(100) < 35
                    _ = addChild(node, to: index)
                }
            }
        }
        assignCategories(using: &random)
        assignDependencies(using: &random)
    }

    private func leafKind(_ random: inout StressRandom) -> Node.Kind {
        switch random.nextInt(10) {
        case 0..<4: return .instant
        case 4..<8: return .delay(Double(Int.random(in: 1...3, using: &random)) / 2_000)
        default: return .held
        }
    }

    private mutating func add(_ node: Node) -> Int {
        nodes.append(node)
        return nodes.count - 1
    }

    private mutating func addChild(_ node: Node, to parent: Int) -> Int {
        var node = node
        node.parent = parent
        let index = add(node)
        nodes[parent].children.append(index)
        return index
    }

    /// Nothing outside a gated group may hold up its start (the test waits for it): only
    /// categories that no other gated group or anything inside one uses are given to it.
    private mutating func assignCategories(using random: inout StressRandom) {
        for index in nodes.indices where nodes[index].kind != .gate {
            switch random.nextInt(100) {
            case 0..<20: nodes[index].categories = [0]
            case 20..<35: nodes[index].categories = [1]
            case 35..<45: nodes[index].categories = [0, 1]
            default: break
            }
        }
        for index in nodes.indices where nodes[index].isGatedGroup {
            let kept = nodes[index].categories.filter { category in
                !nodes.indices.contains { other in
                    other != index && nodes[other].categories.contains(category)
                        && (nodes[other].isGatedGroup || gatedAncestor(of: other).map { $0 != index } ?? false)
                }
            }
            nodes[index].categories = kept
        }
    }

    private func gatedAncestor(of index: Int) -> Int? {
        var current = nodes[index].parent
        while let parent = current {
            if nodes[parent].isGatedGroup { return parent }
            current = nodes[parent].parent
        }
        return nil
    }

    private func isAncestor(_ ancestor: Int, of index: Int) -> Bool {
        var current = nodes[index].parent
        while let parent = current {
            if parent == ancestor { return true }
            current = nodes[parent].parent
        }
        return false
    }

    /// Dependencies between any two procedures but an ancestor and its descendant, none on a
    /// gated group (which must start at once), none that would close a cycle of waits.
    private mutating func assignDependencies(using random: inout StressRandom) {
        for index in nodes.indices.shuffled(using: &random) where nodes[index].kind != .gate && !nodes[index].isGatedGroup {
            let roll = random.nextInt(100)
            let count = roll < 45 ? 1 : roll < 55 ? 2 : 0
            for _ in 0..<count {
                let candidates = nodes.indices.filter { target in
                    target != index && !isAncestor(target, of: index) && !isAncestor(index, of: target)
                        && !nodes[index].dependencies.contains(target) && !closesCycle(index, dependingOn: target)
                }
                guard let target = candidates.randomElement(using: &random) else { break }
                nodes[index].dependencies.append(target)
            }
        }
    }

    /// Whether `waiter` depending on `target` would make a wait that can never end. A waits
    /// edge leads from what waits to what it waits for, over the start and finish of each
    /// procedure: its finish waits for its start, its start for its dependencies' finish and
    /// (a child) its group's start, a group's finish for its children's.
    private func closesCycle(_ waiter: Int, dependingOn target: Int) -> Bool {
        enum Event: Hashable { case start(Int), finish(Int) }
        func waits(_ event: Event) -> [Event] {
            switch event {
            case .finish(let index):
                return [.start(index)] + nodes[index].children.map { .finish($0) }
            case .start(let index):
                return nodes[index].dependencies.map { .finish($0) } + (nodes[index].parent.map { [.start($0)] } ?? [])
            }
        }
        var seen: Set<Event> = []
        var pending: [Event] = [.finish(target)]
        while let event = pending.popLast() {
            if event == .start(waiter) { return true }
            if seen.insert(event).inserted { pending += waits(event) }
        }
        return false
    }

    /// Whether the round can deadlock at all: only a group that holds a category or a slot
    /// of a queue (or group) of limited width while it waits for children that can wait
    /// themselves (for a dependency or a category) can close a cycle. A procedure that is not
    /// a group never waits while it holds a slot or a category.
    var mayDeadlock: Bool {
        nodes.indices.contains { index in
            let node = nodes[index]
            guard node.isGroup, !node.categories.isEmpty || schedulerWidth(of: index) != nil else { return false }
            return nodes.indices.contains { other in
                isAncestor(index, of: other) && (!nodes[other].categories.isEmpty || !nodes[other].dependencies.isEmpty)
            }
        }
    }

    /// The width of the queue or group `index` takes a slot of (nil: unlimited).
    private func schedulerWidth(of index: Int) -> Int? {
        if let parent = nodes[index].parent {
            if case .group(let width) = nodes[parent].kind { return width }
            return nil
        }
        return queueWidths[nodes[index].queue!]
    }

    /// Who shares slots with `index`: its queue, or its group.
    func scheduler(of index: Int) -> String {
        if let parent = nodes[index].parent { return nodes[parent].name }
        return "q\(nodes[index].queue!)"
    }

    var description: String {
        let queues = queueWidths.enumerated().map { "q\($0.offset) width \($0.element.map(String.init) ?? "unlimited")" }
        let lines = nodes.map { node -> String in
            var parts: [String] = []
            switch node.kind {
            case .instant: parts.append("instant")
            case .delay(let seconds): parts.append("delay \(seconds * 1_000) ms")
            case .held: parts.append("held")
            case .gate: parts.append("gate")
            case .group(let width): parts.append((node.isGatedGroup ? "gated " : "") + "group of width \(width.map(String.init) ?? "unlimited")")
            }
            if let queue = node.queue { parts.append("on q\(queue)") }
            if let parent = node.parent { parts.append("in \(nodes[parent].name)") }
            if node.addedToRunningGroup { parts.append("added once its group runs") }
            if !node.categories.isEmpty { parts.append("categories \(node.categories.map { $0 == 0 ? "A" : "B" })") }
            if !node.dependencies.isEmpty { parts.append("depends on \(node.dependencies.map { nodes[$0].name })") }
            return "  \(node.name): " + parts.joined(separator: ", ")
        }
        return "queues: \(queues.joined(separator: ", "))\n" + lines.joined(separator: "\n")
    }
}
