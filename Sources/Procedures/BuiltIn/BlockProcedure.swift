import Foundation
import ProceduresSupport

/// A procedure that runs a closure.
///
/// The synchronous form finishes when the block returns, failing with whatever it throws:
///
/// ```swift
/// let save = BlockProcedure { try data.write(to: url) }
/// ```
///
/// The asynchronous form hands the block its procedure, which the block (or a completion
/// handler it starts) must finish:
///
/// ```swift
/// let fetch = BlockProcedure { procedure in
///     client.fetch { result in procedure.finish(withError: result.error) }
/// }
/// ```
///
/// Like every procedure, one cancelled before it runs never runs its block.
public final class BlockProcedure: Procedure, @unchecked Sendable {
    // @unchecked: `body` is immutable.
    private enum Body {
        case synchronous(@Sendable () throws -> Void)
        case asynchronous(@Sendable (BlockProcedure) -> Void)
    }
    private let body: Body

    /// Runs `block` and finishes when it returns, with the error it throws, if any.
    public init(block: @escaping @Sendable () throws -> Void) {
        body = .synchronous(block)
        super.init()
    }

    /// Runs `block` with this procedure; the work it starts must call `finish` on it once.
    public init(asyncBlock block: @escaping @Sendable (BlockProcedure) -> Void) {
        body = .asynchronous(block)
        super.init()
    }

    /// Runs the block.
    public override func execute() {
        assertNoLibraryLockHeld("a BlockProcedure's block")
        switch body {
        case .synchronous(let block):
            do {
                try block()
                finish()
            } catch {
                finish(withError: error)
            }
        case .asynchronous(let block):
            block(self)
        }
    }
}
