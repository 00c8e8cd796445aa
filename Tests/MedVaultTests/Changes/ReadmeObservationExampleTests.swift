import Foundation
import MedVault
import MedVaultTestSupport
import Testing

/// The README's "Change log and observation" block (Tests/Fixtures/ReadmeApp's
/// ChangeObservationExample.swift), compiled and run here with the fast test KDF.
@Suite("README example: change log and observation")
struct ReadmeObservationExampleTests {
    @Test("The observation example runs as written: the model sees the new patient, the log its insert")
    func observationExample() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.file("meds"), password: Password("correct horse battery staple"),
                                               options: Vault.Options(kdf: .fastForTestsOnly)).vault
            // --- README: Change log and observation ---
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
            // --- end ---
            let deadline = Date().addingTimeInterval(30)
            while await model.patients.contains(where: { $0.firstName == "Lucía" }) == false, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(await model.patients.map(\.firstName) == ["Lucía"])
            #expect(page.entries.map(\.operation) == [.insert])
            #expect(cursor == (try await vault.latestChangeCursor()))
            await vault.lock()
            // lock() ended the observation normally.
            try await observation.value
        }
    }
}
