import Foundation

/// `--graph`: the pipeline in Graphviz's DOT language, drawn from the file itself so that it
/// shows what the procedure graph alone cannot:
///
/// - each step a box, an arrow from each step it needs (a dotted one, labelled, for a step
///   whose output its `when` reads without needing it);
/// - a step with a `when` has a dashed border and its conditions under its name;
/// - each exclusive category is a hexagon in a colour of its own, joined by dashed lines to
///   its steps, which are drawn in that colour (a step of several categories takes its
///   first one's, and is joined to all).
struct PipelineGraph {
    let pipeline: Pipeline

    private static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]

    /// The categories, in the order they first appear, each with its colour.
    var categories: [(name: String, color: String)] {
        var seen = Set<String>()
        var order: [String] = []
        for step in pipeline.steps {
            for category in step.exclusive where seen.insert(category).inserted { order.append(category) }
        }
        return order.enumerated().map { ($1, Self.palette[$0 % Self.palette.count]) }
    }

    var dot: String {
        let colors = Dictionary(uniqueKeysWithValues: categories.map { ($0.name, $0.color) })
        var lines = ["digraph steps {", "  rankdir=LR;", #"  node [shape=box, style=rounded, fontname="Helvetica"];"#,
                     #"  edge [fontname="Helvetica", fontsize=10];"#]
        for step in pipeline.steps {
            // Lines joined by DOT's \n, each escaped on its own (a pattern may hold a backslash).
            let label = ([step.name] + step.when.map { "when " + $0.summary }).map(Self.escape).joined(separator: "\\n")
            var attributes = [#"label="\#(label)""#]
            if !step.when.isEmpty { attributes.append(#"style="rounded,dashed""#) }
            if let category = step.exclusive.first, let color = colors[category] {
                attributes.append(#"color="\#(color)", penwidth=2"#)
            }
            lines.append("  \(Self.id(step.name)) [\(attributes.joined(separator: ", "))];")
        }
        for step in pipeline.steps {
            let needs = Set(step.needs)
            for need in step.needs { lines.append("  \(Self.id(need)) -> \(Self.id(step.name));") }
            for case .output(let source, _) in step.when where !needs.contains(source) {
                lines.append(#"  \#(Self.id(source)) -> \#(Self.id(step.name)) [style=dotted, label="output"];"#)
            }
        }
        // Each category's steps, gathered in one pass (a step naming a category twice is joined once).
        var members: [String: [String]] = [:]
        for step in pipeline.steps {
            for category in Set(step.exclusive) { members[category, default: []].append(step.name) }
        }
        for (name, color) in categories {
            let node = Self.id("exclusive:" + name)
            lines.append(#"  \#(node) [label="exclusive: \#(Self.escape(name))", shape=hexagon, style=dashed, color="\#(color)", fontcolor="\#(color)"];"#)
            for step in members[name] ?? [] {
                lines.append(#"  \#(node) -> \#(Self.id(step)) [style=dashed, arrowhead=none, color="\#(color)"];"#)
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    func write(to url: URL) throws {
        try Data(dot.utf8).write(to: url, options: .atomic)
    }

    private static func id(_ name: String) -> String { "\"" + escape(name) + "\"" }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
