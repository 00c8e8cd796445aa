import CSodium

/// Cryptographically secure random bytes, one system call per request.
///
/// libsodium's `randombytes_buf` (after `sodium_init`) asks the kernel once per call
/// (`getrandom` on Linux), where `SystemRandomNumberGenerator` asks once per 8 bytes and
/// `UInt8.random(in:)` once per byte: drawing each envelope's 12-byte nonce a byte at a
/// time was a tenth of the first seal's time (docs/sync-server-benchmarks.md). Where
/// libsodium could not initialise, the system generator fills the buffer instead.
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

    /// `count` random bytes.
    package static func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: max(count, 0)) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = buffer.count
        }
    }
}
