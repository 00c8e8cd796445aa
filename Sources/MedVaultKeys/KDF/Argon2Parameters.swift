import MedVaultCore

/// The cost settings of an Argon2id derivation: memory, passes, lanes, salt and output sizes.
///
/// Values are checked when they are made: a value outside libargon2's own limits or
/// MedVault's sane maxima is refused with `MedVaultError.Code.invalidArgument` and
/// `field: "kdf"`; nothing is clamped silently.
///
/// For example:
///
/// ```swift
/// let strong = Argon2Parameters.recommended            // 64 MiB, t = 3, p = 4
/// let custom = try Argon2Parameters(memoryKiB: 131_072, iterations: 2, parallelism: 4)
/// let quick = Argon2Parameters.fastForTestsOnly       // unit tests only
/// ```
///
/// Key slots refuse parameters weaker than ``productionFloor`` unless they come from one
/// of the presets marked for tests (``fastForTestsOnly``, ``forTestsOnly(memoryKiB:iterations:parallelism:)``).
public struct Argon2Parameters: Sendable, Hashable, CustomStringConvertible {
    /// Memory cost in KiB (`m`).
    public let memoryKiB: UInt32
    /// Number of passes over memory (`t`).
    public let iterations: UInt32
    /// Number of lanes and threads (`p`).
    public let parallelism: UInt32
    /// Length of the random salt in bytes.
    public let saltLength: Int
    /// Length of the derived key in bytes.
    public let outputLength: Int
    /// Whether this value was made by a preset meant only for tests. Never stored on disk.
    public let isForTestsOnly: Bool

    // MARK: - Limits

    /// Largest accepted parallelism. libargon2 allows 2²⁴−1; more lanes than this only
    /// spawn threads without making the derivation harder.
    public static let maximumParallelism: UInt32 = 64
    /// Largest accepted memory cost: 4 GiB.
    public static let maximumMemoryKiB: UInt32 = 4 * 1024 * 1024
    /// Largest accepted number of passes.
    public static let maximumIterations: UInt32 = 256
    /// Accepted salt lengths: RFC 9106 recommends 16 bytes; libargon2 needs at least 8.
    public static let saltLengthRange: ClosedRange<Int> = 16...64
    /// Accepted output lengths.
    public static let outputLengthRange: ClosedRange<Int> = 16...64

    // MARK: - Presets

    /// RFC 9106's second recommended option and MedVault's default: m = 64 MiB, t = 3, p = 4,
    /// 16-byte salt, 32-byte key.
    public static let recommended = Argon2Parameters(
        unchecked: 65_536, iterations: 3, parallelism: 4, saltLength: 16, outputLength: 32, isForTestsOnly: false
    )

    /// The default parameters, the same as ``recommended``.
    public static let `default` = recommended

    /// The weakest parameters MedVault accepts for a new password slot outside tests:
    /// OWASP's minimum for Argon2id (m = 19 MiB, t = 2, p = 1).
    ///
    /// A value is at least this strong when its memory is ≥ 19 MiB and memory × passes
    /// is ≥ 38 MiB (so 64 MiB with one pass also passes).
    public static let productionFloor = Argon2Parameters(
        unchecked: 19_456, iterations: 2, parallelism: 1, saltLength: 16, outputLength: 32, isForTestsOnly: false
    )

    /// Very cheap parameters (m = 8 KiB, t = 1, p = 1) for unit tests. **Never** use them
    /// for real data: a GPU guesses millions of passwords a second against them.
    public static let fastForTestsOnly = Argon2Parameters(
        unchecked: 8, iterations: 1, parallelism: 1, saltLength: 16, outputLength: 32, isForTestsOnly: true
    )

    /// Cheap custom parameters for tests, exempt from ``productionFloor``.
    ///
    /// - Throws: `MedVaultError.Code.invalidArgument` when outside libargon2's limits.
    public static func forTestsOnly(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) throws -> Argon2Parameters {
        let checked = try Argon2Parameters(memoryKiB: memoryKiB, iterations: iterations, parallelism: parallelism)
        return Argon2Parameters(
            unchecked: checked.memoryKiB, iterations: checked.iterations, parallelism: checked.parallelism,
            saltLength: checked.saltLength, outputLength: checked.outputLength, isForTestsOnly: true
        )
    }

    // MARK: - Initialisers

    /// Creates checked parameters.
    ///
    /// - Parameters:
    ///   - memoryKiB: Memory cost in KiB; at least 8 × `parallelism` (libargon2's minimum), at most 4 GiB.
    ///   - iterations: Passes, 1...256.
    ///   - parallelism: Lanes and threads, 1...64.
    ///   - saltLength: Salt bytes, 16...64.
    ///   - outputLength: Derived key bytes, 16...64.
    /// - Throws: `MedVaultError.Code.invalidArgument` (field `"kdf"`) naming the bound that failed.
    public init(
        memoryKiB: UInt32,
        iterations: UInt32,
        parallelism: UInt32,
        saltLength: Int = 16,
        outputLength: Int = 32
    ) throws {
        guard (1...Self.maximumParallelism).contains(parallelism) else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "Argon2 parallelism must be between 1 and 64")
        }
        guard memoryKiB >= 8 * parallelism else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "Argon2 memory must be at least 8 KiB per lane")
        }
        guard memoryKiB <= Self.maximumMemoryKiB else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "Argon2 memory must be at most 4 GiB")
        }
        guard (1...Self.maximumIterations).contains(iterations) else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "Argon2 iterations must be between 1 and 256")
        }
        guard Self.saltLengthRange.contains(saltLength) else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "Argon2 salt length must be between 16 and 64 bytes")
        }
        guard Self.outputLengthRange.contains(outputLength) else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "Argon2 output length must be between 16 and 64 bytes")
        }
        self.init(
            unchecked: memoryKiB, iterations: iterations, parallelism: parallelism,
            saltLength: saltLength, outputLength: outputLength, isForTestsOnly: false
        )
    }

    private init(
        unchecked memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32,
        saltLength: Int, outputLength: Int, isForTestsOnly: Bool
    ) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
        self.saltLength = saltLength
        self.outputLength = outputLength
        self.isForTestsOnly = isForTestsOnly
    }

    // MARK: - Strength

    /// Whether these parameters are at least as costly as ``productionFloor``.
    public var meetsProductionFloor: Bool {
        let floor = Self.productionFloor
        return memoryKiB >= floor.memoryKiB
            && UInt64(memoryKiB) * UInt64(iterations) >= UInt64(floor.memoryKiB) * UInt64(floor.iterations)
    }

    /// Throws unless these parameters may protect a new key slot: at least
    /// ``productionFloor`` (or made by a preset for tests), and within ``openingLimits``
    /// (so the vault opens again).
    func checkUsableForNewSlot() throws {
        guard meetsProductionFloor || isForTestsOnly else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "Argon2 parameters are below the production floor")
        }
        guard outputLength == 32 else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "key slots need a 32-byte Argon2 output")
        }
        guard isWithinOpeningLimits else {
            throw MedVaultError(.invalidArgument, field: "kdf", reason: "Argon2 parameters exceed the limits accepted on open")
        }
    }

    // MARK: - Equality ignores the test marker

    /// Two values are equal when their costs and lengths are; ``isForTestsOnly`` is ignored.
    public static func == (lhs: Argon2Parameters, rhs: Argon2Parameters) -> Bool {
        lhs.memoryKiB == rhs.memoryKiB && lhs.iterations == rhs.iterations && lhs.parallelism == rhs.parallelism
            && lhs.saltLength == rhs.saltLength && lhs.outputLength == rhs.outputLength
    }

    /// Hashes the costs and lengths, not ``isForTestsOnly``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(memoryKiB)
        hasher.combine(iterations)
        hasher.combine(parallelism)
        hasher.combine(saltLength)
        hasher.combine(outputLength)
    }

    /// A summary such as `Argon2id(m=65536 KiB, t=3, p=4)`.
    public var description: String {
        "Argon2id(m=\(memoryKiB) KiB, t=\(iterations), p=\(parallelism)\(isForTestsOnly ? ", tests only" : ""))"
    }
}
