import CSodium
import MedVaultCore

/// An HMAC-SHA256 key (RFC 2104) kept as libsodium's keyed state
/// (`crypto_auth_hmacsha256_state`): the SHA-256 states after the blocks `key ⊕ ipad` and
/// `key ⊕ opad`, computed once.
///
/// The two key blocks are the same for every message, so their compressions are done
/// once, here: a MAC of an audit-trail entry then costs the message's blocks and the
/// outer block, not two more. The output is HMAC-SHA256 exactly (tests compare it with
/// RFC 4231 and Python's `hmac`).
///
/// The keyed state lets anyone compute MACs under the key, so it is as secret as the key:
/// it lives in ``SecureBytes`` (libsodium's guarded, locked memory), is wiped by
/// ``wipe()``, and each MAC runs on a copy in a scratch buffer zeroed before
/// ``authenticate(_:into:)`` returns (`SecureMemory.withScratch`).
final class SecureHMACKey: Sendable {
    static let outputLength = Int(crypto_auth_hmacsha256_BYTES)
    private static let stateLength = MemoryLayout<crypto_auth_hmacsha256_state>.size

    private let keyed: SecureBytes

    /// Precomputes the keyed state of `key`.
    ///
    /// - Parameter key: The HMAC key (MedVault's are 32 bytes; RFC 2104 hashes a key longer
    ///   than a block first, as libsodium does).
    init(key: UnsafeRawBufferPointer) {
        _ = SecureMemory.sodiumReady
        keyed = SecureBytes(count: Self.stateLength) { state in
            // A key of zero bytes is RFC 2104's all-zero pad: libsodium reads no key byte then.
            withUnsafeBytes(of: UInt8(0)) { zeroByte in
                let keyBytes = key.count > 0 ? key : zeroByte
                crypto_auth_hmacsha256_init(
                    state.baseAddress!.bindMemory(to: crypto_auth_hmacsha256_state.self, capacity: 1),
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
            }
            // The keyed state's chaining values were computed in vector registers.
            SecureMemory.scrubAfterSecretUse()
        }
    }

    /// Zeroes the keyed state; ``authenticate(_:into:)`` then throws `MedVaultError.Code.locked`.
    func wipe() {
        keyed.wipe()
    }

    /// Whether ``wipe()`` was called.
    var isWiped: Bool { keyed.wasWiped }

    /// Writes HMAC-SHA256 of `message` under this key into `output` (32 bytes).
    ///
    /// - Throws: `MedVaultError.Code.locked` after ``wipe()``.
    func authenticate(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        // Unreachable for callers outside this module: it is internal, and every caller
        // passes a 32-byte output.
        precondition(output.count == Self.outputLength, "SecureHMACKey: output must be 32 bytes (a MedVault bug)")
        try keyed.withUnsafeBytes { keyed in
            SecureMemory.withScratch(byteCount: Self.stateLength) { scratch in
                scratch.copyMemory(from: keyed)
                let state = scratch.baseAddress!.bindMemory(to: crypto_auth_hmacsha256_state.self, capacity: 1)
                if let base = message.baseAddress, message.count > 0 {
                    crypto_auth_hmacsha256_update(state, base.assumingMemoryBound(to: UInt8.self), UInt64(message.count))
                }
                crypto_auth_hmacsha256_final(state, output.baseAddress!.assumingMemoryBound(to: UInt8.self))
                // The final block copies the outer chaining value through vector registers,
                // which a lazy binding's trampoline would save on the stack (KeyScanProbe).
                SecureMemory.scrubAfterSecretUse()
            }
        }
    }
}
