import Foundation
import Synchronization

/// A small number per thread (1, 2, 3… in order of first use), for trace files and logs.
package enum ThreadNumber {
    private final class Box { let value: UInt64; init(_ value: UInt64) { self.value = value } }
    private static let counter = Atomic<UInt64>(1)
    private static let perThread = PerThread { Box(counter.wrappingAdd(1, ordering: .relaxed).oldValue) }

    package static var current: UInt64 { perThread.current.value }
}
