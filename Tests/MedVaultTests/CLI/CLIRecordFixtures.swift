import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Records written through the library into a vault the CLI created, for the
/// `patients` and `export` command tests.
enum CLIRecordFixtures {
    static let depressiveEpisode = ICD11Snapshot(
        code: "6A70", title: "Single episode depressive disorder", titleEs: "Trastorno depresivo de episodio único",
        uri: "http://id.who.int/icd/entity/578635574", releaseVersion: "2024-01")
    static let generalisedAnxiety = ICD11Snapshot(
        code: "6B00", title: "Generalised anxiety disorder",
        uri: "http://id.who.int/icd/entity/1712535455", releaseVersion: "2024-01")

    /// Opens the vault with the harness password, runs `body`, locks it.
    static func withVault<Value>(_ folder: URL, _ body: (Vault) async throws -> Value) async throws -> Value {
        let vault = try await Vault.open(at: folder, password: Password(CLIHarness.password), options: VaultFixtures.options)
        do {
            let value = try await body(vault)
            await vault.lock()
            return value
        } catch {
            await vault.lock()
            throw error
        }
    }

    /// Adds a patient with `medvault patients add` and returns the printed identifier.
    static func addPatient(_ folder: URL, first: String, last: String, born: String, extra: [String] = []) async throws -> UUID {
        let result = try await CLIHarness.run(
            ["patients", "add", folder.path, "--first-name", first, "--last-name", last, "--birth-date", born,
             "--password-stdin"] + extra,
            input: CLIHarness.password + "\n")
        try #require(result.status == 0, "patients add failed: \(result.standardError)")
        let line = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(UUID(uuidString: line), "patients add printed no identifier")
    }

    /// Gives the patient two completed sessions with diagnoses (2026-02-02 and 2026-03-02,
    /// 09:00 UTC), an attachment on the first, and a medication with a schedule and two logs.
    static func addHistory(_ folder: URL, patientID: UUID) async throws {
        try await withVault(folder) { vault in
            let first = try await vault.sessions.create(ClinicalSession(
                patientID: patientID, date: try instant("2026-02-02T09:00:00.000Z"), status: .completed,
                chiefComplaint: "Ánimo bajo", treatmentPlan: "TCC semanal"))
            try await vault.diagnoses.create(Diagnosis(
                sessionID: first.id, snapshot: depressiveEpisode, severity: .moderate, diagnosedAt: first.date))
            let second = try await vault.sessions.create(ClinicalSession(
                patientID: patientID, date: try instant("2026-03-02T09:00:00.123Z"), type: .video, status: .completed))
            try await vault.diagnoses.create(Diagnosis(
                sessionID: second.id, snapshot: generalisedAnxiety, diagnosisType: .secondary, diagnosedAt: second.date))
            try await vault.attachments.create(
                NewAttachment(sessionID: first.id, fileName: "informe.pdf", mimeType: "application/pdf"),
                data: Data("%PDF-1.4 informe".utf8))
            let medication = try await vault.medications.create(Medication(
                patientID: patientID, name: "Sertralina 50 mg", dosage: Dosage(amount: 1, unit: .tablets),
                frequency: .timesPerDay(1), startDate: try CalendarDate(iso8601: "2026-02-02"),
                inventory: MedicationInventory(current: 30, minimum: 7)))
            _ = try await vault.medications.schedules.create(MedicationSchedule(
                medicationID: medication.id, times: [TimeOfDay(hour: 9, label: "desayuno")],
                timeZoneIdentifier: "Europe/Madrid"))
            _ = try await vault.medications.doseLogs.create([
                DoseLog(medicationID: medication.id, scheduledAt: try instant("2026-02-03T08:00:00.000Z"),
                        status: .taken, takenAt: try instant("2026-02-03T08:04:00.500Z")),
                DoseLog(medicationID: medication.id, scheduledAt: try instant("2026-02-04T08:00:00.000Z"),
                        status: .skipped, skipReason: .sideEffects),
            ])
        }
    }

    static func instant(_ text: String) throws -> Date {
        try #require(ISO8601Milliseconds.date(from: text))
    }
}
