import Foundation
import Procedures

extension PipelinePlan {
    /// The steps and what each waits for, as the DOT graph `--graph` writes: one node per step,
    /// an arrow from each step to the steps that need it. Drawn from stand-in procedures, so
    /// that `--dry-run` builds no run, and a real run writes the same graph.
    var dependencyGraph: DependencyGraph {
        let nodes = steps.map { step -> BlockProcedure in
            let node = BlockProcedure {}
            node.name = step.name
            return node
        }
        let index = Dictionary(uniqueKeysWithValues: steps.enumerated().map { ($1.name, $0) })
        for (position, step) in steps.enumerated() {
            for name in step.dependencies { nodes[position].addDependency(nodes[index[name]!]) }
        }
        return DependencyGraph(nodes)
    }
}
