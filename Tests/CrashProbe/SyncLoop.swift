import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync

/// `CrashProbe sync-loop`: writes and syncs until killed, so the sync crash test can
/// kill it while it seals, pushes, pulls or applies.
func syncLoop(folder: String, serverFile: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    let server = try InMemorySyncTransport(persistingTo: URL(fileURLWithPath: serverFile))
    let engine = SyncEngine(vault: vault, transport: server, batchSize: 2)
    var number = 0
    while true {
        number += 1
        let patient = try await vault.patients.create(Patient(
            firstName: "Probe", lastName: "Sync \(number)", dateOfBirth: try CalendarDate(iso8601: "1980-01-01")))
        _ = try await vault.sessions.create(ClinicalSession(
            patientID: patient.id, date: Date(timeIntervalSince1970: 1_750_000_000), type: .video,
            durationMinutes: 45, notes: "notas", chiefComplaint: "motivo", treatmentPlan: "plan"))
        FileHandle.standardOutput.write(Data("created \(patient.id.uuidString)\n".utf8))
        _ = try await engine.sync()
        FileHandle.standardOutput.write(Data("synced\n".utf8))
    }
}
