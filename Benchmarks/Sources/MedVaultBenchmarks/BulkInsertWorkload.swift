import BenchmarkSupport
import Foundation
@_spi(Benchmarks) import MedVault
import MedVaultCore
import MedVaultKeys

/// W1 — insert the clinic in dataset order (a patient, then each of its sessions and
/// that session's diagnosis) as an app calls the public API, against every peer.
///
/// * MedVault, batch calls: per chunk of ≈1,000 rows (``DatasetOrder``),
///   `vault.patients.create([…])`, `vault.sessions.create([…])`,
///   `vault.diagnoses.create([…])` on a `Vault` (three transactions per chunk).
/// * MedVault, one call per record: `create` for each patient, session and diagnosis
///   of the first patients (one durable transaction each).
/// * C same SQL: the repositories' statements, three transactions per chunk.
/// * C plain: the plain schema, one transaction per chunk; and one autocommit
///   statement per record for the per-record line.
/// * GRDB (child process): `record.insert(db)` per row, one `write` per chunk; its
///   cached-statement path; one `write` per record.
///
/// * MedVault, batch calls with the change log off (`DatabaseConfiguration._changeLogDisabled`,
///   an `@_spi(Benchmarks)` switch): the log's cost, measured in the same run against the
///   trail-off runs (a vault without the log has no trail either: the trail is written from
///   the log's append point).
/// * MedVault, batch calls with the audit trail off (`DatabaseConfiguration._auditTrailDisabled`):
///   the trail's cost (docs/audit.md), in the same run. The trail-on and trail-off runs are
///   adjacent in every rotation; extra adjacent pairs (their order alternating) bring them to
///   ``trailPairs``, and the note lists each pair's ratio (docs/benchmarks-method.md).
///
/// Then the file size of MedVault's database and the plain schema's after the load.
/// Every side's row counts are compared; a mismatch fails the run.
struct BulkInsertWorkload: Workload {
    let id = "W1"
    let title = "insert in dataset order, batch calls and one call per record"
    /// Adjacent (trail on, trail off) pairs behind the audit trail's cost: a 15 % budget
    /// needs more samples than the other lines on a shared machine.
    static let trailPairs = 7

    /// MedVault's ways of writing the dataset.
    enum MedVaultPath {
        /// Three batch calls per ≈1,000-row chunk.
        case batchCalls
        /// One unit of work (`vault.write { tx in … }`) per ≈1,000-row chunk: its three
        /// batch calls in one transaction, as C plain and GRDB write a chunk.
        case unitOfWork
        /// One `create` per record, for the first `patients` patients.
        case perRecord(patients: Int)
    }

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let data = ClinicData(patientCount: context.scaled(10_000, minimum: 100),
                              sessionCount: context.scaled(100_000, minimum: 1_000), seed: context.seed)
        let warmUp = ClinicData(patientCount: 100, sessionCount: 1_000, seed: context.seed ^ 1)
        let perRecordPatients = context.scaled(500, minimum: 20)
        let fixture = try await ClinicFixture.capture(in: context)
        let runsPerSide = context.scale < 0.5 ? 5 : 3
        let key = context.databaseKey(salt: 1)
        defer { key.secure.wipe() }
        context.log("W1: \(data.patients.count) patients, \(data.sessions.count) sessions, "
                    + "\(data.diagnoses.count) diagnoses in \(data.order.chunks.count) chunks; "
                    + "\(runsPerSide) runs per side, rotating order")

        _ = try await insertThroughVault(warmUp, .batchCalls, context: context)
        _ = try await insertSameSQL(warmUp, fixture: fixture, context: context, key: key.bytes)
        _ = try insertPlain(warmUp, perRecord: nil, context: context, key: key.bytes)

        var medVault: [Double] = [], sameSQL: [Double] = [], plain: [Double] = [], medVaultUnits: [Double] = []
        var medVaultLogOff: [Double] = []
        // The trail's comparison: index i of each is one adjacent pair.
        var trailOn: [Double] = [], trailOff: [Double] = []
        var trailOnCPU: [Double] = [], trailOffCPU: [Double] = []
        var medVaultPeaks: [Double?] = [], sameSQLPeaks: [Double?] = []
        var medVaultBytes = 0.0, plainBytes = 0.0
        var medVaultCounts: [String: Int] = [:]
        var btrees: [(name: String, bytes: Double)]?
        for run in 0..<runsPerSide {
            for side in (run.isMultiple(of: 2) ? [0, 5, 4, 3, 1, 2] : [2, 1, 3, 4, 5, 0]) {
                switch side {
                case 5:
                    let outcome = try await insertThroughVault(data, .batchCalls, auditTrail: false, context: context)
                    trailOff.append(Double(data.rowCount) / outcome.seconds)
                    trailOffCPU.append(outcome.cpuSeconds ?? .nan)
                case 4:
                    let outcome = try await insertThroughVault(data, .batchCalls, changeLog: false, context: context)
                    medVaultLogOff.append(Double(data.rowCount) / outcome.seconds)
                case 3:
                    let outcome = try await insertThroughVault(data, .unitOfWork, context: context)
                    medVaultUnits.append(Double(data.rowCount) / outcome.seconds)
                    if !medVaultCounts.isEmpty {
                        try Self.check("MedVault, one unit of work per chunk", outcome.counts, against: medVaultCounts)
                    }
                case 0:
                    let outcome = try await insertThroughVault(data, .batchCalls, breakdown: btrees == nil,
                                                               context: context)
                    btrees = btrees ?? outcome.btrees
                    medVault.append(Double(data.rowCount) / outcome.seconds)
                    trailOn.append(Double(data.rowCount) / outcome.seconds)
                    trailOnCPU.append(outcome.cpuSeconds ?? .nan)
                    medVaultPeaks.append(outcome.peak)
                    medVaultBytes = outcome.bytes
                    medVaultCounts = outcome.counts
                case 1:
                    let (seconds, peak) = try await insertSameSQL(data, fixture: fixture, context: context, key: key.bytes)
                    sameSQL.append(Double(data.rowCount) / seconds)
                    sameSQLPeaks.append(peak)
                default:
                    let outcome = try insertPlain(data, perRecord: nil, context: context, key: key.bytes)
                    plain.append(Double(data.rowCount) / outcome.seconds)
                    plainBytes = outcome.bytes
                    try Self.check("C plain", outcome.counts, against: medVaultCounts.isEmpty ? nil : medVaultCounts)
                }
            }
        }
        for pair in runsPerSide..<max(runsPerSide, Self.trailPairs) {
            for trail in pair.isMultiple(of: 2) ? [true, false] : [false, true] {
                let outcome = try await insertThroughVault(data, .batchCalls, auditTrail: trail, context: context)
                if trail { try Self.check("MedVault, trail pair", outcome.counts, against: medVaultCounts) }
                if trail {
                    trailOn.append(Double(data.rowCount) / outcome.seconds)
                    trailOnCPU.append(outcome.cpuSeconds ?? .nan)
                } else {
                    trailOff.append(Double(data.rowCount) / outcome.seconds)
                    trailOffCPU.append(outcome.cpuSeconds ?? .nan)
                }
            }
        }
        let trailRatios = zip(trailOn, trailOff).map { $1 / $0 }
        let trailCPURatios = zip(trailOnCPU, trailOffCPU).map { $0 / $1 }
        context.log("W1: audit trail cost per adjacent pair, wall clock: "
                    + trailRatios.map { String(format: "%.3f", $0) }.joined(separator: ", ")
                    + "; CPU time: " + trailCPURatios.map { String(format: "%.3f", $0) }.joined(separator: ", "))
        let perRecordRows = Double(data.order.rowCount(ofFirst: perRecordPatients))
        let medVaultOne = try await insertThroughVault(data, .perRecord(patients: perRecordPatients), context: context)
        let plainOne = try insertPlain(data, perRecord: perRecordPatients, context: context, key: key.bytes)
        try Self.check("C plain, one per record", plainOne.counts, against: medVaultOne.counts)

        context.log("W1: GRDB peer (\(runsPerSide) runs per path)")
        let grdb = try GRDBPeerProcess.run(PeerRequest(
            workload: .bulkInsert, directory: context.directory.path, patientCount: data.patients.count,
            sessionsPerPatient: data.sessions.count / data.patients.count, seed: context.seed,
            iterations: runsPerSide, perRecordPatients: perRecordPatients))
        try Self.check("GRDB", grdb.counts.filter { $0.key != "perRecordRows" }, against: medVaultCounts)
        guard grdb.counts["perRecordRows"] == Int(perRecordRows) else {
            throw BenchmarkError("W1: GRDB stored \(grdb.counts["perRecordRows"] ?? -1) rows one by one, "
                                 + "expected \(Int(perRecordRows))")
        }

        let peak = { (peaks: [Double?]) in peaks.contains { $0 == nil } ? nil : peaks.compactMap { $0 }.max() }
        let mib = 1_048_576.0
        return [
            Measurement(label: "W1 insert \(data.rowCount) rows, batch calls per ≈1,000 rows (median of \(runsPerSide))",
                        referenceLabel: "raw C", medVault: Statistics.median(medVault),
                        reference: Statistics.median(sameSQL), unit: .rowsPerSecond, target: nil,
                        note: "dataset order; MedVault and C same SQL: 3 transactions per chunk (one per entity); "
                            + "C plain and GRDB: 1 transaction per chunk; GRDB = record.insert(db)")
                .with(plain: Statistics.median(plain), plainTarget: 1 / 0.8,
                      grdb: try GRDBPeerProcess.figure(grdb, "idiomatic.rowsPerSecond")),
            Measurement(label: "W1 change log cost: batch calls with the log vs without, trail off on both sides "
                            + "(median of \(runsPerSide))",
                        referenceLabel: "MedVault, log off", medVault: Statistics.median(trailOff),
                        reference: Statistics.median(medVaultLogOff), unit: .rowsPerSecond, target: 1.10,
                        note: "the batch calls with the audit trail off (the log on) against a vault opened with the "
                            + "@_spi(Benchmarks) switch DatabaseConfiguration._changeLogDisabled, which has no trail "
                            + "either (the trail is written from the log's append point): ratio = the log's own cost; "
                            + "the trail's is the next line"),
            Measurement(label: "W1 audit trail cost: batch calls with the trail vs without "
                            + "(median of \(trailRatios.count) adjacent pairs)",
                        referenceLabel: "MedVault, trail off", medVault: Statistics.median(trailOn),
                        reference: Statistics.median(trailOff), unit: .rowsPerSecond, target: 1.15,
                        note: "the same batch calls on a vault opened with the @_spi(Benchmarks) switch "
                            + "DatabaseConfiguration._auditTrailDisabled (the change log on): ratio = the trail's cost; "
                            + "each pair's ratio, in run order: "
                            + trailRatios.map { String(format: "%.2f", $0) }.joined(separator: ", ")
                            + String(format: " (their median %.2f)", Statistics.median(trailRatios))),
            Measurement(label: "W1 audit trail CPU cost: CPU time with the trail vs without "
                            + "(median of \(trailCPURatios.count) adjacent pairs, diagnostic)",
                        referenceLabel: "MedVault, trail off", medVault: Statistics.median(trailOnCPU) * 1_000,
                        reference: Statistics.median(trailOffCPU) * 1_000, unit: .milliseconds, target: nil,
                        note: "the pairs of the line above; user + system CPU time of the whole process while "
                            + "inserting (waiting for a core on a shared machine is not counted); each pair's "
                            + "ratio: " + trailCPURatios.map { String(format: "%.2f", $0) }.joined(separator: ", ")
                            + String(format: " (their median %.2f)", Statistics.median(trailCPURatios))),
            Measurement(label: "W1 insert \(data.rowCount) rows, one unit of work per ≈1,000 rows (median of \(runsPerSide))",
                        referenceLabel: "raw C", medVault: Statistics.median(medVaultUnits), reference: nil,
                        unit: .rowsPerSecond, target: nil,
                        note: "MedVault: vault.write { tx in } with the three batch calls, 1 transaction per chunk, "
                            + "as C plain and GRDB")
                .with(plain: Statistics.median(plain), plainTarget: 1 / 0.8,
                      grdb: try GRDBPeerProcess.figure(grdb, "idiomatic.rowsPerSecond")),
            Measurement(label: "W1 insert, GRDB's fastest record path (diagnostic)", referenceLabel: "raw C",
                        medVault: Statistics.median(medVault), reference: nil, unit: .rowsPerSecond, target: nil,
                        note: "GRDB: db.cachedStatement(sql:) + setUncheckedArguments + execute(), one write per chunk")
                .with(plain: nil, grdb: try GRDBPeerProcess.figure(grdb, "fastest.rowsPerSecond")),
            Measurement(label: "W1 insert \(Int(perRecordRows)) rows, one create per record", referenceLabel: "raw C",
                        medVault: perRecordRows / medVaultOne.seconds, reference: nil, unit: .rowsPerSecond,
                        target: nil,
                        note: "one durable transaction per record on every side (C plain: autocommit "
                            + "statements; GRDB: one write { } per record); synchronous = FULL")
                .with(plain: perRecordRows / plainOne.seconds, plainTarget: 1 / 0.5,
                      grdb: try GRDBPeerProcess.figure(grdb, "perRecord.rowsPerSecond")),
            Measurement(label: "W1 peak RSS above baseline", referenceLabel: "raw C",
                        medVault: peak(medVaultPeaks), reference: peak(sameSQLPeaks), unit: .mebibytes, target: 32,
                        targetIsAbsolute: true,
                        note: peak(medVaultPeaks) == nil ? "VmHWM reset unavailable on this system"
                            : "VmHWM during the insert after a /proc/self/clear_refs reset, max over runs; "
                            + "the input arrays are allocated before the baseline"),
            Measurement(label: "W1 database file size after the load", referenceLabel: "raw C",
                        medVault: medVaultBytes / mib, reference: nil, unit: .mebibytes, target: nil,
                        note: "after a wal_checkpoint(TRUNCATE) and closing (database + WAL, the WAL empty); "
                            + "GRDB's file is unencrypted (no per-page IV and HMAC: 48 bytes of each 4 KiB page)")
                .with(plain: plainBytes / mib, plainTarget: 1.3,
                      grdb: try GRDBPeerProcess.figure(grdb, "fileBytes") / mib),
        ] + Self.breakdownRows(btrees)
    }

    /// The ten largest b-trees of MedVault's W1 file, then the rest together (diagnostic).
    static func breakdownRows(_ btrees: [(name: String, bytes: Double)]?) -> [Measurement] {
        guard let btrees, !btrees.isEmpty else { return [] }
        let total = btrees.reduce(0) { $0 + $1.bytes }
        let shown = btrees.prefix(10)
        let rest = ("every other b-tree (\(btrees.count - shown.count))", total - shown.reduce(0) { $0 + $1.bytes })
        return (Array(shown) + [rest]).map { name, bytes in
            Measurement(label: "W1 file by b-tree (diagnostic): \(name)", referenceLabel: "raw C",
                        medVault: bytes / 1_048_576, reference: nil, unit: .mebibytes, target: nil,
                        note: String(format: "%.1f %% of the decrypted copy's %.1f MiB", 100 * bytes / total,
                                     total / 1_048_576))
        }
    }

    /// Fails the run when a peer stored other row counts than MedVault.
    static func check(_ peer: String, _ counts: [String: Int], against expected: [String: Int]?) throws {
        guard let expected else { return }
        guard counts == expected else {
            throw BenchmarkError("W1: \(peer) stored \(counts.sorted { $0.key < $1.key }), "
                                 + "MedVault \(expected.sorted { $0.key < $1.key })")
        }
    }

    struct Outcome {
        var seconds: Double
        var peak: Double?
        var bytes: Double
        var counts: [String: Int]
        /// CPU seconds of the whole process during the timed part (MedVault sides only).
        var cpuSeconds: Double?
        /// The file by b-tree, when asked for (``FileBreakdown``).
        var btrees: [(name: String, bytes: Double)]?
    }

    /// Creates a vault in a fresh folder, loads `data` through `path` (timed), counts,
    /// locks and measures the file.
    private func insertThroughVault(_ data: ClinicData, _ path: MedVaultPath, changeLog: Bool = true,
                                    auditTrail: Bool = true, breakdown: Bool = false,
                                    context: BenchmarkContext) async throws -> Outcome {
        let folder = context.directory.appendingPathComponent("w1-vault")
        try? FileManager.default.removeItem(at: folder)
        var database = DatabaseConfiguration()
        database._changeLogDisabled = !changeLog
        database._auditTrailDisabled = !auditTrail
        let vault = try await Vault.create(
            at: folder, password: try Password("w1 contraseña"),
            options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0), database: database, clock: .fixed(ClinicData.stamp))).vault
        let chunks = data.order.chunks.map { chunk in
            let sessions = chunk.flatMap { data.order.sessionsOfPatient[$0] }
            return (Array(data.patients[chunk]), sessions.map { data.sessions[$0] }, sessions.map { data.diagnoses[$0] })
        }
        let (time, peak) = try await PeakMemory.peakAboveBaseline {
            try await Stopwatch.cpuAndWallSeconds { try await Self.insert(data, path, chunks: chunks, into: vault) }
        }
        let counts = [
            "patient": try await vault.patients.count(filter: .all), "session": try await vault.sessions.count(),
            "diagnosis": try await vault.diagnoses.count(),
        ]
        // Every side measures its file with an empty WAL (all pages in the database file).
        try await vault.database.checkpoint()
        let btrees = breakdown ? try await FileBreakdown.btrees(of: vault, context: context) : nil
        await vault.lock()
        return Outcome(seconds: time.wall, peak: peak, bytes: Self.fileBytes(VaultLayout(folder: folder).database),
                       counts: counts, cpuSeconds: time.cpu, btrees: btrees)
    }

    /// The timed part of the MedVault side: the app's calls, nothing else.
    private static func insert(_ data: ClinicData, _ path: MedVaultPath,
                               chunks: [([Patient], [ClinicalSession], [Diagnosis])], into vault: Vault) async throws {
        switch path {
        case .batchCalls:
            for (patients, sessions, diagnoses) in chunks {
                _ = try await vault.patients.create(patients)
                _ = try await vault.sessions.create(sessions)
                _ = try await vault.diagnoses.create(diagnoses)
            }
        case .unitOfWork:
            for (patients, sessions, diagnoses) in chunks {
                try await vault.write { tx in
                    _ = try tx.patients.create(patients)
                    _ = try tx.sessions.create(sessions)
                    _ = try tx.diagnoses.create(diagnoses)
                }
            }
        case .perRecord(let count):
            for patient in 0..<min(count, data.patients.count) {
                _ = try await vault.patients.create(data.patients[patient])
                for session in data.order.sessionsOfPatient[patient] {
                    _ = try await vault.sessions.create(data.sessions[session])
                    _ = try await vault.diagnoses.create(data.diagnoses[session])
                }
            }
        }
    }

    /// The same SQL through raw C, three transactions per chunk.
    private func insertSameSQL(_ data: ClinicData, fixture: ClinicFixture, context: BenchmarkContext,
                               key: [UInt8]) async throws -> (seconds: Double, peak: Double?) {
        let db = try fixture.create(at: context.databaseURL("w1-raw.db"), key: .raw(key))
        let (seconds, peak) = try await PeakMemory.peakAboveBaseline {
            try Stopwatch.seconds { try RawClinic.insertChunked(data, into: db) }
        }
        let count = try db.scalarInt64(Self.countSQL)
        guard count == Int64(data.rowCount + data.searchTokenCount) else {
            throw BenchmarkError("W1: C same SQL stored \(count ?? -1) rows")
        }
        return (seconds, peak)
    }

    /// The plain schema through raw C: chunks, or one record per transaction.
    private func insertPlain(_ data: ClinicData, perRecord: Int?, context: BenchmarkContext,
                             key: [UInt8]) throws -> Outcome {
        let url = context.databaseURL("w1-plain.db")
        var counts: [String: Int] = [:]
        let seconds: Double
        do {
            let plain = try PlainClinic(at: url, key: key, create: true)
            seconds = try Stopwatch.seconds {
                if let perRecord {
                    try plain.insertPerRecord(data.source, order: data.order, patients: perRecord)
                } else {
                    try plain.insertChunked(data.source, order: data.order)
                }
            }
            counts = try plain.counts()
            try plain.db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return Outcome(seconds: seconds, peak: nil, bytes: Self.fileBytes(url), counts: counts)
    }

    /// The database file plus its WAL, in bytes.
    static func fileBytes(_ url: URL) -> Double {
        ["", "-wal"].reduce(0) { total, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path + suffix)[.size] as? NSNumber)?
                .doubleValue ?? 0
            return total + size
        }
    }

    static let countSQL = """
        SELECT (SELECT count(*) FROM patient) + (SELECT count(*) FROM patient_search_token) \
        + (SELECT count(*) FROM clinical_session) + (SELECT count(*) FROM diagnosis)
        """
}
