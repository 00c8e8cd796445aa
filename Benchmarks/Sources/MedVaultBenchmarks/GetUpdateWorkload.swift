import BenchmarkSupport
import Foundation
@_spi(Benchmarks) import MedVault
import MedVaultCore
import MedVaultKeys

/// W5 as an app calls it: `vault.patients.get(id)`, a new phone number, then
/// `vault.patients.update(patient)` (one durable transaction), against C plain (a
/// `SELECT` by id, then an autocommit `UPDATE … SET phone`) at `synchronous = FULL`
/// and NORMAL, and GRDB (`Patient.fetchOne(db, key:)` in `read`, `patient.update(db)`
/// in `write`) at FULL and NORMAL. The phone is searchable in MedVault, so its update
/// also rewrites the patient's search tokens; the plain schema has none to rewrite.
/// MedVault and the two C files alternate in blocks of 50 calls, rotating which goes
/// first; GRDB alternates its two files the same way in its own process. A second
/// vault, opened with the change log off (`DatabaseConfiguration._changeLogDisabled`,
/// `@_spi(Benchmarks)`), alternates with them: the log's cost in the same run; a third,
/// with the audit trail off (`DatabaseConfiguration._auditTrailDisabled`), the trail's.
/// Then the first vault runs the calls again with a `StatementProbe`: the per-call
/// breakdown (``ProbeBreakdown``).
struct GetUpdateWorkload: Workload {
    let id = "W5"
    let title = "get + update (new phone), durable, vs the peers at FULL and NORMAL"

    static let warmUps = 20

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let updates = context.scaled(2_000, minimum: 200)
        // The clinic's patients at full scale (10,000): the B-trees an update walks are a real clinic's.
        let data = ClinicData(patientCount: context.scaled(10_000, minimum: 1_000), sessionCount: 0, seed: context.seed)
        var rng = SplitMix64(seed: context.seed).fork(0x5755)
        let indexes = (0..<(updates + Self.warmUps)).map { _ in Int.random(in: 0..<data.patients.count, using: &rng) }

        let folder = context.directory.appendingPathComponent("w5-vault")
        let vault = try await Self.makeVault(folder, DatabaseConfiguration(), data)
        var logOff = DatabaseConfiguration()
        logOff._changeLogDisabled = true
        let vaultLogOff = try await Self.makeVault(context.directory.appendingPathComponent("w5-vault-log-off"),
                                                   logOff, data)
        var auditOff = DatabaseConfiguration()
        auditOff._auditTrailDisabled = true
        let vaultAuditOff = try await Self.makeVault(context.directory.appendingPathComponent("w5-vault-audit-off"),
                                                     auditOff, data)

        let key = context.databaseKey(salt: 0x57A5).bytes
        var plains: [PlainClinic] = []
        for synchronous in ["FULL", "NORMAL"] {
            let url = context.databaseURL("w5-plain-\(synchronous).db")
            try PlainClinic(at: url, key: key, create: true).insertChunked(data.source, order: data.order)
            plains.append(try PlainClinic(at: url, key: key, create: false, synchronous: synchronous))
        }

        context.log("W5: \(Self.warmUps) warm-up + \(updates) get + update per side, alternating blocks of 50")
        // Sides: 0 the vault, 1 and 2 C plain at FULL and NORMAL, 3 the log off, 4 the trail off.
        let vaults = [0: vault, 3: vaultLogOff, 4: vaultAuditOff]
        var latencies: [[Double]] = Array(repeating: [], count: 5)
        var start = 0
        var block = 0
        while start < indexes.count {
            let slice = start..<min(start + 50, indexes.count)
            for step in 0..<5 {
                let side = (block + step) % 5
                for call in slice {
                    let index = indexes[call]
                    let phone = PlainSchema.phone(call)
                    let seconds: Double
                    if let vault = vaults[side] {
                        let id = data.patients[index].id
                        seconds = try await Stopwatch.seconds {
                            var patient = try await vault.patients.get(id)
                            patient.phoneNumber = phone
                            _ = try await vault.patients.update(patient)
                        }
                    } else {
                        let plain = plains[side - 1]
                        let id = data.source.patients[index].id.bytes
                        seconds = try Stopwatch.seconds { try plain.getUpdate(id, phone: phone) }
                    }
                    if call >= Self.warmUps { latencies[side].append(seconds * 1e6) }
                }
            }
            start = slice.upperBound
            block += 1
        }
        let versions = try await vault.database.read { db in
            try db.fetchOne("SELECT sum(version) FROM patient") { $0.int64(at: 0) }
        }
        for vault in vaults.values { await vault.lock() }
        guard versions == Int64(data.patients.count + indexes.count) else {
            throw BenchmarkError("W5: MedVault stored \(versions ?? -1) versions, expected "
                                 + "\(data.patients.count + indexes.count)")
        }
        for plain in plains {
            let updated = try plain.db.scalarInt64("SELECT sum(updated_at - created_at) FROM patient")
            guard updated == Int64(indexes.count) else { throw BenchmarkError("W5: C plain stored \(updated ?? -1) updates") }
        }

        context.log("W5: \(updates) more calls on the same vault, probed (the per-call breakdown)")
        let ids = data.patients.map(\.id)
        let calls = indexes.count
        let breakdown = try await ProbeBreakdown.update(folder: folder, password: "w5 contraseña",
                                                         calls: updates) { vault, call in
            var patient = try await vault.patients.get(ids[indexes[call % calls]])
            patient.phoneNumber = PlainSchema.phone(calls + call) // not the phone W5 gave it
            _ = try await vault.patients.update(patient)
        }

        context.log("W5: GRDB peer")
        let grdb = try GRDBPeerProcess.run(PeerRequest(
            workload: .getUpdate, directory: context.directory.path, patientCount: data.patients.count,
            sessionsPerPatient: 0, seed: context.seed, patientIndexes: indexes))
        guard grdb.counts["updates"] == indexes.count else {
            throw BenchmarkError("W5: GRDB stored \(grdb.counts["updates"] ?? -1) updates, expected \(indexes.count)")
        }
        let label = "W5 patients.get + update (new phone)"
        return [
            Measurement(label: label + " p50, FULL (\(updates) calls)", referenceLabel: "raw C",
                        medVault: Statistics.p50(latencies[0]), reference: nil, unit: .microseconds, target: nil,
                        note: "MedVault always commits at synchronous = FULL; the peers' FULL lines compare the same "
                            + "durability, their NORMAL lines what an app could choose instead")
                .with(plain: Statistics.p50(latencies[1]), plainTarget: 1.5,
                      grdb: try GRDBPeerProcess.figure(grdb, "full.p50")),
            Measurement(label: "W5 change log cost: get + update p50 with the log vs without (trail off on both sides)",
                        referenceLabel: "MedVault, log off",
                        medVault: Statistics.p50(latencies[4]), reference: Statistics.p50(latencies[3]),
                        unit: .microseconds, target: 1.10,
                        note: "the vault with the audit trail off (the log on) against one opened with the "
                            + "@_spi(Benchmarks) switch DatabaseConfiguration._changeLogDisabled, which has no trail "
                            + "either (the trail is written from the log's append point), alternating in blocks of 50; "
                            + "the trail's own cost is the next line"),
            Measurement(label: "W5 audit trail cost: get + update p50 with the trail vs without",
                        referenceLabel: "MedVault, trail off",
                        medVault: Statistics.p50(latencies[0]), reference: Statistics.p50(latencies[4]),
                        unit: .microseconds, target: 1.15,
                        note: "the same calls on a third vault opened with the @_spi(Benchmarks) switch "
                            + "DatabaseConfiguration._auditTrailDisabled, alternating in blocks of 50"),
            Measurement(label: label + " p99, FULL (\(updates) calls)", referenceLabel: "raw C",
                        medVault: Statistics.p99(latencies[0]), reference: nil, unit: .microseconds, target: nil,
                        note: nil)
                .with(plain: Statistics.p99(latencies[1]), plainTarget: 3,
                      grdb: try GRDBPeerProcess.figure(grdb, "full.p99")),
            Measurement(label: label + " p99 ÷ its own p50, FULL", referenceLabel: "",
                        medVault: Statistics.p99(latencies[0]) / Statistics.p50(latencies[0]), reference: nil,
                        unit: .ratio, target: 3, targetIsAbsolute: true, note: nil),
            Measurement(label: label + " mean, FULL (\(updates) calls)", referenceLabel: "raw C",
                        medVault: Self.mean(latencies[0]), reference: nil, unit: .microseconds, target: nil,
                        note: "the whole time spent, tail included (checkpoint rounds, slow fsyncs), per call")
                .with(plain: Self.mean(latencies[1]), grdb: nil),
            Measurement(label: label + " p50, peers at NORMAL", referenceLabel: "raw C",
                        medVault: Statistics.p50(latencies[0]), reference: nil, unit: .microseconds, target: nil,
                        note: nil)
                .with(plain: Statistics.p50(latencies[2]), grdb: try GRDBPeerProcess.figure(grdb, "normal.p50")),
            Measurement(label: label + " p99, peers at NORMAL", referenceLabel: "raw C",
                        medVault: Statistics.p99(latencies[0]), reference: nil, unit: .microseconds, target: nil,
                        note: nil)
                .with(plain: Statistics.p99(latencies[2]), grdb: try GRDBPeerProcess.figure(grdb, "normal.p99")),
        ] + breakdown
    }

    /// A vault in `folder` (removed first) opened with `database`, holding `data`'s patients.
    private static func makeVault(_ folder: URL, _ database: DatabaseConfiguration, _ data: ClinicData) async throws -> Vault {
        try? FileManager.default.removeItem(at: folder)
        let options = Vault.Options(kdf: .fastForTestsOnly,
                                    passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0),
                                    database: database)
        let vault = try await Vault.create(at: folder, password: try Password("w5 contraseña"), options: options).vault
        _ = try await vault.patients.create(data.patients)
        return vault
    }

    static func mean(_ sample: [Double]) -> Double {
        sample.isEmpty ? .nan : sample.reduce(0, +) / Double(sample.count)
    }
}
