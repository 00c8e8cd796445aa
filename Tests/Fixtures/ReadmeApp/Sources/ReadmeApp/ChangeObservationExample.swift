import Foundation
import MedVault

/// README.md, "Change log and observation": the lines between the markers are the README's block.
func changeObservationExample(vault: Vault) async throws {
    // README:begin
    // A SwiftUI-style screen model: its list refreshes itself after every commit touching patients.
    @MainActor final class PatientListModel {
        var patients: [Patient] = []

        // In a view: .task { try? await model.observe(vault) } — leaving the screen cancels it.
        func observe(_ vault: Vault) async throws {
            for try await page in vault.observe(tables: [.patient], { try await $0.patients.list() }) {
                patients = page.patients
            }
        }
    }
    let model = PatientListModel()
    let observation = Task { try await model.observe(vault) }
    try await vault.patients.create(
        Patient(firstName: "Lucía", lastName: "Pérez", dateOfBirth: try CalendarDate(iso8601: "1991-04-12")))
    // … the model lists Lucía without re-querying; lock() or cancelling ends the observation.

    // Sync and audit read the change log: table, record id, operation, version — never a value.
    var cursor: ChangeCursor? = nil                   // Codable: persist it between runs
    let page = try await vault.changes(after: cursor, limit: 500)
    cursor = page.next
    // README:end
    let deadline = Date().addingTimeInterval(30)
    while await model.patients.contains(where: { $0.firstName == "Lucía" }) == false, Date() < deadline {
        try await Task.sleep(for: .milliseconds(10))
    }
    observation.cancel()
    guard await model.patients.contains(where: { $0.firstName == "Lucía" }),
          page.entries.contains(where: { $0.table == .patient && $0.operation == .insert }), cursor != nil else {
        throw ReadmeAppError("the observation example saw something else")
    }
}
