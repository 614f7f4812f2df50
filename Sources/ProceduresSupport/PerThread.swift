#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One `Value` per thread, made on first use on that thread and released when the thread ends.
///
/// The loops that keep long chains off the stack (`Trampoline`, `StreamTrampoline`,
/// `DeferredRelease`) keep their queue here: per thread, so they need no lock.
package final class PerThread<Value: AnyObject>: @unchecked Sendable {
    // @unchecked: `key` and `make` are set once in init; pthread's thread-specific storage is
    // per thread by definition and needs no further synchronisation.
    private let key: pthread_key_t
    private let make: () -> Value

    package init(_ make: @escaping () -> Value) {
        var key = pthread_key_t()
        #if canImport(Darwin)
            let status = pthread_key_create(&key) { Unmanaged<AnyObject>.fromOpaque($0).release() }
        #else
            let status = pthread_key_create(&key) { if let raw = $0 { Unmanaged<AnyObject>.fromOpaque(raw).release() } }
        #endif
        precondition(status == 0, "pthread_key_create failed")
        self.key = key
        self.make = make
    }

    /// This thread's value.
    package var current: Value {
        if let raw = pthread_getspecific(key) { return Unmanaged<Value>.fromOpaque(raw).takeUnretainedValue() }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
