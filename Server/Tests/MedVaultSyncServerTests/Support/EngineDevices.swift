import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync
import MedVaultSyncWire
import Testing

/// One device: a real vault on disk and the sync engine that syncs it through the
/// server over HTTP (`HTTPSyncTransport`).
struct EngineDevice: Sendable {
    let vault: Vault
    let engine: SyncEngine

    /// This device's id at the server (after register or join).
    func credentials() async throws -> SyncCredentials {
        try #require(try await engine.credentials())
    }

    /// The vault's full export (every patient's document) dated at 0, as JSON: what must
    /// be equal on devices that converged.
    func export() async throws -> Data {
        let documents = try await vault.exportAllRecords().map { document in
            var copy = document
            copy.exportedAt = Date(timeIntervalSince1970: 0)
            return copy
        }
        return try PatientRecordExport.encoder().encode(documents)
    }

    /// Syncs until a sync succeeds, for a device whose server comes and goes: what an app
    /// does on its next timer or network change. Returns the result and how many syncs
    /// failed before it; throws the last error after `attempts`, or at once an error a
    /// device would not retry.
    @discardableResult
    func syncRetrying(attempts: Int = 300, pause: Duration = .milliseconds(100)) async throws
        -> (result: SyncResult, failures: Int) {
        for failures in 0..<(attempts - 1) {
            do {
                return (try await engine.sync(), failures)
            } catch let error as MedVaultError where Self.passing.contains(error.code) {
                try await Task.sleep(for: pause)
            }
        }
        return (try await engine.sync(), attempts - 1)
    }

    /// What a device retries later: the server or its database is away for a while.
    static let passing: Set<MedVaultError.Code> = [.offline, .timeout, .serverError, .rateLimited]
}

/// The devices of one test's vaults, in a temporary folder that is removed afterwards
/// with every vault locked (also when the test fails).
actor EngineDevices {
    /// The vault password of every device (a marker: no request or database may hold it).
    static let password = "contraseña ZQXPASSWORDJ7"

    let folder: URL
    private var vaults: [Vault] = []
    /// The first device's recovery key, by vault id.
    private(set) var recoveryKeys: [UUID: RecoveryKey] = [:]

    private init(folder: URL) {
        self.folder = folder
    }

    static func with<T: Sendable>(_ body: (EngineDevices) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("medvault-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let devices = EngineDevices(folder: folder)
        do {
            let result = try await body(devices)
            await devices.closeAll()
            return result
        } catch {
            await devices.closeAll()
            throw error
        }
    }

    /// A new vault on a first device, registered at the server.
    func register(_ transport: HTTPSyncTransport, batchSize: Int = 200) async throws -> EngineDevice {
        let creation = try await Vault.create(at: nextFolder(), password: try Password(Self.password),
                                              options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
        vaults.append(creation.vault)
        recoveryKeys[creation.vault.vaultID] = creation.recoveryKey
        let device = EngineDevice(vault: creation.vault,
                                  engine: SyncEngine(vault: creation.vault, transport: transport, batchSize: batchSize))
        try await device.engine.register()
        return device
    }

    /// A new device of `existing`'s vault: the keyring comes from the server, the
    /// password opens it, and the engine joins with the vault's device-signing key.
    ///
    /// - Parameter clock: The new device's clock (its horizon for clocks of other devices).
    func join(_ existing: EngineDevice, _ transport: HTTPSyncTransport, batchSize: Int = 200,
              clock: RecordClock = .system) async throws -> EngineDevice {
        let blob = try await transport.keyring(as: try await existing.credentials())
        let vault = try await Vault.join(at: nextFolder(), keyring: blob.keyring,
                                         syncSecret: try #require(try await existing.engine.syncSecret()),
                                         password: try Password(Self.password),
                                         options: Vault.Options(kdf: .fastForTestsOnly,
                                                                passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0),
                                                                clock: clock))
        vaults.append(vault)
        let device = EngineDevice(vault: vault, engine: SyncEngine(vault: vault, transport: transport, batchSize: batchSize))
        try await device.engine.join()
        return device
    }

    private func nextFolder() -> URL {
        folder.appendingPathComponent("device-\(vaults.count)")
    }

    private func closeAll() async {
        for vault in vaults { await vault.lock() }
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Syncs every device in order, `rounds` times: two rounds carry any device's change to
/// every other.
func syncAll(_ devices: [EngineDevice], rounds: Int = 2) async throws {
    for _ in 0..<rounds {
        for device in devices { _ = try await device.engine.sync() }
    }
}

/// The devices' exports; records an issue unless all are equal and non-empty.
func expectConverged(_ devices: [EngineDevice], patients: Int? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
    var exports: [Data] = []
    for device in devices { exports.append(try await device.export()) }
    #expect(Set(exports).count == 1, "every device holds the same records", sourceLocation: sourceLocation)
    if let patients {
        let count = try await devices[0].vault.exportAllRecords().count
        #expect(count == patients, "patients on the devices", sourceLocation: sourceLocation)
    }
}

/// Clinical records built through the public API only.
enum EngineRecords {
    static let snapshot = ICD11Snapshot(
        code: "6A70", title: "Single episode depressive disorder",
        titleEs: "Trastorno depresivo de episodio único",
        uri: "http://id.who.int/icd/entity/1563440232", releaseVersion: "2024-01")

    static let now = Date(timeIntervalSince1970: 1_749_981_600)

    static func date(_ iso: String) throws -> CalendarDate {
        try CalendarDate(iso8601: iso)
    }

    /// A patient with a completed session, a diagnosis, a medication, a schedule and a
    /// dose log, `marker` in every free-text field (the phone number is validated).
    @discardableResult
    static func add(to vault: Vault, marker: String) async throws -> Patient {
        let born = try date("1980-05-17")
        let started = try date("2026-01-01")
        return try await vault.write { tx in
            let patient = try tx.patients.create(Patient(
                firstName: marker + " first", lastName: marker + " last", dateOfBirth: born, biologicalSex: .female,
                nationalId: marker + "-id", email: marker.lowercased() + "@example.com", phoneNumber: "+34 600 000 000",
                address: marker + " street"))
            let session = try tx.sessions.create(ClinicalSession(
                patientID: patient.id, date: now, type: .video, durationMinutes: 45, status: .completed,
                notes: marker + " notes", chiefComplaint: marker + " complaint", treatmentPlan: marker + " plan"))
            try tx.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: snapshot, severity: .moderate,
                                              clinicalNotes: marker + " clinical", diagnosedAt: now))
            let medication = try tx.medications.create(Medication(
                patientID: patient.id, name: marker + " drug", genericName: marker + " generic",
                dosage: Dosage(amount: 1, unit: .tablets), frequency: .asNeeded,
                instructions: marker + " instructions", startDate: started))
            _ = try tx.medications.schedules.create(MedicationSchedule(
                medicationID: medication.id, times: [TimeOfDay(hour: 8, minute: 30, label: marker + " label")],
                daysOfWeek: [.monday], timeZoneIdentifier: "Europe/Madrid"))
            _ = try tx.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: now, status: .taken, takenAt: now.addingTimeInterval(60)))
            return patient
        }
    }

    /// `count` bare patients in one unit of work (`count` changes).
    static func addPatients(_ count: Int, to vault: Vault, prefix: String) async throws {
        let born = try date("1975-03-02")
        try await vault.write { tx in
            for index in 0..<count {
                try tx.patients.create(Patient(firstName: "\(prefix) \(index)", lastName: prefix, dateOfBirth: born))
            }
        }
    }
}
