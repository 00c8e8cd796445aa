import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync
import MedVaultSyncWire

/// The clone: a first device holds `patients` patients with `sessionsPerPatient`
/// completed sessions each, one diagnosis per session, and pushes them through the real
/// server (`SyncEngine` + `HTTPSyncTransport`); a new device joins from the keyring the
/// server holds and syncs everything. Timed: the push, and the new device's `sync()`
/// (pull over HTTP, open, apply). The reference: the same envelope rows copied straight
/// into PostgreSQL, 500 a transaction, as the server stores a push (the bound storage
/// sets on this machine).
struct CloneRun {
    let baseURL: URL
    let postgres: LoadPostgres
    let patients: Int
    let sessionsPerPatient: Int
    let log: @Sendable (String) -> Void

    struct Result: Sendable {
        var records = 0
        var loadSeconds = 0.0
        var pushSeconds = 0.0
        var cloneSeconds = 0.0
        var referenceSeconds = 0.0
        /// Peak resident memory the push (first seal included) added, in MiB; `nil` where
        /// it cannot be measured.
        var pushPeakMebibytes: Double?
    }

    func run() async throws -> Result {
        let folder = try LoadChild.temporaryFolder("clone")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let password = try Password("load contraseña")
        let options = Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))
        let transport = try HTTPSyncTransport(configuration: .init(baseURL: baseURL, timeout: .seconds(120)))
        var result = Result()

        let vault = try await Vault.create(at: URL(fileURLWithPath: folder + "/first"), password: password,
                                           options: options).vault
        log("clone: loading \(patients) patients, \(patients * sessionsPerPatient) sessions and diagnoses")
        result.loadSeconds = try await seconds { try await load(vault) }
        result.records = patients * (1 + 2 * sessionsPerPatient)
        let first = SyncEngine(vault: vault, transport: transport, batchSize: 500)
        try await first.register()
        log("clone: pushing")
        (result.pushSeconds, result.pushPeakMebibytes) = try await PeakResident.mebibytesAbove {
            try await seconds { _ = try await first.sync() }
        }
        log("clone: the direct-insert reference")
        // The push's own WAL written out first, so that its checkpoint is not timed here.
        _ = try postgres.psql("CHECKPOINT")
        result.referenceSeconds = try await seconds { try directInsert(vaultID: vault.vaultID) }

        guard let credentials = try await first.credentials() else { throw LoadError("the first device did not register") }
        let keyring = try await transport.keyring(as: credentials)
        guard let secret = try await first.syncSecret() else { throw LoadError("the first device has no sync secret") }
        let clone = try await Vault.join(at: URL(fileURLWithPath: folder + "/clone"), keyring: keyring.keyring,
                                         syncSecret: secret, password: password, options: options)
        let engine = SyncEngine(vault: clone, transport: transport, batchSize: 500)
        try await engine.join()
        log("clone: cloning")
        var synced = SyncResult()
        result.cloneSeconds = try await seconds { synced = try await engine.sync() }
        let counts = [try await clone.patients.count(filter: .all), try await clone.sessions.count(),
                      try await clone.diagnoses.count()]
        await vault.lock()
        await clone.lock()
        let expected = [patients, patients * sessionsPerPatient, patients * sessionsPerPatient]
        guard counts == expected, synced.errors.isEmpty else {
            throw LoadError("the clone holds \(counts) rows (\(synced.errors.count) refused envelopes), expected \(expected)")
        }
        return result
    }

    /// Copies the vault's envelope rows into a table shaped as `envelopes` (its indexes,
    /// not its foreign keys), 500 rows a committed transaction: what PostgreSQL alone
    /// takes to store what the push stored.
    private func directInsert(vaultID: UUID) throws {
        // Three commands: a DO block commits only outside a transaction block, and psql
        // runs the statements of one command in one.
        _ = try postgres.psql("DROP TABLE IF EXISTS reference_envelopes")
        _ = try postgres.psql(
            "CREATE TABLE reference_envelopes (LIKE envelopes INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)")
        _ = try postgres.psql("""
            DO $$
            DECLARE
                done bigint := 0;
                last bigint;
            BEGIN
                SELECT coalesce(max(sequence), 0) INTO last FROM envelopes WHERE vault_id = '\(vaultID)';
                WHILE done < last LOOP
                    -- EXECUTE: a plan for these bounds, not PL/pgSQL's generic one. ORDER BY
                    -- keeps it on the primary key, as the server's reads: with statistics
                    -- from before the push, the planner otherwise read the whole vault
                    -- through the other unique index for each 500 rows (38 s, not 4 s).
                    EXECUTE format('INSERT INTO reference_envelopes SELECT * FROM envelopes '
                                   'WHERE vault_id = %L AND sequence > %s AND sequence <= %s ORDER BY sequence',
                                   '\(vaultID)', done, done + 500);
                    COMMIT;
                    done := done + 500;
                END LOOP;
            END
            $$
            """)
        _ = try postgres.psql("DROP TABLE reference_envelopes")
    }

    /// The dataset, written with the batch calls, 500 patients (and their rows) at a time.
    private func load(_ vault: Vault) async throws {
        let stamp = Date(timeIntervalSince1970: 1_704_067_200)
        let born = try CalendarDate(iso8601: "1980-01-01")
        let snapshot = ICD11Snapshot(code: "6A70", title: "Single episode depressive disorder",
                                     titleEs: "Trastorno depresivo de episodio único",
                                     uri: "http://id.who.int/icd/entity/1563440232", releaseVersion: "2024-01")
        for chunkStart in stride(from: 0, to: patients, by: 500) {
            let range = chunkStart..<min(chunkStart + 500, patients)
            let people = range.map { Patient(firstName: "Nombre \($0)", lastName: "Apellido \($0 % 997)", dateOfBirth: born) }
            var sessions: [ClinicalSession] = []
            for (offset, patient) in people.enumerated() {
                for index in 0..<sessionsPerPatient {
                    let date = stamp.addingTimeInterval(Double((range.lowerBound + offset) * sessionsPerPatient + index) * 60)
                    sessions.append(ClinicalSession(
                        patientID: patient.id, date: date, durationMinutes: 50, status: .completed,
                        notes: "Sesión \(index): el paciente refiere mejoría del sueño y menor ansiedad."))
                }
            }
            _ = try await vault.patients.create(people)
            _ = try await vault.sessions.create(sessions)
            _ = try await vault.diagnoses.create(sessions.map {
                Diagnosis(sessionID: $0.id, snapshot: snapshot, severity: .mild, diagnosedAt: $0.date)
            })
        }
    }
}

/// Wall-clock seconds `body` takes.
func seconds(_ body: () async throws -> Void) async throws -> Double {
    let start = ContinuousClock.now
    try await body()
    return milliseconds(since: start) / 1_000
}
