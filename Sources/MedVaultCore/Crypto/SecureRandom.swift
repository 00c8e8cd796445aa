import CSodium

/// Cryptographically secure random bytes from libsodium's `randombytes_buf`.
///
/// One call into libsodium per request (on Linux, `getrandom` reads of up to 256 bytes),
/// where `SystemRandomNumberGenerator` asks the kernel once per 8 bytes and
/// `UInt8.random(in:)` once per byte: drawing each envelope's 12-byte nonce a byte at a
/// time was a tenth of the first seal's sampled CPU (docs/benchmarks-method.md, "The
/// first seal and the push"). Where libsodium could not initialise, the system generator
/// fills the buffer instead.
package enum SecureRandom {
    /// Overwrites every byte of `buffer` with random bytes.
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        if LibSodium.ready {
            randombytes_buf(base, buffer.count)
        } else {
            var generator = SystemRandomNumberGenerator()
            for index in buffer.indices { buffer[index] = generator.next() }
        }
    }

    /// `count` random bytes; `count` must not be negative.
    package static func bytes(_ count: Int) -> [UInt8] {
        // Unreachable with a negative count: every caller passes a constant (a nonce's 12
        // bytes, 32-byte salts and ids) or an Argon2 salt length its initialiser keeps to
        // 16...64. A negative count is a programming error, never input, so it traps as
        // the code before it (`(0..<count).map`) did rather than return too few bytes.
        precondition(count >= 0, "a negative number of random bytes")
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(start: buffer.baseAddress, count: count))
            initialized = count
        }
    }
}
