import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The README's code examples, compiled and run, so they cannot rot.
@Suite("README examples")
struct ReadmeExampleTests {
    @Test("The clinical-records example runs as written")
    func clinicalRecordsExample() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.file("clinic")
            let options = Vault.Options(kdf: .fastForTestsOnly) // README: Vault.Options() (real Argon2id)
            // --- README: Clinical records ---
            let created = try await Vault.create(at: folder, password: Password("correct horse battery staple"), options: options)
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
            // --- end ---
            #expect(found.map(\.id) == [jose.id])
            #expect(history.entries.first?.diagnoses.first?.snapshot.code == "6A70")
        }
    }

    @Test("The medications example runs as written")
    func medicationsExample() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.file("meds"), password: Password("correct horse battery staple"),
                                                 options: Vault.Options(kdf: .fastForTestsOnly))
            let vault = created.vault
            let patient = try await vault.patients.create(
                Patient(firstName: "María", lastName: "Ibáñez", dateOfBirth: try CalendarDate(iso8601: "1950-11-02")))
            // --- README: Medications ---
            let madrid = try #require(TimeZone(identifier: "Europe/Madrid"))
            let metformin = try await vault.medications.create(Medication(
                patientID: patient.id, name: "Metformina 850 mg", genericName: "metformin",
                dosage: Dosage(amount: 1, unit: .tablets), frequency: .timesPerDay(2),
                startDate: try CalendarDate(iso8601: "2026-01-01"),
                inventory: MedicationInventory(current: 60, minimum: 10)))
            _ = try await vault.medications.schedules.create(MedicationSchedule(
                medicationID: metformin.id, times: [TimeOfDay(hour: 8, label: "desayuno"), TimeOfDay(hour: 20, label: "cena")],
                timeZoneIdentifier: "Europe/Madrid"))

            let today = CalendarDate(Date(), in: madrid)
            let doses = try await vault.medications.doses(forPatient: patient.id, on: today, in: madrid)
            if let first = doses.first {
                _ = try await vault.medications.doseLogs.create(DoseLog(medicationID: metformin.id, scheduledAt: first.scheduledAt,
                                                            status: .taken, takenAt: Date()))   // inventory 60 → 59 tablets, atomically
            }
            let week = try await vault.medications.adherence(forPatient: patient.id, from: today.adding(days: -6),
                                                             through: today, in: madrid)
            // --- end ---
            #expect(doses.count == 2)
            #expect(week.expected >= 0)
            let stored = try #require(try await vault.medications.find(metformin.id))
            #expect(stored.inventory?.current == 59)
            await vault.lock()
        }
    }
}
