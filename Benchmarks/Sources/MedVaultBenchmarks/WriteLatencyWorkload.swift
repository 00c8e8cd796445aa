import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// W5 — write latency: single-patient updates through `patients.update`, each its
/// own durable transaction (`synchronous = FULL`: one WAL fsync per commit).
///
/// MedVault: `patients.update(patient)` (validation, a read of the stored row for the
/// version check, the `UPDATE`, commit; the address is not searchable, so the search
/// index is left alone once the tokens are compared). Raw C: the same
/// `BEGIN IMMEDIATE`, `SELECT` by id (its columns copied out, the version compared),
/// `UPDATE` and `COMMIT`, statements prepared once. Each side has its own file
/// with the same patients; the sides alternate in blocks of 50 updates (the side that
/// starts alternates too), so a slow stretch of the disk hits both.
struct WriteLatencyWorkload: Workload {
    let id = "W5"
    let title = "single-patient durable update latency"

    static let patientCount = 1_000
    static let blockSize = 50

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let updates = context.scaled(2_000, minimum: 200)
        let warmUps = 20
        let key = context.databaseKey(salt: 5)
        let data = ClinicData(patientCount: Self.patientCount, sessionCount: 0, seed: context.seed)
        let fixture = try await ClinicFixture.capture(in: context)
        let medVaultURL = context.databaseURL("w5-medvault.db")
        try fixture.build(at: medVaultURL, key: .raw(key.bytes), data: data)
        try fixture.build(at: context.databaseURL("w5-raw.db"), key: .raw(key.bytes), data: data)
        var rng = SplitMix64(seed: context.seed).fork(0x5735)
        let targets = (0..<(updates + warmUps)).map { _ in Int.random(in: 0..<data.patients.count, using: &rng) }

        let pool = try await VaultDatabase.open(at: medVaultURL, key: key.secure, mode: .openExisting,
                                               migrator: MedVaultSchema.migrator, keyIsAuthenticated: true)
        let patients = SQLCipherPatientRepository(pool: pool, clock: .fixed(ClinicData.stamp))
        var current = data.patients
        let raw = try RawSQLCipher(path: context.directory.appendingPathComponent("w5-raw.db").path,
                                   key: .raw(key.bytes))
        let begin = try raw.prepare("BEGIN IMMEDIATE")
        let select = try raw.prepare(ClinicSQL.selectPatientByID)
        let update = try raw.prepare(ClinicSQL.updatePatient)
        let commit = try raw.prepare("COMMIT")
        var rawVersions = [Int64](repeating: 1, count: data.patients.count)
        let stampMS = ClinicData.stamp.millisecondsSince1970

        context.log("W5: \(warmUps) warm-up + \(updates) updates per side, alternating blocks of \(Self.blockSize)")
        var medVault: [Double] = []
        var reference: [Double] = []
        var next = 0
        var block = 0
        while next < targets.count {
            let indexes = Array(targets[next..<min(next + Self.blockSize, targets.count)])
            for side in (block.isMultiple(of: 2) ? [0, 1] : [1, 0]) {
                for (offset, index) in indexes.enumerated() {
                    let address = "Calle Mayor \(next + offset), 28013 Madrid"
                    let seconds: Double
                    if side == 0 {
                        var patient = current[index]
                        patient.address = address
                        seconds = try await Stopwatch.seconds {
                            current[index] = try await patients.update(patient)
                        }
                    } else {
                        let p = data.patients[index]
                        let sortKey = data.sortKeys[index]
                        let expected = rawVersions[index]
                        seconds = try Stopwatch.seconds {
                            try begin.run()
                            try select.bind(1, bytes: p.id.bytes)
                            guard try select.step() else { throw BenchmarkError("W5: raw row missing") }
                            let rowid = select.int64(at: 0)
                            let stored = RawClinic.patient(select, from: 1)
                            select.reset()
                            guard stored.version == expected else { throw BenchmarkError("W5: raw version conflict") }
                            try update.bind(1, p.firstName)
                            try update.bind(2, p.lastName)
                            try update.bind(3, sortKey)
                            try update.bind(4, p.dateOfBirth.iso8601)
                            try update.bind(5, p.biologicalSex?.rawValue)
                            try update.bind(6, p.nationalId)
                            try update.bind(7, p.email)
                            try update.bind(8, p.phoneNumber)
                            try update.bind(9, address)
                            try update.bind(10, stampMS)
                            try update.bind(11, expected + 1)
                            try update.bind(12, rowid)
                            try update.run()
                            try commit.run()
                        }
                        rawVersions[index] = expected + 1
                    }
                    guard next + offset >= warmUps else { continue }
                    if side == 0 { medVault.append(seconds * 1e6) } else { reference.append(seconds * 1e6) }
                }
            }
            next += indexes.count
            block += 1
        }
        await pool.close()
        key.secure.wipe()

        let expectedTotal = Int64(data.patients.count + targets.count)
        let medVaultTotal = try RawSQLCipher(path: medVaultURL.path, key: .raw(key.bytes), role: .reader)
            .scalarInt64("SELECT sum(version) FROM patient")
        let rawTotal = try raw.scalarInt64("SELECT sum(version) FROM patient")
        guard medVaultTotal == expectedTotal, rawTotal == expectedTotal else {
            throw BenchmarkError("W5: expected version sum \(expectedTotal), found \(medVaultTotal ?? -1) and \(rawTotal ?? -1)")
        }

        let label = "W5 patients.update, durable"
        return [
            Measurement(label: label + " p50 (\(updates) updates)", referenceLabel: "raw C",
                        medVault: Statistics.p50(medVault), reference: Statistics.p50(reference),
                        unit: .microseconds, target: 1.2, note: "dominated by the commit's fsync on both sides"),
            Measurement(label: label + " p99 (\(updates) updates)", referenceLabel: "raw C",
                        medVault: Statistics.p99(medVault), reference: Statistics.p99(reference),
                        unit: .microseconds, target: nil, note: nil),
        ]
    }
}
