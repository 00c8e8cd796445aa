import CSodium

/// SHA-256 (FIPS 180-4) by libsodium (`crypto_hash_sha256`), its state in a scratch
/// buffer zeroed on return, for hashing secrets (the recovery key's checksum).
///
/// Why not swift-crypto's `SHA256`: its context is a heap object whose `deinit` means to
/// zero the BoringSSL `SHA256_CTX` but clears only `MemoryLayout.size(ofValue:
/// Pointee.self)` bytes — the size of a metatype, 8 — so the context's message buffer,
/// which holds the last bytes hashed, returns to `malloc` intact. KeyScanProbe found the
/// vault key that way (HKDF's extract step hashes it as its message) in freed heap memory
/// after `Vault.lock()`. libsodium's state here lives in `SecureMemory.withScratch`, and
/// libsodium wipes its own temporaries.
enum SecureSHA256 {
    static let digestLength = Int(crypto_hash_sha256_BYTES)
    static let blockLength = 64

    /// Writes the SHA-256 of the concatenated `parts` into `output` (32 bytes).
    static func hash(_ parts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer) {
        // Unreachable for callers outside this module: it is internal, and every caller
        // passes a 32-byte output.
        precondition(output.count == digestLength, "SecureSHA256: output must be 32 bytes (a MedVault bug)")
        _ = SecureMemory.sodiumReady
        SecureMemory.withScratch(byteCount: MemoryLayout<crypto_hash_sha256_state>.size) { scratch in
            let state = scratch.baseAddress!.bindMemory(to: crypto_hash_sha256_state.self, capacity: 1)
            crypto_hash_sha256_init(state)
            for part in parts where part.count > 0 {
                crypto_hash_sha256_update(state, part.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                          UInt64(part.count))
            }
            crypto_hash_sha256_final(state, output.baseAddress!.assumingMemoryBound(to: UInt8.self))
            // The secret's words passed through the message schedule and vector registers.
            SecureMemory.scrubAfterSecretUse()
        }
    }
}

extension SecureBytes {
    /// The first `count` bytes (at most 32) of SHA-256(`label` ‖ these bytes), in lower-case
    /// hex: a public name derived from a secret (a dose journal's file name from its key),
    /// which reveals nothing of the secret.
    package func labelledFingerprint(_ label: String, count: Int = 8) throws -> String {
        var digest = [UInt8](repeating: 0, count: SecureSHA256.digestLength)
        try withUnsafeBytes { secret in
            Array(label.utf8).withUnsafeBytes { prefix in
                digest.withUnsafeMutableBytes { SecureSHA256.hash([prefix, secret], into: $0) }
            }
        }
        let hex = Array("0123456789abcdef")
        return String(digest.prefix(Swift.min(Swift.max(count, 1), digest.count))
            .flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]] })
    }
}
