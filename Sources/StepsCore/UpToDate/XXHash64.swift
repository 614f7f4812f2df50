/// XXH64 (Yann Collet's xxHash, 64-bit), streaming: the content hash of the up-to-date check.
///
/// Why this hash: the check must notice that a file changed, not resist an attacker, and it
/// must cost less than reading the file (a 10,000-file tree is read in tens of milliseconds).
/// XXH64 takes 32 bytes per round in four independent lanes, several GB/s in plain Swift,
/// where byte-at-a-time FNV-1a manages well under 1 GB/s; SHA-256 is not in corelibs
/// Foundation and the package takes no dependencies. 64 bits make an accidental collision
/// between two versions of a file a 1-in-2^64 event.
struct XXHash64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private let seed: UInt64
    private var lanes: (UInt64, UInt64, UInt64, UInt64)
    /// Bytes not yet folded into the lanes (fewer than 32).
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    init(seed: UInt64 = 0) {
        self.seed = seed
        lanes = (seed &+ Self.prime1 &+ Self.prime2, seed &+ Self.prime2, seed, seed &- Self.prime1)
        pending.reserveCapacity(32)
    }

    /// The hash of `bytes` in one call.
    static func hash(_ bytes: some Sequence<UInt8>, seed: UInt64 = 0) -> UInt64 {
        var hasher = XXHash64(seed: seed)
        hasher.update(Array(bytes))
        return hasher.finish()
    }

    /// The hash of a string's UTF-8 bytes.
    static func hash(_ text: String, seed: UInt64 = 0) -> UInt64 {
        var hasher = XXHash64(seed: seed)
        hasher.update(text)
        return hasher.finish()
    }

    mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds a number's eight bytes (little-endian), for fields of a fingerprint.
    mutating func update(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { update($0) }
    }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        ((accumulator &+ input &* prime2).rotatedLeft(31)) &* prime1
    }

    @inline(__always)
    private static func merge(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
        (accumulator ^ round(0, lane)) &* prime1 &+ prime4
    }

    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let taken = min(32 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<taken])
            offset = taken
            guard pending.count == 32 else { return }
            pending.withUnsafeBytes { stripe(at: 0, of: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - offset >= 32 {
            stripe(at: offset, of: bytes)
            offset += 32
        }
        if offset < bytes.count { pending.append(contentsOf: bytes[offset...]) }
    }

    @inline(__always)
    private mutating func stripe(at offset: Int, of bytes: UnsafeRawBufferPointer) {
        lanes.0 = Self.round(lanes.0, Self.word(bytes, offset))
        lanes.1 = Self.round(lanes.1, Self.word(bytes, offset + 8))
        lanes.2 = Self.round(lanes.2, Self.word(bytes, offset + 16))
        lanes.3 = Self.round(lanes.3, Self.word(bytes, offset + 24))
    }

    /// The hash of everything added so far (the hasher can go on being updated).
    func finish() -> UInt64 {
        var hash: UInt64
        if length >= 32 {
            hash = lanes.0.rotatedLeft(1) &+ lanes.1.rotatedLeft(7) &+ lanes.2.rotatedLeft(12) &+ lanes.3.rotatedLeft(18)
            hash = Self.merge(hash, lanes.0)
            hash = Self.merge(hash, lanes.1)
            hash = Self.merge(hash, lanes.2)
            hash = Self.merge(hash, lanes.3)
        } else {
            hash = seed &+ Self.prime5
        }
        hash &+= length
        pending.withUnsafeBytes { tail in
            var offset = 0
            while tail.count - offset >= 8 {
                hash ^= Self.round(0, Self.word(tail, offset))
                hash = hash.rotatedLeft(27) &* Self.prime1 &+ Self.prime4
                offset += 8
            }
            if tail.count - offset >= 4 {
                let half = UInt64(UInt32(littleEndian: tail.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                hash ^= half &* Self.prime1
                hash = hash.rotatedLeft(23) &* Self.prime2 &+ Self.prime3
                offset += 4
            }
            while offset < tail.count {
                hash ^= UInt64(tail[offset]) &* Self.prime5
                hash = hash.rotatedLeft(11) &* Self.prime1
                offset += 1
            }
        }
        hash ^= hash >> 33
        hash &*= Self.prime2
        hash ^= hash >> 29
        hash &*= Self.prime3
        hash ^= hash >> 32
        return hash
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }

    /// Sixteen lower-case hexadecimal digits, as the state file writes hashes.
    var hex16: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
