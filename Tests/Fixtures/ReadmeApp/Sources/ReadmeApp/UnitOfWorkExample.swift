import Foundation
import MedVault

/// README.md, "Several records in one commit": the lines between the markers are the
/// README's block.
func unitOfWorkExample(vault: Vault) async throws {
    let depression = ICD11Snapshot(code: "6A70", title: "Single episode depressive disorder",
                                   titleEs: "Trastorno depresivo de episodio único",
                                   uri: "http://id.who.int/icd/entity/1563440232", releaseVersion: "2024-01")
    // README:begin
    let (ana, first) = try await vault.write { tx in
        let ana = try tx.patients.create(
            Patient(firstName: "Ana", lastName: "Ruiz", dateOfBirth: try CalendarDate(iso8601: "1990-01-02")))
        let first = try tx.sessions.create(ClinicalSession(patientID: ana.id, date: Date(), notes: "Primera consulta"))
        try tx.diagnoses.create(Diagnosis(sessionID: first.id, snapshot: depression, diagnosedAt: Date()))
        return (ana, first)                                       // one commit, or none of the three
    }
    // README:end
    let history = try await vault.sessions.history(of: ana.id, after: nil, limit: 20)
    guard history.entries.map(\.session) == [first], history.entries.first?.diagnoses.count == 1 else {
        throw ReadmeAppError("the unit-of-work example read back something else")
    }
}
