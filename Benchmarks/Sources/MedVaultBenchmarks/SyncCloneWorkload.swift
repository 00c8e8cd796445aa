import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync
import MedVaultSyncWire

/// Y — sync (#16): a full clone of the clinic to a new device, and one change's trip.
///
/// * Clone: the first device holds the W1 dataset (10,000 patients, 100,000 sessions,
///   100,000 diagnoses × scale, written with W1's batch calls) and pushes it through an
///   `InMemorySyncTransport`; a second device joins from the keyring and pulls and
///   applies everything. Timed: the second device's `sync()` — pull, open, apply — in
///   records per second, against W1's batch-insert rate measured in the same run on the
///   same data (target: at least half of it, a ratio ≤ 2.0 here since lower is better
///   for the "W1 / clone" ratio printed).
/// * Trip: one patient update on the first device, its `sync()` (push) and the second
///   device's `sync()` (pull + apply), p50 over many changes.
///
/// The in-memory transport keeps the server out of the figure: this is the engine's
/// cost (sealing, opening, applying), the part every transport pays.
struct SyncCloneWorkload: Workload {
    let id = "Y"
    let title = "sync: full clone to a new device, one change's push + pull + apply"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let data = ClinicData(patientCount: context.scaled(10_000, minimum: 100),
                              sessionCount: context.scaled(100_000, minimum: 1_000), seed: context.seed)
        let trips = context.scaled(300, minimum: 50)
        let password = try Password("sync contraseña")
        let options = Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))
        let first = context.directory.appendingPathComponent("y-first")
        let second = context.directory.appendingPathComponent("y-second")
        for folder in [first, second] { try? FileManager.default.removeItem(at: folder) }

        context.log("Y: loading \(data.rowCount) rows on the first device")
        let vault = try await Vault.create(at: first, password: password, options: options).vault
        let insertSeconds = try await Stopwatch.seconds {
            for chunk in data.order.chunks {
                let sessions = chunk.flatMap { data.order.sessionsOfPatient[$0] }
                _ = try await vault.patients.create(Array(data.patients[chunk]))
                _ = try await vault.sessions.create(sessions.map { data.sessions[$0] })
                _ = try await vault.diagnoses.create(sessions.map { data.diagnoses[$0] })
            }
        }
        let server = InMemorySyncTransport()
        let firstEngine = SyncEngine(vault: vault, transport: server, batchSize: 500)
        try await firstEngine.register()
        context.log("Y: pushing")
        let pushSeconds = try await Stopwatch.seconds { _ = try await firstEngine.sync() }

        guard let credentials = try await firstEngine.credentials() else {
            throw BenchmarkError("Y: the first device did not register")
        }
        let keyring = try await server.keyring(as: credentials)
        guard let secret = try await firstEngine.syncSecret() else {
            throw BenchmarkError("Y: the first device has no sync secret")
        }
        let clone = try await Vault.join(at: second, keyring: keyring.keyring, syncSecret: secret, password: password,
                                         options: options)
        let cloneEngine = SyncEngine(vault: clone, transport: server, batchSize: 500)
        try await cloneEngine.join()
        context.log("Y: cloning")
        var result = SyncResult()
        let cloneSeconds = try await Stopwatch.seconds { result = try await cloneEngine.sync() }
        let counts = (try await clone.patients.count(filter: .all), try await clone.sessions.count(),
                      try await clone.diagnoses.count())
        guard counts == (data.patients.count, data.sessions.count, data.diagnoses.count), result.errors.isEmpty else {
            throw BenchmarkError("Y: the clone holds \(counts) rows with \(result.errors.count) refused envelopes, "
                                 + "expected \(data.patients.count), \(data.sessions.count), \(data.diagnoses.count)")
        }

        context.log("Y: \(trips) single-change trips")
        var tripMicroseconds: [Double] = []
        for index in 0..<trips {
            var patient = try await vault.patients.get(data.patients[index % data.patients.count].id)
            patient.phoneNumber = "+34 600 \(100_000 + index)"
            let saved = try await vault.patients.update(patient)
            let seconds = try await Stopwatch.seconds {
                _ = try await firstEngine.sync()
                _ = try await cloneEngine.sync()
            }
            guard try await clone.patients.get(saved.id).version == saved.version else {
                throw BenchmarkError("Y: a change did not reach the second device")
            }
            tripMicroseconds.append(seconds * 1_000_000)
        }
        await vault.lock()
        await clone.lock()

        let rows = Double(data.rowCount)
        return [
            Measurement(label: "Y clone \(data.rowCount) records to a new device (pull + open + apply)",
                        referenceLabel: "W1 batch insert", medVault: rows / cloneSeconds,
                        reference: rows / insertSeconds, unit: .rowsPerSecond, target: 2.0,
                        note: String(format: "in-memory transport; pages of 500, applied 5,000 a transaction; the first device's push of the same "
                                     + "records: %.0f records/s", rows / pushSeconds)),
            Measurement(label: "Y one change: push + pull + apply, p50 (\(trips) changes)", referenceLabel: "",
                        medVault: Statistics.p50(tripMicroseconds), reference: nil, unit: .microseconds, target: nil,
                        note: String(format: "a patient update on the first device, its sync(), then the second "
                                     + "device's sync(); p99 %.0f µs", Statistics.p99(tripMicroseconds))),
        ]
    }
}
