import CSodium

/// HMAC-SHA256 (RFC 2104) and HKDF-SHA256 (RFC 5869) on libsodium's HMAC
/// (`crypto_auth_hmacsha256`), whose keyed state is wiped on return.
///
/// libsodium 1.0.18 (Debian 12's) has no HKDF; RFC 5869 with one output block is two HMAC
/// calls, written here. The HMAC state and the PRK (from which the recovery slot's KEK, or
/// the keyring MAC key, follows) live in scratch buffers zeroed before return
/// (`SecureMemory.withScratch`); libsodium wipes its own pads. (swift-crypto's `HMAC`,
/// used before, padded a short key into an ordinary `[UInt8]` freed without being cleared.)
///
/// The results are RFC 2104 / RFC 5869 exactly, the same bytes as Python's
/// `cryptography` (tests compare them), so keyrings written before open unchanged.
enum SecureHKDF {
    static let outputLength = 32

    /// HMAC-SHA256 of the concatenated `parts` under `key`, written into `output` (32 bytes).
    static func hmac(key: UnsafeRawBufferPointer, _ parts: [UnsafeRawBufferPointer],
                     into output: UnsafeMutableRawBufferPointer) {
        // Unreachable for callers outside this module: it is internal, and its callers
        // (`derive`, `KeyWrap.headerMAC`, `SyncKeys.mac`) pass buffers of exactly `outputLength`.
        precondition(output.count == outputLength, "SecureHKDF: output must be 32 bytes (a MedVault bug)")
        _ = SecureMemory.sodiumReady
        SecureMemory.withScratch(byteCount: MemoryLayout<crypto_auth_hmacsha256_state>.size) { scratch in
            let state = scratch.baseAddress!.bindMemory(to: crypto_auth_hmacsha256_state.self, capacity: 1)
            // A key of zero bytes is RFC 2104's all-zero pad: libsodium reads no key byte then.
            withUnsafeBytes(of: UInt8(0)) { zeroByte in
                let keyBytes = key.count > 0 ? key : zeroByte
                crypto_auth_hmacsha256_init(state, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
            }
            for part in parts where part.count > 0 {
                crypto_auth_hmacsha256_update(state, part.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                              UInt64(part.count))
            }
            crypto_auth_hmacsha256_final(state, output.baseAddress!.assumingMemoryBound(to: UInt8.self))
            // The chaining values passed through vector registers and libsodium's frames.
            SecureMemory.scrubAfterSecretUse()
        }
    }

    /// HKDF-SHA256 with a 32-byte output (one expand block), into secure pages (wiped by
    /// the holder's `wipe()`, e.g. on `Vault.lock()`, and freed zeroed).
    static func deriveSecureKey(inputKeyMaterial: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8]) -> SecureBytes {
        SecureBytes(count: outputLength) { okm in
            derive(inputKeyMaterial: inputKeyMaterial, salt: salt, info: info, into: okm)
        }
    }

    /// RFC 5869 extract, then the first expand block, into `okm` (32 bytes): for a key that
    /// lives for one call, in a buffer of ``SecureMemory/withScratch(byteCount:_:)``.
    static func derive(inputKeyMaterial: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8],
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
