import CSHA256

/// SHA-256 (FIPS 180-4) whose chaining value, schedule and pending block live in a scratch
/// buffer zeroed on return (the round's working words are ordinary locals: hash state, never
/// the message), for
/// hashing secrets (HMAC and HKDF over the vault key, the recovery key).
///
/// Why not swift-crypto's `SHA256`: its context is a heap object whose `deinit` means to
/// zero the BoringSSL `SHA256_CTX` but clears only `MemoryLayout.size(ofValue:
/// Pointee.self)` bytes — the size of a metatype, 8 — so the context's message buffer,
/// which holds the last bytes hashed, returns to `malloc` intact. KeyScanProbe found the
/// vault key that way (HKDF's extract step hashes it as its message) in freed heap memory
/// after `Vault.lock()`. Here the chaining value, the message schedule and the pending
/// block are in `SecureMemory.withScratch`, zeroed before this returns.
///
/// Output is FIPS 180-4 SHA-256 exactly (tests compare it with swift-crypto's and with
/// the standard's vectors). Speed matters for one caller: the audit trail MACs every entry
/// (``SecureHMACKey``), so the rounds run on the CPU's SHA instructions where it has them.
enum SecureSHA256 {
    static let digestLength = 32
    static let blockLength = 64

    // Scratch layout, in bytes.
    private static let stateOffset = 0        // 8 words: the chaining value
    private static let scheduleOffset = 32    // 64 words: the message schedule
    private static let blockOffset = 288      // 64 bytes: the pending block
    private static let scratchLength = 352

    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static let initialState: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]

    /// Writes the SHA-256 of the concatenated `parts` into `output` (32 bytes).
    static func hash(_ parts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer) {
        // Unreachable for callers outside this module: it is internal, and every caller
        // passes a 32-byte output.
        precondition(output.count == digestLength, "SecureSHA256: output must be 32 bytes (a MedVault bug)")
        SecureMemory.withScratch(byteCount: scratchLength) { scratch in
            let state = (scratch.baseAddress! + stateOffset).bindMemory(to: UInt32.self, capacity: 8)
            let schedule = (scratch.baseAddress! + scheduleOffset).bindMemory(to: UInt32.self, capacity: 64)
            let block = (scratch.baseAddress! + blockOffset).bindMemory(to: UInt8.self, capacity: blockLength)
            for index in 0..<8 { state[index] = initialState[index] }
            var pending = 0
            var totalLength: UInt64 = 0
            for part in parts {
                for byte in part {
                    block[pending] = byte
                    pending += 1
                    if pending == blockLength {
                        compress(state, schedule, UnsafeRawPointer(block))
                        pending = 0
                    }
                }
                totalLength &+= UInt64(part.count)
            }
            // Padding: 0x80, zeros, then the length in bits, big-endian, ending a block.
            block[pending] = 0x80
            pending += 1
            if pending > blockLength - 8 {
                while pending < blockLength { block[pending] = 0; pending += 1 }
                compress(state, schedule, UnsafeRawPointer(block))
                pending = 0
            }
            while pending < blockLength - 8 { block[pending] = 0; pending += 1 }
            let bitLength = totalLength &* 8
            for index in 0..<8 { block[blockLength - 8 + index] = UInt8(truncatingIfNeeded: bitLength >> (56 - 8 * index)) }
            compress(state, schedule, UnsafeRawPointer(block))
            for index in 0..<8 {
                for byte in 0..<4 { output[4 * index + byte] = UInt8(truncatingIfNeeded: state[index] >> (24 - 8 * byte)) }
            }
        }
    }

    /// Whether this CPU runs SHA-256's rounds in hardware (x86-64 SHA extensions).
    static let hasHardwareRounds = medvault_sha256_hardware_available() == 1

    /// One SHA-256 compression of the 64-byte `block` into the 8-word chaining value `state`,
    /// with `schedule` (64 words) as its message schedule. The block is read in place (no
    /// copy), so a caller can compress whole blocks straight from its message.
    ///
    /// On a CPU with the SHA extensions the rounds run there (`CSHA256`; the schedule is
    /// then unused: the words live in registers), else in ``compressPortable(_:_:_:)``.
    /// Both give the same result (tests compare them).
    static func compress(_ state: UnsafeMutablePointer<UInt32>, _ schedule: UnsafeMutablePointer<UInt32>,
                         _ block: UnsafeRawPointer) {
        if hasHardwareRounds {
            medvault_sha256_compress_hardware(state, block.assumingMemoryBound(to: UInt8.self), 1)
        } else {
            compressPortable(state, schedule, block)
        }
    }

    /// ``compress(_:_:_:)`` in portable Swift.
    static func compressPortable(_ state: UnsafeMutablePointer<UInt32>, _ schedule: UnsafeMutablePointer<UInt32>,
                                 _ block: UnsafeRawPointer) {
        for index in 0..<16 {
            schedule[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        }
        for index in 16..<64 {
            let s0 = rotate(schedule[index - 15], 7) ^ rotate(schedule[index - 15], 18) ^ (schedule[index - 15] >> 3)
            let s1 = rotate(schedule[index - 2], 17) ^ rotate(schedule[index - 2], 19) ^ (schedule[index - 2] >> 10)
            schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
        }
        var a = state[0], b = state[1], c = state[2], d = state[3]
        var e = state[4], f = state[5], g = state[6], h = state[7]
        roundConstants.withUnsafeBufferPointer { constants in
            // 64 words: the loop's bound, so no index leaves the buffer.
            let constants = constants.baseAddress!
            for index in 0..<64 {
                let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
                let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = sum0 &+ majority
                h = g
                g = f
                f = e
                e = d &+ temp1
                d = c
                c = b
                b = a
                a = temp1 &+ temp2
            }
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
