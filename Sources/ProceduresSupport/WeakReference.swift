import Foundation

/// A weak reference to an object, as a value.
package final class WeakReference<Object: AnyObject>: @unchecked Sendable {
    // @unchecked: `object` is set once, in init; a weak load is thread-safe.
    package weak var object: Object?
    package init(_ object: Object) { self.object = object }
}
