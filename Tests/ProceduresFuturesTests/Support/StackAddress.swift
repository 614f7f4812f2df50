/// The address of a local of the caller's frame (for measuring stack growth).
@inline(never) func stackAddress() -> UInt {
    var marker = 0
    return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
}
