import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// W1 — bulk insert through the repositories' batch APIs: patients (each with its
/// search-index row), sessions with ≈600-character notes, diagnoses (rows/s), plus
/// the peak resident memory the insert adds.
///
/// MedVault: `patients.create([Patient])`, `sessions.create([ClinicalSession])`,
/// `diagnoses.create([Diagnosis])` (three write transactions; validation, argument
/// building, the FTS row, the insert triggers). Raw C: the same three transactions
/// with the same statements and values, the derived columns precomputed.
///
/// Each run starts from an empty file with the schema (not timed). Runs are ordered
/// ABBA so a warming or cooling disk favours neither side; the figure is the median
/// run (3 runs per side, 5 below scale 0.5).
struct BulkInsertWorkload: Workload {
    let id = "W1"
    let title = "bulk insert through the batch APIs"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let data = ClinicData(patientCount: context.scaled(10_000, minimum: 100),
                              sessionCount: context.scaled(100_000, minimum: 1_000), seed: context.seed)
        let warmUp = ClinicData(patientCount: 100, sessionCount: 1_000, seed: context.seed ^ 1)
        let fixture = try await ClinicFixture.capture(in: context)
        let runsPerSide = context.scale < 0.5 ? 5 : 3
        let key = context.databaseKey(salt: 1)
        defer { key.secure.wipe() }
        context.log("W1: \(data.patients.count) patients, \(data.sessions.count) sessions, "
                    + "\(data.diagnoses.count) diagnoses; \(runsPerSide) runs per side, ABBA order")

        _ = try await insertThroughMedVault(warmUp, context: context, key: key.secure)
        _ = try await insertRaw(warmUp, fixture: fixture, context: context, key: key.bytes)

        var medVault: [Double] = []
        var reference: [Double] = []
        var medVaultPeaks: [Double?] = []
        var referencePeaks: [Double?] = []
        for run in 0..<(2 * runsPerSide) {
            if run % 4 == 0 || run % 4 == 3 {
                let (seconds, peak) = try await insertThroughMedVault(data, context: context, key: key.secure)
                medVault.append(Double(data.rowCount) / seconds)
                medVaultPeaks.append(peak)
            } else {
                let (seconds, peak) = try await insertRaw(data, fixture: fixture, context: context, key: key.bytes)
                reference.append(Double(data.rowCount) / seconds)
                referencePeaks.append(peak)
            }
        }
        let medVaultPeak = medVaultPeaks.contains { $0 == nil } ? nil : medVaultPeaks.compactMap { $0 }.max()
        let referencePeak = referencePeaks.contains { $0 == nil } ? nil : referencePeaks.compactMap { $0 }.max()
        return [
            Measurement(label: "W1 bulk insert, batch APIs (\(data.rowCount) rows)", referenceLabel: "raw C",
                        medVault: Statistics.median(medVault), reference: Statistics.median(reference),
                        unit: .rowsPerSecond, target: 1 / 0.6,
                        note: "target ≥ 0.6× raw-C throughput (stretch 0.8×, i.e. ratio ≤ 1.25×); "
                            + "three transactions per side, search-index rows included"),
            Measurement(label: "W1 peak RSS above baseline", referenceLabel: "raw C",
                        medVault: medVaultPeak, reference: referencePeak, unit: .mebibytes, target: 32,
                        targetIsAbsolute: true,
                        note: medVaultPeak == nil ? "VmHWM reset unavailable on this system"
                            : "VmHWM during the insert after a /proc/self/clear_refs reset, max over runs; "
                            + "the input arrays are allocated before the baseline"),
        ]
    }

    /// Inserts `data` into a new file through the repositories; returns the seconds
    /// it took and the peak memory it added.
    private func insertThroughMedVault(_ data: ClinicData, context: BenchmarkContext,
                                       key: SecureBytes) async throws -> (seconds: Double, peak: Double?) {
        let url = context.databaseURL("w1-medvault.db")
        let pool = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
                                               migrator: MedVaultSchema.migrator)
        let records = SQLCipherClinicalRecords(pool: pool, clock: .fixed(ClinicData.stamp))
        let (seconds, peak) = try await PeakMemory.peakAboveBaseline {
            try await Stopwatch.seconds {
                try await records.patients.create(data.patients)
                try await records.sessions.create(data.sessions)
                try await records.diagnoses.create(data.diagnoses)
            }
        }
        let count = try await pool.read { db in try db.fetchOne(Self.countSQL) { $0.int64(at: 0) } }
        await pool.close()
        guard count == Int64(data.rowCount + data.searchTokenCount) else {
            throw BenchmarkError("W1: MedVault stored \(count ?? -1) rows")
        }
        return (seconds, peak)
    }

    /// Inserts `data` into a new file through raw C.
    private func insertRaw(_ data: ClinicData, fixture: ClinicFixture, context: BenchmarkContext,
                           key: [UInt8]) async throws -> (seconds: Double, peak: Double?) {
        let db = try fixture.create(at: context.databaseURL("w1-raw.db"), key: .raw(key))
        let (seconds, peak) = try await PeakMemory.peakAboveBaseline {
            try Stopwatch.seconds { try RawClinic.insert(data, into: db) }
        }
        let count = try db.scalarInt64(Self.countSQL)
        guard count == Int64(data.rowCount + data.searchTokenCount) else {
            throw BenchmarkError("W1: raw C stored \(count ?? -1) rows")
        }
        return (seconds, peak)
    }

    static let countSQL = """
        SELECT (SELECT count(*) FROM patient) + (SELECT count(*) FROM patient_search_token) \
        + (SELECT count(*) FROM clinical_session) + (SELECT count(*) FROM diagnosis)
        """
}
