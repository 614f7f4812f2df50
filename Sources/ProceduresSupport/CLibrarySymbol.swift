#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A C library function looked up by name at run time: one that Swift's C module does not
/// import (declared only under `_GNU_SOURCE`, or variadic, which Swift cannot call, and then
/// looked up with the fixed arguments its caller passes), or that the C library may lack.
/// Nil where it is missing, or where nothing can be looked up (a fully static binary);
/// callers fall back.
package enum CLibrarySymbol {
    package static func lookUp<Function>(_ name: String) -> Function? {
        // RTLD_DEFAULT is a null handle on glibc and musl.
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
}
