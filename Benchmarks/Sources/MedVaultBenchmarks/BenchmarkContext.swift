import BenchmarkSupport
import Foundation
import MedVaultKeys

/// What every workload receives: the scale, a scratch folder and deterministic inputs.
struct BenchmarkContext: Sendable {
    /// Multiplies the sizes and iteration counts (1.0 = the sizes).
    let scale: Double
    /// A scratch folder for this run's database files, deleted at the end.
    let directory: URL
    /// The seed of every generator.
    let seed: UInt64

    /// `base × scale`, rounded, and never below `minimum`.
    func scaled(_ base: Int, minimum: Int = 1) -> Int {
        max(minimum, Int((Double(base) * scale).rounded()))
    }

    /// A fresh database path in the scratch folder (any old file and its WAL removed).
    func databaseURL(_ name: String) -> URL {
        let url = directory.appendingPathComponent(name)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
        return url
    }

    /// A deterministic 32-byte database key, as bytes for the raw side and as
    /// ``SecureBytes`` for MedVault's.
    func databaseKey(salt: UInt64) -> (bytes: [UInt8], secure: SecureBytes) {
        var rng = SplitMix64(seed: seed).fork(salt)
        let bytes = rng.bytes(32)
        return (bytes, SecureBytes(copying: bytes))
    }

    /// A progress line on standard error (standard output carries only the table).
    func log(_ message: String) {
        FileHandle.standardError.write(Data(("  " + message + "\n").utf8))
    }
}
