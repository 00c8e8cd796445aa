import Foundation
import MedVault

/// README.md, "Testing and previews": the lines between the markers are the README's block.
func inMemoryVaultExample() async throws {
    // README:begin
    let vault = InMemoryVault()                       // same repositories and rules, no file, no key
    let ana = try await vault.patients.create(
        Patient(firstName: "Ana", lastName: "Ruiz", dateOfBirth: try CalendarDate(iso8601: "1990-01-02")))
    try await vault.sessions.create(ClinicalSession(patientID: ana.id, date: Date()))
    let sessionCount = try await vault.sessions.count()   // 1
    // README:end
    guard sessionCount == 1 else { throw ReadmeAppError("the in-memory example counted something else") }
}
