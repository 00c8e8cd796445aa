import Foundation
import MedVault

/// README.md, "A short example": the lines between the markers are the README's block,
/// without its `import` lines (they are at the top of this file).
func clinicalRecordsExample(folder: URL) async throws {
    // README:begin
    let created = try await Vault.create(at: folder, password: Password("correct horse battery staple"))
    print("Recovery key (show once): \(created.recoveryKey.formatted)")
    let vault = created.vault

    let jose = try await vault.patients.create(
        Patient(firstName: "José", lastName: "García Núñez", dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
    let session = try await vault.sessions.create(
        ClinicalSession(patientID: jose.id, date: Date(), type: .video, notes: "Primera consulta"))
    try await vault.diagnoses.create(Diagnosis(
        sessionID: session.id,
        snapshot: ICD11Snapshot(code: "6A70", title: "Single episode depressive disorder",
                                titleEs: "Trastorno depresivo de episodio único",
                                uri: "http://id.who.int/icd/entity/1563440232", releaseVersion: "2024-01"),
        diagnosedAt: Date()))

    let found = try await vault.patients.search("jose gar")          // accent- and case-insensitive
    let history = try await vault.sessions.history(of: jose.id, after: nil, limit: 20)
    await vault.lock()                                                // zeroes the keys

    let reopened = try await Vault.open(at: folder, password: Password("correct horse battery staple"))
    // README:end
    guard found.map(\.id) == [jose.id], history.entries.count == 1 else {
        throw ReadmeAppError("the clinical example read back something else")
    }
    await reopened.lock()
}
