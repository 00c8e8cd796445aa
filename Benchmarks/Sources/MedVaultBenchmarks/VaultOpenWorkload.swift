import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// W2 as an app calls it: `Vault.open(at:secretStore:)` (a platform slot, no Argon2)
/// and a first `patients.count(filter: .all)`, against the peers' open and first query:
/// C plain (`sqlite3_open_v2`, the raw `x'…'` key, MedVault's cipher settings, WAL,
/// then `SELECT count(*)`) and GRDB (a `DatabaseQueue` and a `DatabasePool`, then
/// `Patient.fetchCount`). The vault does more on purpose: the keyring read and unwrap,
/// the folder and file checks, the presence and keyring locks, the schema check; the
/// ratio is their price. Closing is not timed; the figure is the median. Then the same
/// opens again with a `StatementProbe`: where an open's time goes (``ProbeBreakdown``).
struct VaultOpenWorkload: Workload {
    let id = "W2"
    let title = "Vault.open(secretStore:) + first query vs the peers"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let iterations = context.scaled(50, minimum: 11)
        let warmUps = 3
        let patientCount = context.scaled(10_000, minimum: 200)
        let data = ClinicData(patientCount: patientCount, sessionCount: 0, seed: context.seed)
        let folder = context.directory.appendingPathComponent("w2-vault")
        try? FileManager.default.removeItem(at: folder)
        let store = InMemorySecretStore()
        let created = try await Vault.create(at: folder, password: try Password("w2 contraseña"),
                                             options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
        _ = try await created.vault.addPlatformSlot(store: store)
        _ = try await created.vault.patients.create(data.patients)
        await created.vault.lock()

        let key = context.databaseKey(salt: 0x57A2).bytes
        let plainURL = context.databaseURL("w2-plain.db")
        do {
            let plain = try PlainClinic(at: plainURL, key: key, create: true)
            try plain.insertChunked(data.source, order: data.order)
        }

        var medVault: [Double] = []
        var plain: [Double] = []
        context.log("W2: \(warmUps) warm-up + \(iterations) opens per side of \(patientCount) patients")
        for iteration in 0..<(warmUps + iterations) {
            for side in (iteration.isMultiple(of: 2) ? [0, 1] : [1, 0]) {
                if side == 0 {
                    var count = 0
                    var vault: Vault?
                    let seconds = try await Stopwatch.seconds {
                        let opened = try await Vault.open(at: folder, secretStore: store)
                        vault = opened
                        count = try await opened.patients.count(filter: .all)
                    }
                    await vault?.lock()
                    guard count == patientCount else { throw BenchmarkError("W2: the vault counted \(count)") }
                    if iteration >= warmUps { medVault.append(seconds * 1_000) }
                } else {
                    var count: Int64 = 0
                    var connection: RawSQLCipher?
                    let seconds = try Stopwatch.seconds {
                        let db = try RawSQLCipher(path: plainURL.path, key: .raw(key))
                        connection = db
                        count = try db.scalarInt64(PlainSchema.countPatients) ?? -1
                    }
                    withExtendedLifetime(connection) {} // closed here, outside the timing
                    guard count == Int64(patientCount) else { throw BenchmarkError("W2: C plain counted \(count)") }
                    if iteration >= warmUps { plain.append(seconds * 1_000) }
                }
            }
        }

        context.log("W2: \(iterations) more opens, probed (the per-open breakdown)")
        let breakdown = try await ProbeBreakdown.open(folder: folder, store: store, patients: patientCount,
                                                      opens: iterations)

        context.log("W2: GRDB peer")
        let grdb = try GRDBPeerProcess.run(PeerRequest(
            workload: .open, directory: context.directory.path, patientCount: patientCount, sessionsPerPatient: 0,
            seed: context.seed, iterations: iterations))
        guard grdb.counts["firstQuery"] == patientCount else {
            throw BenchmarkError("W2: GRDB counted \(grdb.counts["firstQuery"] ?? -1), MedVault \(patientCount)")
        }
        let label = "W2 Vault.open(secretStore:) + patients.count() (median of \(iterations))"
        return [
            Measurement(label: label, referenceLabel: "raw C", medVault: Statistics.median(medVault), reference: nil,
                        unit: .milliseconds, target: nil,
                        note: "C plain: open + raw key + cipher settings + WAL + first count; "
                            + "GRDB: DatabaseQueue(path:) + fetchCount")
                .with(plain: Statistics.median(plain), plainTarget: 1.5,
                      grdb: try GRDBPeerProcess.figure(grdb, "queue.ms")),
            Measurement(label: "W2 same, GRDB with a DatabasePool", referenceLabel: "raw C",
                        medVault: Statistics.median(medVault), reference: nil, unit: .milliseconds, target: nil,
                        note: nil)
                .with(plain: nil, grdb: try GRDBPeerProcess.figure(grdb, "pool.ms")),
        ] + breakdown
    }
}
