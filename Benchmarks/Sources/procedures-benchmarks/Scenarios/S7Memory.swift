import Foundation
import Procedures

/// S7: heap bytes held per procedure waiting in a suspended queue.
enum S7Memory {
    static let scenario = Scenario(
        id: "S7", title: "memory per pending op", sizes: [10_000, 100_000], unit: .bytesPerItem, rounds: 3,
        statistics: [.median(.ratioAtMost(1.0))],
        ours: ours, baseline: baseline,
        note: "malloc'd bytes (glibc `mallinfo2`: `uordblks` + `hblkhd`) added by N empty `BlockProcedure`s "
            + "in a suspended `ProcedureQueue`, divided by N; baseline: N `BlockOperation`s in a suspended "
            + "`OperationQueue`. Then everything is cancelled and drained. Three rounds: the figure barely moves.")

    static func ours(_ n: Int) -> [Double] {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let before = Heap.bytesInUse()
        for _ in 0..<n { queue.addOperation(BlockProcedure(block: {})) }
        let perOperation = Double(Heap.bytesInUse() - before) / Double(n)
        queue.cancelAllOperations()
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        return [perOperation]
    }

    static func baseline(_ n: Int) -> [Double] {
        let queue = OperationQueue()
        queue.isSuspended = true
        let before = Heap.bytesInUse()
        for _ in 0..<n { queue.addOperation(BlockOperation(block: {})) }
        let perOperation = Double(Heap.bytesInUse() - before) / Double(n)
        queue.cancelAllOperations()
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        return [perOperation]
    }
}
