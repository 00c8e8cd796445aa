import Foundation
import MedVault
import MedVaultKeys

/// W1 — bulk insert: patients, sessions with ≈600-character notes and diagnoses,
/// all in one transaction (rows/s), plus the peak resident memory it adds.
///
/// For now MedVault's side is the storage-engine pattern the repositories will
/// follow: one `pool.write` closure with one `execute` per row. When the clinical
/// repositories land, a second MedVault line will insert through them.
///
/// Each run starts from an empty file (pool open/close and file creation are not
/// timed). Runs are ordered ABBA (MedVault, raw, raw, MedVault, …) so a warming or
/// cooling disk favours neither side; the figure is the median run
/// (3 runs per side, 5 below scale 0.5).
struct BulkInsertWorkload: Workload {
    let id = "W1"
    let title = "bulk insert of patients, sessions and diagnoses"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let dataset = BenchmarkDataset(patientCount: context.scaled(10_000, minimum: 100),
                                       sessionCount: context.scaled(100_000, minimum: 1_000), seed: context.seed)
        let warmUp = BenchmarkDataset(patientCount: 100, sessionCount: 1_000, seed: context.seed ^ 1)
        // Small runs are noisier (and cheap): take more of them.
        let runsPerSide = context.scale < 0.5 ? 5 : 3
        let key = context.databaseKey(salt: 1)
        defer { key.secure.wipe() }
        context.log("W1: \(dataset.patients.count) patients, \(dataset.sessions.count) sessions, "
                    + "\(dataset.diagnoses.count) diagnoses; \(runsPerSide) runs per side, ABBA order")

        _ = try await insertThroughMedVault(warmUp, context: context, key: key.secure)
        _ = try await insertRaw(warmUp, context: context, key: key.bytes)

        var medVault: [Double] = []
        var reference: [Double] = []
        var medVaultPeaks: [Double?] = []
        var referencePeaks: [Double?] = []
        for run in 0..<(2 * runsPerSide) {
            // A B B A A B B A …: MedVault on runs 0, 3, 4, 7, 8, …
            if run % 4 == 0 || run % 4 == 3 {
                let (seconds, peak) = try await insertThroughMedVault(dataset, context: context, key: key.secure)
                medVault.append(Double(dataset.rowCount) / seconds)
                medVaultPeaks.append(peak)
            } else {
                let (seconds, peak) = try await insertRaw(dataset, context: context, key: key.bytes)
                reference.append(Double(dataset.rowCount) / seconds)
                referencePeaks.append(peak)
            }
        }

        // A peak is reported only when every run could measure it.
        let medVaultPeak = medVaultPeaks.contains { $0 == nil } ? nil : medVaultPeaks.compactMap { $0 }.max()
        let referencePeak = referencePeaks.contains { $0 == nil } ? nil : referencePeaks.compactMap { $0 }.max()
        let label = "W1 bulk insert, one transaction (\(dataset.rowCount) rows)"
        return [
            Measurement(label: label, referenceLabel: "raw C",
                        medVault: Statistics.median(medVault), reference: Statistics.median(reference),
                        unit: .rowsPerSecond, target: 1.25,
                        note: "MedVault side: DatabasePool.write + execute per row; repositories pending"),
            Measurement(label: "W1 peak RSS above baseline", referenceLabel: "raw C",
                        medVault: medVaultPeak, reference: referencePeak, unit: .mebibytes, target: nil,
                        note: medVaultPeak == nil ? "VmHWM reset unavailable on this system" : "VmHWM during the insert, after a /proc/self/clear_refs reset; max over runs"),
        ]
    }

    /// Inserts `dataset` into a new file through one MedVault write closure; returns
    /// the seconds it took and the peak memory it added (the insert only, not the
    /// open or the verifying read).
    private func insertThroughMedVault(_ dataset: BenchmarkDataset, context: BenchmarkContext,
                                       key: SecureBytes) async throws -> (seconds: Double, peak: Double?) {
        let url = context.databaseURL("w1-medvault.db")
        let pool = try await DatabasePool.open(at: url, key: key, mode: .createIfMissing,
                                               migrator: BenchmarkSchema.migrator)
        let (seconds, peak) = try await PeakMemory.peakAboveBaseline {
            try await Stopwatch.seconds {
                try await pool.write { db in try DatasetWriter.insert(dataset, into: db) }
            }
        }
        let count = try await pool.read { db in
            try db.fetchOne("SELECT (SELECT count(*) FROM bench_patient) + (SELECT count(*) FROM bench_session) + (SELECT count(*) FROM bench_diagnosis)") { $0.int64(at: 0) }
        }
        await pool.close()
        guard count == Int64(dataset.rowCount) else { throw BenchmarkError("W1: MedVault stored \(count ?? -1) rows") }
        return (seconds, peak)
    }

    /// Inserts `dataset` into a new file through raw C; returns the seconds it took
    /// and the peak memory the insert added.
    private func insertRaw(_ dataset: BenchmarkDataset, context: BenchmarkContext,
                           key: [UInt8]) async throws -> (seconds: Double, peak: Double?) {
        let url = context.databaseURL("w1-raw.db")
        let db = try RawSQLCipher(path: url.path, key: .raw(key), create: true)
        try BenchmarkSchema.create(on: db)
        let (seconds, peak) = try await PeakMemory.peakAboveBaseline {
            try Stopwatch.seconds { try DatasetWriter.insert(dataset, into: db) }
        }
        let count = try db.scalarInt64("SELECT (SELECT count(*) FROM bench_patient) + (SELECT count(*) FROM bench_session) + (SELECT count(*) FROM bench_diagnosis)")
        guard count == Int64(dataset.rowCount) else { throw BenchmarkError("W1: raw C stored \(count ?? -1) rows") }
        return (seconds, peak)
    }
}
