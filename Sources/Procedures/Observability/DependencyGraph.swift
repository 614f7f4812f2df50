import Foundation

/// A dependency graph in Graphviz's DOT language: one node per procedure, an arrow from each
/// dependency to its dependent, a dashed arrow from a producer to what it produced, and a
/// box (cluster) around each group's children.
///
/// ```swift
/// try DependencyGraph([download, parse, store]).write(to: URL(fileURLWithPath: "graph.dot"))
/// // dot -Tsvg graph.dot -o graph.svg
/// ```
///
/// Made from procedures before they run (``init(_:)``, which follows dependencies and group
/// children), or from what a ``ProcedureProfiler`` recorded (``init(profiles:)``, which also
/// colours failed procedures red and cancelled ones grey).
public struct DependencyGraph: Sendable {
    struct Node: Sendable {
        var id: UInt64
        var label: String
        var parent: UInt64?
        var style: String
    }

    private var nodes: [Node] = []
    /// (from, to, dashed)
    private var edges: [(UInt64, UInt64, Bool)] = []

    /// The graph of `operations`, their dependencies (transitively) and, for groups, their
    /// children. Build it before the procedures finish: a finished procedure no longer holds
    /// its dependencies.
    public init(_ operations: [Operation]) {
        var seen = [ObjectIdentifier: UInt64]()
        var plainNumbers: UInt64 = 0
        var stack: [(Operation, UInt64?)] = operations.reversed().map { ($0, nil) }
        var visited = Set<ObjectIdentifier>()
        func number(_ operation: Operation) -> UInt64 {
            if let known = seen[ObjectIdentifier(operation)] { return known }
            let id: UInt64
            if let procedure = operation as? Procedure {
                id = procedure.instrumentationReference.id
            } else {
                plainNumbers += 1
                id = UInt64.max - plainNumbers  // plain operations: numbers from the top
            }
            seen[ObjectIdentifier(operation)] = id
            return id
        }
        var parents = [UInt64: UInt64]()
        while let (operation, parent) = stack.popLast() {
            let id = number(operation)
            if let parent, parents[id] == nil { parents[id] = parent }
            guard visited.insert(ObjectIdentifier(operation)).inserted else { continue }
            let label = (operation as? Procedure)?.displayName ?? operation.name ?? String(describing: type(of: operation))
            nodes.append(Node(id: id, label: label, parent: nil, style: ""))
            for dependency in operation.dependencies {
                edges.append((number(dependency), id, false))
                stack.append((dependency, nil))
            }
            if let group = (operation as? Procedure)?.asGroup {
                for child in group.children { stack.append((child, id)) }
            }
        }
        for index in nodes.indices { nodes[index].parent = parents[nodes[index].id] }
    }

    /// The graph of the procedures a profiler recorded.
    public init(profiles: [ProcedureProfile]) {
        let known = Set(profiles.map(\.identity.procedure.id))
        for profile in profiles {
            let id = profile.identity.procedure.id
            let style = profile.failed ? "color=red" : profile.cancelled ? "color=gray, fontcolor=gray" : ""
            let parent = profile.identity.parent.map(\.id).flatMap { known.contains($0) ? $0 : nil }
            nodes.append(Node(id: id, label: profile.name, parent: parent, style: style))
            for dependency in profile.dependencies where known.contains(dependency.id) {
                edges.append((dependency.id, id, false))
            }
            if let producer = profile.identity.producer, known.contains(producer.id) {
                edges.append((producer.id, id, true))
            }
        }
    }

    /// The graph in DOT.
    public var dot: String {
        var children = [UInt64: [Node]]()
        var roots: [Node] = []
        let ids = Set(nodes.map(\.id))
        for node in nodes {
            if let parent = node.parent, ids.contains(parent) {
                children[parent, default: []].append(node)
            } else {
                roots.append(node)
            }
        }
        var lines = ["digraph procedures {", "  rankdir=LR;", "  node [shape=box, style=rounded];"]
        func emit(_ node: Node, indent: String) {
            let attributes = #"label="\#(Self.escape(node.label))"\#(node.style.isEmpty ? "" : ", " + node.style)"#
            if let members = children[node.id] {
                // A group: its own node, plus a cluster holding its children.
                lines.append("\(indent)n\(node.id) [\(attributes), shape=box, style=bold];")
                lines.append("\(indent)subgraph cluster_\(node.id) {")
                lines.append(#"\#(indent)  label="\#(Self.escape(node.label))"; style=dashed;"#)
                for member in members { emit(member, indent: indent + "  ") }
                lines.append("\(indent)}")
            } else {
                lines.append("\(indent)n\(node.id) [\(attributes)];")
            }
        }
        for node in roots { emit(node, indent: "  ") }
        for (from, to, dashed) in edges where ids.contains(from) && ids.contains(to) {
            lines.append("  n\(from) -> n\(to)\(dashed ? " [style=dashed]" : "");")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes ``dot`` to `url`.
    ///
    /// - Throws: ``TraceFileError`` naming the file and the reason if it cannot be
    ///   written.
    public func write(to url: URL) throws {
        do {
            try Data(dot.utf8).write(to: url, options: .atomic)
        } catch {
            throw TraceFileError(path: url.path, reason: (error as NSError).localizedDescription)
        }
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
