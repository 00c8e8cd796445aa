import CArgon2
import MedVaultCore

/// Argon2id (RFC 9106, version 0x13) through the system's libargon2.
///
/// For example:
///
/// ```swift
/// let kek = try Argon2id.deriveKey(
///     password: try Password("correct horse"),
///     salt: salt,
///     parameters: .recommended
/// )
/// ```
///
/// The derivation runs on the calling thread (and `parallelism` helper threads that
/// libargon2 starts) for as long as the parameters ask: call it off any UI thread.
public enum Argon2id {
    /// Derives `parameters.outputLength` bytes from a password.
    ///
    /// - Parameters:
    ///   - password: The secret input, as bytes. May be empty at this level (``Password`` refuses empty).
    ///   - salt: Exactly `parameters.saltLength` bytes, unique per derivation target.
    ///   - parameters: Memory, passes, lanes and lengths.
    ///   - secret: Optional keyed-hash secret (RFC 9106's `K`), or `nil`.
    ///   - associatedData: Optional associated data (RFC 9106's `X`).
    /// - Returns: The derived key in a ``SecureBytes``.
    /// - Throws: `MedVaultError.Code.invalidArgument` when the salt length does not match the
    ///   parameters, or libargon2 refuses an input; `MedVaultError.Code.storage` when it cannot
    ///   allocate its memory or start its threads.
    public static func deriveKey(
        password: SecureBytes,
        salt: [UInt8],
        parameters: Argon2Parameters,
        secret: SecureBytes? = nil,
        associatedData: [UInt8] = []
    ) throws -> SecureBytes {
        guard salt.count == parameters.saltLength else {
            throw MedVaultError(.invalidArgument, field: "salt", reason: "salt length does not match the Argon2 parameters")
        }
        // The password's and the key's blocks passed through this thread's vector registers
        // (libargon2's BLAKE2b). With more than one lane, libargon2 fills the lanes on
        // threads of its own, whose stacks this does not reach.
        defer { SecureMemory.scrubAfterSecretUse() }
        return try password.withUnsafeBytes { passwordBytes in
            try withOptionalBytes(secret) { secretBytes in
                try salt.withUnsafeBytes { saltBytes in
                    try associatedData.withUnsafeBytes { adBytes in
                        try SecureBytes(count: parameters.outputLength) { output in
                            var context = argon2_context()
                            context.out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
                            context.outlen = UInt32(output.count)
                            (context.pwd, context.pwdlen) = try pointer(passwordBytes)
                            (context.salt, context.saltlen) = try pointer(saltBytes)
                            (context.secret, context.secretlen) = try pointer(secretBytes)
                            (context.ad, context.adlen) = try pointer(adBytes)
                            context.t_cost = parameters.iterations
                            context.m_cost = parameters.memoryKiB
                            context.lanes = parameters.parallelism
                            context.threads = parameters.parallelism
                            context.version = UInt32(ARGON2_VERSION_13.rawValue)
                            context.allocate_cbk = nil
                            context.free_cbk = nil
                            context.flags = 0 // ARGON2_DEFAULT_FLAGS: never wipe the caller's inputs
                            let status = argon2_ctx(&context, Argon2_id)
                            guard status == ARGON2_OK.rawValue else { throw error(for: status) }
                        }
                    }
                }
            }
        }
    }

    /// Derives a key from a ``Password``; see ``deriveKey(password:salt:parameters:secret:associatedData:)``.
    public static func deriveKey(
        password: Password,
        salt: [UInt8],
        parameters: Argon2Parameters,
        secret: SecureBytes? = nil,
        associatedData: [UInt8] = []
    ) throws -> SecureBytes {
        try deriveKey(
            password: password.bytes, salt: salt, parameters: parameters,
            secret: secret, associatedData: associatedData
        )
    }

    // MARK: - Plumbing

    private static func withOptionalBytes<Result>(
        _ bytes: SecureBytes?, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        guard let bytes else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try bytes.withUnsafeBytes(body)
    }

    /// libargon2 declares its inputs mutable because it can wipe them on request; MedVault
    /// never sets the wipe flags, so the bytes are only read.
    private static func pointer(_ buffer: UnsafeRawBufferPointer) throws -> (UnsafeMutablePointer<UInt8>?, UInt32) {
        guard buffer.count <= Int(UInt32.max) else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "Argon2 input is too long")
        }
        guard buffer.count > 0, let base = buffer.baseAddress else { return (nil, 0) }
        return (UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self)), UInt32(buffer.count))
    }

    private static func error(for status: Int32) -> MedVaultError {
        switch status {
        case ARGON2_MEMORY_ALLOCATION_ERROR.rawValue:
            return MedVaultError(.storage, reason: "Argon2 could not allocate its memory")
        case ARGON2_THREAD_FAIL.rawValue:
            return MedVaultError(.storage, reason: "Argon2 could not start its threads")
        default:
            return MedVaultError(.invalidArgument, field: "kdf", reason: "libargon2 refused the parameters")
        }
    }
}
