import MedVaultCore

/// An HMAC-SHA256 key (RFC 2104) kept as its two pad states: the SHA-256 chaining values
/// after the blocks `key ⊕ ipad` and `key ⊕ opad`, computed once.
///
/// HMAC hashes `key ⊕ ipad ‖ message`, then `key ⊕ opad ‖ inner digest`. The two key
/// blocks are the same for every message, so their compressions are done once, here: a
/// MAC of up to 55 bytes then costs 2 SHA-256 compressions instead of 4, and one of up to
/// 119 bytes (an audit-trail entry: the previous MAC and its columns) 3 instead of 5. The
/// output is HMAC-SHA256 exactly (tests compare it with swift-crypto's for random keys
/// and messages).
///
/// The pad states let anyone compute MACs under the key, so they are as secret as the key:
/// they live in ``SecureBytes`` (pages of their own, `mlock`-ed), are wiped by ``wipe()``,
/// and each MAC's working state (chaining value, schedule, pending block, inner digest)
/// is in a scratch buffer zeroed before ``authenticate(_:into:)`` returns
/// (`SecureMemory.withScratch`), as in ``SecureHKDF``.
final class SecureHMACKey: Sendable {
    static let outputLength = SecureSHA256.digestLength
    private static let blockLength = SecureSHA256.blockLength

    // Layout of `pads`: 8 words of the inner chaining value, then 8 of the outer.
    private static let padsLength = 64

    // Scratch layout of one MAC, in bytes.
    private static let stateOffset = 0        // 8 words: the chaining value
    private static let scheduleOffset = 32    // 64 words: the message schedule
    private static let blockOffset = 288      // 64 bytes: the pending (padded) block
    private static let scratchLength = 352

    private let pads: SecureBytes

    /// Precomputes the pad states of `key`.
    ///
    /// - Parameter key: The HMAC key, at most 64 bytes (MedVault's are 32: a longer key
    ///   would be hashed first by RFC 2104, which no caller needs).
    init(key: UnsafeRawBufferPointer) {
        // Unreachable for callers outside this module: it is internal, and its one caller
        // (`AuditKey`) passes a 32-byte HKDF output.
        precondition(key.count <= Self.blockLength, "SecureHMACKey: keys are at most 64 bytes (a MedVault bug)")
        pads = SecureBytes(count: Self.padsLength) { pads in
            SecureMemory.withScratch(byteCount: Self.scratchLength) { scratch in
                let state = Self.words(scratch, Self.stateOffset, 8)
                let schedule = Self.words(scratch, Self.scheduleOffset, 64)
                let block = scratch.baseAddress! + Self.blockOffset
                let output = pads.baseAddress!.bindMemory(to: UInt32.self, capacity: 16)
                for (half, pad) in [(0, UInt8(0x36)), (8, UInt8(0x5C))] {
                    for index in 0..<Self.blockLength {
                        block.storeBytes(of: (index < key.count ? key[index] : 0) ^ pad, toByteOffset: index, as: UInt8.self)
                    }
                    for index in 0..<8 { state[index] = SecureSHA256.initialState[index] }
                    SecureSHA256.compress(state, schedule, UnsafeRawPointer(block))
                    for index in 0..<8 { output[half + index] = state[index] }
                }
            }
        }
    }

    /// Zeroes the pad states; ``authenticate(_:into:)`` then throws `MedVaultError.Code.locked`.
    func wipe() {
        pads.wipe()
    }

    /// Whether ``wipe()`` was called.
    var isWiped: Bool { pads.wasWiped }

    /// Writes HMAC-SHA256 of `message` under this key into `output` (32 bytes).
    ///
    /// - Throws: `MedVaultError.Code.locked` after ``wipe()``.
    func authenticate(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        // Unreachable for callers outside this module: it is internal, and every caller
        // passes a 32-byte output.
        precondition(output.count == Self.outputLength, "SecureHMACKey: output must be 32 bytes (a MedVault bug)")
        try pads.withUnsafeBytes { pads in
            SecureMemory.withScratch(byteCount: Self.scratchLength) { scratch in
                let padWords = pads.baseAddress!.assumingMemoryBound(to: UInt32.self)
                let state = Self.words(scratch, Self.stateOffset, 8)
                let schedule = Self.words(scratch, Self.scheduleOffset, 64)
                let block = scratch.baseAddress! + Self.blockOffset

                // Inner hash: (key ⊕ ipad) already compressed; the message follows it.
                for index in 0..<8 { state[index] = padWords[index] }
                var offset = 0
                if let base = message.baseAddress {
                    while message.count - offset >= Self.blockLength {
                        SecureSHA256.compress(state, schedule, base + offset)
                        offset += Self.blockLength
                    }
                }
                let tail = message.count - offset
                if tail > 0 { block.copyMemory(from: message.baseAddress! + offset, byteCount: tail) }
                Self.pad(block, used: tail, totalLength: Self.blockLength + message.count, state, schedule)

                // Outer hash: (key ⊕ opad) already compressed; the inner digest (32 bytes) follows.
                for index in 0..<8 {
                    block.storeBytes(of: state[index].bigEndian, toByteOffset: 4 * index, as: UInt32.self)
                    state[index] = padWords[8 + index]
                }
                Self.pad(block, used: Self.outputLength, totalLength: Self.blockLength + Self.outputLength,
                         state, schedule)
                for index in 0..<8 {
                    output.storeBytes(of: state[index].bigEndian, toByteOffset: 4 * index, as: UInt32.self)
                }
            }
        }
    }

    /// Pads the final block (its first `used` bytes hold the message's tail) for a message
    /// of `totalLength` bytes and compresses it, or the two blocks it needs.
    private static func pad(_ block: UnsafeMutableRawPointer, used: Int, totalLength: Int,
                            _ state: UnsafeMutablePointer<UInt32>, _ schedule: UnsafeMutablePointer<UInt32>) {
        block.storeBytes(of: 0x80, toByteOffset: used, as: UInt8.self)
        var pending = used + 1
        if pending > blockLength - 8 {
            (block + pending).initializeMemory(as: UInt8.self, repeating: 0, count: blockLength - pending)
            SecureSHA256.compress(state, schedule, UnsafeRawPointer(block))
            pending = 0
        }
        (block + pending).initializeMemory(as: UInt8.self, repeating: 0, count: blockLength - 8 - pending)
        block.storeBytes(of: (UInt64(totalLength) &* 8).bigEndian, toByteOffset: blockLength - 8, as: UInt64.self)
        SecureSHA256.compress(state, schedule, UnsafeRawPointer(block))
    }

    private static func words(_ scratch: UnsafeMutableRawBufferPointer, _ offset: Int, _ count: Int)
        -> UnsafeMutablePointer<UInt32> {
        (scratch.baseAddress! + offset).bindMemory(to: UInt32.self, capacity: count)
    }
}
