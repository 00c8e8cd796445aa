import MedVaultCore

/// The most Argon2id work a keyring may ask for when a vault is opened.
///
/// Argon2 runs **before** anything in a keyring is authenticated: the header MAC is keyed
/// by the vault key, which only the derivation yields. Without a cap, a tampered keyring
/// (its SHA-256 checksum is no protection: anyone can recompute it) could ask for
/// m = 4 GiB and t = 256 and hang or kill the app at unlock. So costs above these limits
/// are refused while decoding the keyring, as `MedVaultError.Code.corrupted`, before
/// any derivation runs; new slots are held to the same limits so that every vault this
/// library writes also opens.
///
/// - **Memory ≤ 1 GiB.** 16 × the default (64 MiB). RFC 9106's first option (2 GiB, t = 1)
///   is out of reach of the phones and app extensions MedVault targets (iOS kills an
///   extension far below that), so nobody can rely on it; 1 GiB still leaves room for a
///   desktop deployment to go well past the default.
/// - **Passes ≤ 16**, and **memory × passes ≤ 4 GiB·pass** (e.g. 1 GiB × 4, 256 MiB × 16):
///   the work bound. One unlock then costs at most a few seconds on current hardware,
///   instead of the minutes m = 4 GiB × t = 256 would take.
/// - **Lanes ≤ 16.** libargon2 starts one thread per lane; more lanes add threads, not
///   cost to an attacker.
/// - **At most one password slot** per keyring (see `KeyringCodec`): MedVault writes only
///   one (changing the password replaces it), and each password slot is one more
///   derivation per unlock attempt. Recovery and platform slots run no slow KDF, so the
///   overall cap of 32 slots costs microseconds.
extension Argon2Parameters {
    /// The largest Argon2id costs accepted when opening a vault (see the extension's discussion).
    public struct OpeningLimits: Sendable, Hashable {
        /// Largest memory cost in KiB: 1 GiB.
        public let maximumMemoryKiB: UInt32
        /// Largest number of passes.
        public let maximumIterations: UInt32
        /// Largest number of lanes.
        public let maximumParallelism: UInt32
        /// Largest memory × passes, in KiB·passes: 4 GiB·pass.
        public let maximumMemoryPasses: UInt64
    }

    /// The limits MedVault applies: 1 GiB, 16 passes, 16 lanes, 4 GiB·pass.
    public static let openingLimits = OpeningLimits(
        maximumMemoryKiB: 1 << 20, maximumIterations: 16, maximumParallelism: 16, maximumMemoryPasses: 4 << 20
    )

    /// Whether a keyring asking for these costs may be opened.
    public var isWithinOpeningLimits: Bool {
        let limits = Self.openingLimits
        return memoryKiB <= limits.maximumMemoryKiB && iterations <= limits.maximumIterations
            && parallelism <= limits.maximumParallelism
            && UInt64(memoryKiB) * UInt64(iterations) <= limits.maximumMemoryPasses
    }

    /// The fixed message of the error for costs above ``openingLimits``.
    static let openingLimitsReason = "keyring Argon2 parameters exceed the limits accepted on open"

    /// Throws `MedVaultError.Code.corrupted` unless ``isWithinOpeningLimits``.
    func checkWithinOpeningLimits() throws {
        guard isWithinOpeningLimits else { throw MedVaultError(.corrupted, reason: Self.openingLimitsReason) }
    }
}
