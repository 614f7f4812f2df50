import Foundation

/// Every cycle among the steps of a pipeline, each reported once: the steps that wait for each
/// other in a ring (a strongly connected component of more than one step, or a step that waits
/// for itself), found by Tarjan's algorithm without recursion, and in each one a cycle named
/// in order. Linear in the steps and their dependencies, however long a chain is.
enum DependencyCycles {
    /// One component: a cycle through it, from its first step in the file back to that step,
    /// and the component's other steps, which that cycle leaves out (in the order of the file).
    struct Cycle: Equatable {
        /// Node numbers, the first repeated at the end: `[0, 2, 1, 0]`.
        var path: [Int]
        /// The component's steps not on `path`, in ascending order.
        var others: [Int]
    }

    /// The cycles of the graph whose node `n` waits for the nodes `edges[n]`, in the order of
    /// their first node.
    static func find(edges: [[Int]]) -> [Cycle] {
        let count = edges.count
        var order = [Int](repeating: -1, count: count)  // the order of discovery, -1 for unseen
        var low = [Int](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var stack: [Int] = []
        var discovered = 0
        var components: [[Int]] = []
        for root in 0..<count where order[root] == -1 {
            var path: [(node: Int, next: Int)] = []
            func discover(_ node: Int) {
                order[node] = discovered
                low[node] = discovered
                discovered += 1
                stack.append(node)
                onStack[node] = true
                path.append((node, 0))
            }
            discover(root)
            while let top = path.last {
                let node = top.node
                if top.next < edges[node].count {
                    path[path.count - 1].next += 1
                    let target = edges[node][top.next]
                    if order[target] == -1 {
                        discover(target)
                    } else if onStack[target] {
                        low[node] = min(low[node], order[target])
                    }
                    continue
                }
                path.removeLast()
                if let parent = path.last { low[parent.node] = min(low[parent.node], low[node]) }
                guard low[node] == order[node] else { continue }
                var component: [Int] = []
                while let member = stack.popLast() {
                    onStack[member] = false
                    component.append(member)
                    if member == node { break }
                }
                if component.count > 1 || edges[node].contains(node) { components.append(component) }
            }
        }
        var componentOf = [Int](repeating: -1, count: count)
        for (number, component) in components.enumerated() {
            for member in component { componentOf[member] = number }
        }
        return components.enumerated()
            .map { number, component in cycle(in: component, number: number, componentOf: componentOf, edges: edges) }
            .sorted { $0.path[0] < $1.path[0] }
    }

    /// The shortest cycle through the component's first node, found breadth-first within the
    /// component (which holds one, since every member reaches every other).
    private static func cycle(in component: [Int], number: Int, componentOf: [Int], edges: [[Int]]) -> Cycle {
        let start = component.min()!
        var parent: [Int: Int] = [start: start]
        var queue = [start]
        var head = 0
        var last = start
        search: while head < queue.count {
            let node = queue[head]
            head += 1
            for target in edges[node] where componentOf[target] == number {
                if target == start {
                    last = node
                    break search
                }
                if parent[target] == nil {
                    parent[target] = node
                    queue.append(target)
                }
            }
        }
        var path = [start]
        var node = last
        while node != start {
            path.append(node)
            node = parent[node]!
        }
        path = [start] + path.dropFirst().reversed() + [start]
        let onPath = Set(path)
        return Cycle(path: path, others: component.filter { !onPath.contains($0) }.sorted())
    }
}
