import Foundation

/// A weak reference to an object, as a value.
final class WeakReference<Object: AnyObject>: @unchecked Sendable {
    // @unchecked: `object` is set once, in init; a weak load is thread-safe.
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}
