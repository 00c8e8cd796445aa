import MedVaultCore
import MedVaultKeys

/// How ``VaultDatabase`` configures its SQLCipher connections.
///
/// The cipher settings are pinned on every connection and never left to the
/// library's compiled-in defaults, so a vault stays readable by later SQLCipher
/// versions (see `docs/inspecting-a-vault.md`).
public struct DatabaseConfiguration: Sendable, Hashable {
    /// The SQLCipher settings applied to every connection right after keying, for the
    /// SQLCipher major version in use (3 or 4). Default `CipherSettings.medVaultDefault`.
    ///
    /// A ``Vault`` sets them from its keyring; a vault is created with the ones given here.
    public var cipherSettings: CipherSettings = .medVaultDefault
    /// SQLCipher page size in bytes (`PRAGMA cipher_page_size`): ``cipherSettings``'s
    /// page size. Default 4096.
    public var cipherPageSize: Int {
        get { Int(cipherSettings.pageSize) }
        set { cipherSettings.pageSize = UInt32(clamping: newValue) }
    }
    /// Per-connection page cache in KiB (`PRAGMA cache_size = -N`). Default 8 MiB.
    public var cacheSizeKiB: Int = 8 * 1024
    /// How many read-only connections serve ``VaultDatabase/read(duration:_:)``. Default 2.
    public var readerCount: Int = 2
    /// How long a statement waits for a lock held by another process before
    /// failing with a `storage` error. Default 10 seconds.
    public var busyTimeoutMilliseconds: Int32 = 10_000
    #if BenchmarkSwitches
    /// Benchmarks only: when `true`, the repositories append nothing to the change log
    /// (and observers hear nothing of this pool's commits). It exists so that one
    /// benchmark run measures the log's cost (docs/benchmarks-method.md); a vault
    /// opened with it breaks the log's guarantees (docs/changes.md). Compiled only with
    /// the package trait `BenchmarkSwitches`, off by default (the benchmark package's).
    @_spi(Benchmarks) public var _changeLogDisabled = false
    /// Benchmarks only: when `true`, no audit-trail entry is written (docs/audit.md).
    /// It exists so that one benchmark run measures the trail's cost; a vault opened
    /// with it has gaps in its trail that `verify()` cannot see. Trait
    /// `BenchmarkSwitches` only.
    @_spi(Benchmarks) public var _auditTrailDisabled = false
    /// Benchmarks only: when set, the pool's writer and readers report their statements,
    /// the time their steps take in SQLCipher and their pages to this probe, and every
    /// write its hand-off (``StatementProbe``; `make bench`'s per-call breakdown). Trait
    /// `BenchmarkSwitches` only.
    @_spi(Benchmarks) public var _statementProbe: StatementProbe?
    #endif

    /// The defaults described on each property.
    public init() {}

    func validated() throws -> DatabaseConfiguration {
        guard [1024, 2048, 4096, 8192, 16384, 32768, 65536].contains(cipherPageSize) else {
            throw MedVaultError(.invalidArgument, reason: "cipherPageSize must be a power of two from 1024 to 65536")
        }
        try cipherSettings.validate()
        guard (1...16).contains(readerCount) else {
            throw MedVaultError(.invalidArgument, reason: "readerCount must be from 1 to 16")
        }
        guard cacheSizeKiB >= 0, busyTimeoutMilliseconds >= 0 else {
            throw MedVaultError(.invalidArgument, reason: "cache size and busy timeout must not be negative")
        }
        return self
    }
}
