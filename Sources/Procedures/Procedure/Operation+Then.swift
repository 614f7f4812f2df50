import Foundation

// ProcedureKit's `then`: sequencing written left to right, ending in `enqueue(on:)`.
//
//     fetch.then(do: parse).then { Store(into: database) }.enqueue(on: queue)
//
// Each `then` adds dependencies (so, like `addDependency(_:)`, call it before the operations
// are enqueued) and returns every operation so far, in order, so that a chain ends with the
// whole list to add to a queue.

extension Operation {
    /// Makes `next` depend on this operation, and returns both, this one first.
    ///
    /// ```swift
    /// let steps = download.then(do: unzip)     // [download, unzip]
    /// queue.addOperations(steps, waitUntilFinished: false)
    /// ```
    @discardableResult
    public func then(do next: Operation) -> [Operation] {
        next.addDependency(self)
        return [self, next]
    }

    /// Makes the operation `makeNext` returns depend on this one, and returns both, this one
    /// first; if `makeNext` returns nil, returns this operation alone. An error `makeNext`
    /// throws is rethrown, and nothing changes.
    ///
    /// ```swift
    /// let steps = download.then { needsUnzip ? Unzip() : nil }
    /// ```
    @discardableResult
    public func then(do makeNext: () throws -> Operation?) rethrows -> [Operation] {
        guard let next = try makeNext() else { return [self] }
        return then(do: next)
    }
}

extension Sequence where Element: Operation {
    /// Makes each of `next` depend on every operation of this sequence, and returns all of
    /// them: these first, then `next`, in order.
    ///
    /// ```swift
    /// let all = [resize, compress].then(do: upload)   // upload waits for both
    /// ```
    ///
    /// It adds one dependency per pair, so joining *m* operations to *n* costs *m* × *n*:
    /// to join many to many, put a ``BlockProcedure`` in between (it costs *m* + *n*).
    @discardableResult
    public func then(do next: Operation...) -> [Operation] {
        var all: [Operation] = Array(self)
        let earlier = all
        for operation in next {
            for dependency in earlier { operation.addDependency(dependency) }
        }
        all.append(contentsOf: next)
        return all
    }

    /// Makes the operation `makeNext` returns depend on every operation of this sequence, and
    /// returns all of them, that one last; if `makeNext` returns nil, returns these alone. An
    /// error `makeNext` throws is rethrown, and nothing changes.
    @discardableResult
    public func then(do makeNext: () throws -> Operation?) rethrows -> [Operation] {
        guard let next = try makeNext() else { return Array(self) }
        return then(do: next)
    }

    /// Adds these operations to `queue`, in order: `queue.addOperations(_:waitUntilFinished:
    /// false)` at the end of a `then` chain.
    ///
    /// ```swift
    /// fetch.then(do: parse).enqueue(on: queue)
    /// ```
    public func enqueue(on queue: ProcedureQueue) {
        queue.addOperations(Array(self), waitUntilFinished: false)
    }
}
