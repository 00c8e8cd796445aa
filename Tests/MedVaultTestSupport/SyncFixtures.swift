import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync
import MedVaultSyncWire
import Testing

/// Devices of one vault syncing through one in-memory server.
package struct SyncDevices {
    package let server: InMemorySyncTransport
    package let vaults: [Vault]
    package let engines: [SyncEngine]
    /// The first device's recovery key.
    package let recoveryKey: RecoveryKey

    /// `count` devices: the first creates and registers the vault, the others join it
    /// from the keyring the server holds, unlocked with the password.
    package static func make(_ count: Int, in dir: TemporaryDirectory, batchSize: Int = 200,
                             server: InMemorySyncTransport = InMemorySyncTransport()) async throws -> SyncDevices {
        let password = try VaultFixtures.password()
        let creation = try await Vault.create(at: dir.file("device-0"), password: password, options: VaultFixtures.options)
        let first = creation.vault
        let firstEngine = SyncEngine(vault: first, transport: server, batchSize: batchSize)
        try await firstEngine.register()
        var vaults = [first]
        var engines = [firstEngine]
        for n in 1..<max(count, 1) {
            let blob = try await server.keyring(as: try #require(await firstEngine.credentials()))
            let vault = try await Vault.join(at: dir.file("device-\(n)"), keyring: blob.keyring,
                                             syncSecret: try #require(try await firstEngine.syncSecret()), password: password,
                                             options: VaultFixtures.options)
            let engine = SyncEngine(vault: vault, transport: server, batchSize: batchSize)
            try await engine.join()
            vaults.append(vault)
            engines.append(engine)
        }
        return SyncDevices(server: server, vaults: vaults, engines: engines, recoveryKey: creation.recoveryKey)
    }

    /// Syncs every device in order, twice (the second round carries what the first
    /// applied to the devices before), and returns the results.
    @discardableResult
    package func syncAll(rounds: Int = 2) async throws -> [SyncResult] {
        var results: [SyncResult] = []
        for _ in 0..<rounds {
            for engine in engines { results.append(try await engine.sync()) }
        }
        return results
    }

    /// Every device's full export with one export date, as JSON (what must be equal).
    package func exports() async throws -> [Data] {
        var all: [Data] = []
        for vault in vaults { all.append(try await SyncFixtures.export(vault)) }
        return all
    }

    package func lockAll() async {
        for vault in vaults { await vault.lock() }
    }
}

package enum SyncFixtures {
    /// The code of the error `body` throws, or `nil` when it does not throw (an error that
    /// is not a `MedVaultError` is recorded as an issue).
    package static func errorCode(_ body: () async throws -> Void) async -> MedVaultError.Code? {
        do {
            try await body()
            return nil
        } catch let error as MedVaultError {
            return error.code
        } catch {
            Issue.record("not a MedVaultError: \(type(of: error))")
            return nil
        }
    }

    /// Every byte `server` was handed since `recordRequestBytes()`: each request body,
    /// and each pushed envelope's ciphertext and record key decoded from it (what a
    /// server stores), for the scans of what the server sees.
    package static func bytesSeen(by server: InMemorySyncTransport) async -> [Data] {
        let bodies = await server.recordedRequestBytes()
        var seen = bodies
        for body in bodies {
            if let push = try? SyncWireJSON.decoder().decode(SyncPushRequest.self, from: body) {
                for envelope in push.envelopes { seen += [envelope.ciphertext, envelope.recordKey] }
            }
        }
        return seen
    }

    /// The vault's full export (every patient's document), dated at 0, as JSON.
    package static func export(_ vault: Vault) async throws -> Data {
        let documents = try await vault.exportAllRecords().map { document in
            var copy = document
            copy.exportedAt = Date(millisecondsSince1970: 0)
            return copy
        }
        return try PatientRecordExport.encoder().encode(documents)
    }

    /// A patient with the marker in every free-text field (a phone number is validated).
    package static func markedPatient(_ tag: String = "") -> Patient {
        let marker = ClinicalFixtures.marker + tag
        return Patient(firstName: marker, lastName: marker, dateOfBirth: ClinicalFixtures.date("1980-05-17"),
                       biologicalSex: .female, nationalId: marker, email: marker + "@example.com",
                       phoneNumber: "+34 600 000 000", address: marker)
    }

    /// A patient with a session, a diagnosis, a medication, a schedule and a dose log.
    @discardableResult
    package static func addRecord(to vault: Vault, name: String = "Ana") async throws -> Patient {
        let patient = try await vault.patients.create(ClinicalFixtures.patient(name, "Ruiz"))
        var session = try await vault.sessions.create(ClinicalSession(
            patientID: patient.id, date: ClinicalFixtures.now, type: .video, durationMinutes: 45,
            notes: "notas", chiefComplaint: "motivo", treatmentPlan: "plan"))
        session.status = .completed
        session = try await vault.sessions.update(session)
        try await vault.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: ClinicalFixtures.snapshot,
                                                   severity: .moderate, clinicalNotes: "notas clínicas",
                                                   diagnosedAt: session.date))
        let medication = try await vault.medications.create(Medication(
            patientID: patient.id, name: "Sertralina", genericName: "sertraline", dosage: Dosage(amount: 1, unit: .tablets),
            frequency: .asNeeded, instructions: "con comida", startDate: ClinicalFixtures.date("2026-01-01")))
        _ = try await vault.medications.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8, minute: 30, label: "desayuno")],
            daysOfWeek: [.monday], timeZoneIdentifier: "Europe/Madrid"))
        _ = try await vault.medications.doseLogs.create(DoseLog(
            medicationID: medication.id, scheduledAt: ClinicalFixtures.now, status: .taken,
            takenAt: ClinicalFixtures.now.addingTimeInterval(60)))
        return patient
    }
}
