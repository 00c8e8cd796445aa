import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore

/// B1 — online backup throughput, in MB/s of database file.
///
/// MedVault: `vault.backup(to:)` into a new folder (keys read under the keyring lock,
/// `sqlcipher_export` from a read transaction on a connection of its own, the copy
/// fsynced, verified on a fresh connection — `integrity_check`, `foreign_key_check`,
/// row counts against the snapshot's — the keyring copy written, the folder synced and
/// renamed into place). Reference: raw C running `sqlcipher_export` of a database with
/// the same schema, the same ballast and the same cipher settings into a new file under
/// the same key in one transaction (as MedVault does), then `fsync` — the copy alone (issue #15: within 1.5×). A diagnostic
/// line adds the same `integrity_check` on the raw copy.
///
/// Both databases hold MedVault's schema and the same ballast (1 MiB blobs,
/// 256 MiB × scale, at least 16 MiB) — the size that dominates a real practice's file
/// (attachments) — plus the vault's own rows. The sides alternate; 3 runs each.
struct BackupWorkload: Workload {
    let id = "B1"
    let title = "online backup throughput"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let pair = try await VaultBallast.pair("b1", password: "copia de seguridad ñ", keySalt: 4, in: context)
        let (vault, rawURL, key) = (pair.vault, pair.rawURL, pair.key)
        let (medVaultBytes, rawBytes) = (pair.vaultBytes, pair.rawBytes)

        let reports = ProgressCounter()
        var medVault: [Double] = []
        var reference: [Double] = []
        var referenceVerified: [Double] = []
        for run in 0..<6 {
            if run % 2 == 0 {
                let destination = context.directory.appendingPathComponent("b1-backup-\(run)")
                let seconds = try await Stopwatch.seconds {
                    try await vault.backup(to: destination) { _ in reports.increment() }
                }
                medVault.append(medVaultBytes / 1e6 / seconds)
                try FileManager.default.removeItem(at: destination)
            } else {
                let copy = context.databaseURL("b1-raw-copy.db")
                let (seconds, check) = try RotationWorkload.timedRawExport(
                    rawURL, key: key.bytes, to: copy, newKey: key.bytes, oneTransaction: true, workload: "B1")
                reference.append(rawBytes / 1e6 / seconds)
                referenceVerified.append(rawBytes / 1e6 / (seconds + check))
            }
        }
        try await vault.destroy()
        key.secure.wipe()
        guard reports.value >= 3 else { throw BenchmarkError("B1: \(reports.value) progress reports") }

        let label = String(format: "B1 vault.backup(to:), %.0f MiB (median of 3)", medVaultBytes / 1_048_576)
        return [
            Measurement(label: label, referenceLabel: "raw sqlcipher_export in one transaction + fsync, same key",
                        medVault: Statistics.median(medVault), reference: Statistics.median(reference),
                        unit: .megabytesPerSecond, target: 1.5,
                        note: "\(reports.value) progress reports over 3 backups; MedVault also verifies the copy "
                            + "(integrity_check, foreign_key_check, row counts) and writes the keyring before "
                            + "installing the folder"),
            Measurement(label: label, referenceLabel: "raw export + fsync + integrity_check (diagnostic)",
                        medVault: Statistics.median(medVault), reference: Statistics.median(referenceVerified),
                        unit: .megabytesPerSecond, target: nil, note: nil),
        ]
    }
}
