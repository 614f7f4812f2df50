import Foundation
import NIOCore
import NIOEmbedded
import Procedures

// F1/F2/F3 measure the futures layer, A1 the async/await bridge. Our closures run on the
// immediate context, as NIO's callbacks run inline on an `EmbeddedEventLoop`.
enum FutureScenarios {
    /// F1: `size` `map`s chained on an already succeeded future.
    static let f1Ours: Half? = { n in
        let result = Slot<Int>()
        let seconds = Stopwatch.time {
            var future = Future(value: 0)
            for _ in 0..<n { future = future.map(context: .immediate) { $0 &+ 1 } }
            future.onSuccess(context: .immediate) { result.fill($0) }
        }
        precondition(result.wait() == n, "F1 computed the wrong value")
        return [seconds]
    }
    /// F2: `size` promises, one success callback each, then all succeeded.
    static let f2Ours: Half? = { n in
        let called = Countdown(n)
        let seconds = Stopwatch.time {
            let promises = (0..<n).map { _ in Promise<Int>() }
            for promise in promises { promise.future.onSuccess(context: .immediate) { _ in called.arrive() } }
            for promise in promises { promise.succeed(1) }
        }
        called.reachedZero.wait()
        return [seconds]
    }
    /// F3: a `size`-stage chain on a pending future, completed from another thread. It has no
    /// baseline: the target is that it completes (no stack overflow) and grows linearly.
    static let f3Ours: Half? = { n in
        let result = Slot<Int>()
        let seconds = Stopwatch.time {
            let promise = Promise<Int>()
            var future = promise.future
            for _ in 0..<n { future = future.map(context: .immediate) { $0 &+ 1 } }
            future.onSuccess(context: .immediate) { result.fill($0) }
            DispatchQueue.global().async { promise.succeed(0) }
            precondition(result.wait() == n, "F3 computed the wrong value")
        }
        return [seconds]
    }
    /// A1: awaiting `size` procedures, one after another, from `async` code.
    static let a1Ours: Half? = { n in
        let queue = ProcedureQueue()
        let seconds = runBlocking {
            let start = Stopwatch.now()
            for _ in 0..<n {
                do { try await queue.run(BlockProcedure {}) } catch { preconditionFailure("A1: \(error)") }
            }
            return Stopwatch.seconds(since: start)
        }
        return [seconds]
    }

    static var all: [Scenario] {
        [
            Scenario(
                id: "F1", title: "future map", sizes: [10_000, 100_000],
                statistics: [.median(.ratioAtMost(1.5))], ours: f1Ours, baseline: nioMaps,
                note: "N chained `map`s on a succeeded future, then read the value; baseline: SwiftNIO "
                    + "`EventLoopFuture.map` on an `EmbeddedEventLoop`."),
            Scenario(
                id: "F2", title: "promises", sizes: [10_000, 100_000],
                statistics: [.median(.ratioAtMost(1.5))], ours: f2Ours, baseline: nioPromises,
                note: "N promises, one success callback each, then each succeeded; baseline: SwiftNIO "
                    + "`EventLoopPromise`s on an `EmbeddedEventLoop`."),
            Scenario(
                id: "F3", title: "deep pending chain", sizes: [10_000, 100_000],
                statistics: [.median(.growthAtMost(15))], ours: f3Ours, baseline: nil,
                note: "an N-stage chain on a pending future, completed from another thread: it must not "
                    + "overflow the stack and must grow linearly (no baseline)."),
            Scenario(
                id: "A1", title: "await procedures", sizes: [1_000, 10_000],
                statistics: [.median(.ratioAtMost(1.5))], ours: a1Ours, baseline: continuations,
                note: "await N procedures one after another from a task; baseline: await N "
                    + "`withCheckedContinuation`s, each resumed from a `DispatchQueue.async` block."),
            Scenario(
                id: "A1b", title: "await procedures vs operations", sizes: [1_000, 10_000],
                statistics: [.median(.ratioAtMost(1.3))], ours: a1Ours, baseline: operationContinuations,
                note: "await N procedures one after another from a task (as A1); baseline: await N "
                    + "`BlockOperation`s on a plain `OperationQueue`, each through a "
                    + "`withCheckedContinuation` resumed by the operation's `completionBlock`."),
        ]
    }

    // MARK: - Baselines

    static func nioMaps(_ n: Int) -> [Double] {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let result = Slot<Int>()
        let seconds = Stopwatch.time {
            var future = loop.makeSucceededFuture(0)
            for _ in 0..<n { future = future.map { $0 &+ 1 } }
            future.whenSuccess { result.fill($0) }
        }
        precondition(result.wait() == n, "F1 baseline computed the wrong value")
        return [seconds]
    }

    static func nioPromises(_ n: Int) -> [Double] {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let called = Countdown(n)
        let seconds = Stopwatch.time {
            let promises = (0..<n).map { _ in loop.makePromise(of: Int.self) }
            for promise in promises { promise.futureResult.whenSuccess { _ in called.arrive() } }
            for promise in promises { promise.succeed(1) }
        }
        called.reachedZero.wait()  // every callback ran (synchronously, on this thread)
        return [seconds]
    }

    /// A1b's baseline: what awaiting work costs when corelibs' `OperationQueue` runs it, so
    /// that the ratio shows what `queue.run` adds on top of Foundation.
    static func operationContinuations(_ n: Int) -> [Double] {
        let queue = OperationQueue()
        let seconds = runBlocking {
            let start = Stopwatch.now()
            for _ in 0..<n {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let operation = BlockOperation {}
                    operation.completionBlock = { continuation.resume() }
                    queue.addOperation(operation)
                }
            }
            return Stopwatch.seconds(since: start)
        }
        return [seconds]
    }

    static func continuations(_ n: Int) -> [Double] {
        let queue = DispatchQueue(label: "A1 baseline")
        let seconds = runBlocking {
            let start = Stopwatch.now()
            for _ in 0..<n {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    queue.async { continuation.resume() }
                }
            }
            return Stopwatch.seconds(since: start)
        }
        return [seconds]
    }
}
