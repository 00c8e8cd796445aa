import Crypto

/// HMAC-SHA256 (RFC 2104) and HKDF-SHA256 (RFC 5869) whose keyed state is wiped on return.
///
/// Why not swift-crypto's `HMAC` and `HKDF`: `HMAC.init(key:)` pads a key shorter than a
/// block into an ordinary `[UInt8]` that is freed without being cleared. HKDF-Expand keys
/// HMAC with the pseudo-random key, so every derivation left the PRK (from which the
/// recovery slot's KEK, or the keyring MAC key, follows) in freed heap memory. Here the
/// padded key blocks, the PRK and the hash state itself (``SecureSHA256``, not
/// swift-crypto's `SHA256`, whose released context keeps the message) live in scratch
/// buffers zeroed before return (`SecureMemory.withScratch`).
///
/// The results are RFC 2104 / RFC 5869 exactly, the same bytes as swift-crypto's (tests
/// compare them), so keyrings written before this change open unchanged.
enum SecureHKDF {
    static let outputLength = 32
    private static let blockLength = 64

    /// HMAC-SHA256 of the concatenated `parts` under `key`, written into `output` (32 bytes).
    static func hmac(key: UnsafeRawBufferPointer, _ parts: [UnsafeRawBufferPointer],
                     into output: UnsafeMutableRawBufferPointer) {
        // Unreachable for callers outside this module: it is internal, and its callers
        // (`derive`, `KeyWrap.headerMAC`, `SyncKeys.mac`) pass buffers of exactly `outputLength`.
        precondition(output.count == outputLength, "SecureHKDF: output must be 32 bytes (a MedVault bug)")
        if key.count > blockLength {
            // RFC 2104: a long key is hashed first. MedVault's long keys are salts, not secrets.
            SecureMemory.withScratch(byteCount: outputLength) { digest in
                SecureSHA256.hash([key], into: digest)
                hmac(key: UnsafeRawBufferPointer(digest), parts, into: output)
            }
            return
        }
        SecureMemory.withScratch(byteCount: blockLength + outputLength) { scratch in
            let block = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<blockLength])
            let innerDigest = UnsafeMutableRawBufferPointer(rebasing: scratch[blockLength...])
            for index in 0..<blockLength { block[index] = (index < key.count ? key[index] : 0) ^ 0x36 }
            SecureSHA256.hash([UnsafeRawBufferPointer(block)] + parts, into: innerDigest)
            for index in 0..<blockLength { block[index] = (index < key.count ? key[index] : 0) ^ 0x5C }
            SecureSHA256.hash([UnsafeRawBufferPointer(block), UnsafeRawBufferPointer(innerDigest)], into: output)
        }
    }

    /// HKDF-SHA256 with a 32-byte output (one expand block), into a swift-crypto key
    /// (whose storage swift-crypto zeroes on release).
    static func deriveKey(inputKeyMaterial: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8]) -> SymmetricKey {
        SecureMemory.withScratch(byteCount: outputLength) { okm in
            derive(inputKeyMaterial: inputKeyMaterial, salt: salt, info: info, into: okm)
            return SymmetricKey(data: UnsafeRawBufferPointer(okm))
        }
    }

    /// HKDF-SHA256 with a 32-byte output (one expand block), into secure pages: for keys
    /// that must be wiped on `Vault.lock()` (a swift-crypto key is only cleared when
    /// released, which the holder does not control).
    static func deriveSecureKey(inputKeyMaterial: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8]) -> SecureBytes {
        SecureBytes(count: outputLength) { okm in
            derive(inputKeyMaterial: inputKeyMaterial, salt: salt, info: info, into: okm)
        }
    }

    /// RFC 5869 extract, then the first expand block, into `okm` (32 bytes).
    private static func derive(inputKeyMaterial: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8],
                               into okm: UnsafeMutableRawBufferPointer) {
        SecureMemory.withScratch(byteCount: outputLength) { prkBytes in
            salt.withUnsafeBytes { saltBytes in hmac(key: saltBytes, [inputKeyMaterial], into: prkBytes) }
            var counter: UInt8 = 1
            info.withUnsafeBytes { infoBytes in
                withUnsafeBytes(of: &counter) { counterBytes in
                    hmac(key: UnsafeRawBufferPointer(prkBytes), [infoBytes, counterBytes], into: okm)
                }
            }
        }
    }
}
