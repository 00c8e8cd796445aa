import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// K3 — re-encrypting the database under a new data key, in MB/s of database file.
///
/// MedVault: `vault.rotateDatabaseKey(progress:)` with a progress callback counting
/// its reports (the keyring records the pending key, the pool drains, SQLCipher's
/// `sqlcipher_export` copies into a new file under the new key with a progress
/// handler, the copy is fsynced, verified with a fresh connection and
/// `PRAGMA integrity_check`, renamed over the original, and the keyring completed).
/// Reference: raw C running `sqlcipher_export` into an attached database keyed with
/// a new `x'…'` key (same cipher settings, `user_version` copied), then `fsync` —
/// the copy alone, without verification. A diagnostic line adds the same
/// `integrity_check` on the copy, which is what MedVault's verification costs.
///
/// Both databases hold MedVault's schema and the same ballast (1 MiB blobs,
/// 256 MiB × scale, at least 16 MiB). The sides alternate; 2 runs each.
struct RotationWorkload: Workload {
    let id = "K3"
    let title = "data-key rotation throughput"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let pair = try await VaultBallast.pair("k3", password: "rotación de claves ñ", keySalt: 3, in: context)
        let (vault, rawURL, key) = (pair.vault, pair.rawURL, pair.key)
        let (medVaultBytes, rawBytes) = (pair.vaultBytes, pair.rawBytes)

        let reports = ProgressCounter()
        var medVault: [Double] = []
        var reference: [Double] = []
        var referenceVerified: [Double] = []
        var rng = SplitMix64(seed: context.seed).fork(0x4B33)
        for run in 0..<4 {
            if run == 0 || run == 3 {
                let seconds = try await Stopwatch.seconds {
                    try await vault.rotateDatabaseKey { _ in reports.increment() }
                }
                medVault.append(medVaultBytes / 1e6 / seconds)
            } else {
                let copy = context.databaseURL("k3-raw-copy.db")
                let newKey = rng.bytes(32)
                let (seconds, check) = try Self.timedRawExport(rawURL, key: key.bytes, to: copy, newKey: newKey,
                                                               workload: "K3")
                reference.append(rawBytes / 1e6 / seconds)
                referenceVerified.append(rawBytes / 1e6 / (seconds + check))
                _ = context.databaseURL("k3-raw-copy.db")
            }
        }
        let count = try await vault.patients.count()
        try await vault.destroy()
        key.secure.wipe()
        guard count == 0, reports.value > 4 else { throw BenchmarkError("K3: \(reports.value) progress reports") }

        let label = String(format: "K3 rotateDatabaseKey, %.0f MiB (median of 2)", medVaultBytes / 1_048_576)
        return [
            Measurement(label: label, referenceLabel: "raw sqlcipher_export + fsync",
                        medVault: Statistics.median(medVault), reference: Statistics.median(reference),
                        unit: .megabytesPerSecond, target: nil,
                        note: "\(reports.value) progress reports over 2 rotations; MedVault also verifies the copy "
                            + "(integrity_check) before swapping it in"),
            Measurement(label: label, referenceLabel: "raw export + fsync + integrity_check (diagnostic)",
                        medVault: Statistics.median(medVault), reference: Statistics.median(referenceVerified),
                        unit: .megabytesPerSecond, target: nil, note: nil),
        ]
    }

    /// ``rawExport(_:key:to:newKey:oneTransaction:)`` timed, then the copy's
    /// `PRAGMA integrity_check` timed on a fresh connection (it must say `ok`).
    static func timedRawExport(_ source: URL, key: [UInt8], to copy: URL, newKey: [UInt8], oneTransaction: Bool = false,
                               workload: String) throws -> (seconds: Double, check: Double) {
        let seconds = try Stopwatch.seconds {
            try rawExport(source, key: key, to: copy, newKey: newKey, oneTransaction: oneTransaction)
        }
        let check = try Stopwatch.seconds {
            let db = try RawSQLCipher(path: copy.path, key: .raw(newKey), role: .reader)
            guard try db.scalarText("PRAGMA integrity_check") == "ok" else {
                throw BenchmarkError("\(workload): the raw copy failed its integrity check")
            }
        }
        return (seconds, check)
    }

    /// `sqlcipher_export` of `source` into a new file under `newKey`, then fsync.
    ///
    /// `oneTransaction` wraps the export in one transaction over both databases (as
    /// MedVault's backup does) instead of letting each table's copy commit on its own.
    static func rawExport(_ source: URL, key: [UInt8], to destination: URL, newKey: [UInt8],
                          oneTransaction: Bool = false) throws {
        // Created empty first (as MedVault does): the connection has no SQLITE_OPEN_CREATE.
        guard FileManager.default.createFile(atPath: destination.path, contents: nil,
                                             attributes: [.posixPermissions: 0o600]) else {
            throw BenchmarkError("K3: cannot create the copy")
        }
        let db = try RawSQLCipher(path: source.path, key: .raw(key))
        let hex = newKey.map { String(format: "%02x", $0) }.joined()
        let version = try db.scalarInt64("PRAGMA main.user_version") ?? 0
        try db.exec("""
            ATTACH DATABASE '\(destination.path)' AS rekeyed KEY "x'\(hex)'";
            PRAGMA rekeyed.cipher_page_size = 4096;
            PRAGMA rekeyed.cipher_use_hmac = ON;
            \(oneTransaction ? "BEGIN;" : "")
            SELECT sqlcipher_export('rekeyed');
            \(oneTransaction ? "COMMIT;" : "")
            PRAGMA rekeyed.user_version = \(version);
            DETACH DATABASE rekeyed;
            """)
        let descriptor = open(destination.path, O_RDONLY)
        guard descriptor >= 0 else { throw BenchmarkError("K3: cannot open the copy") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw BenchmarkError("K3: fsync failed") }
    }
}

/// A thread-safe counter for callbacks on other threads.
final class ProgressCounter: @unchecked Sendable {
    // Safe: `count` is only touched while holding `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.lock(); count += 1; lock.unlock() }

    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
