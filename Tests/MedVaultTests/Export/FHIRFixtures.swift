import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A vault holding every kind of record and every optional field, for the FHIR tests,
/// and the independent validator (`Tests/Scripts/fhir_validate.py`, PyPI fhir.resources).
enum FHIRFixtures {
    static let validator = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/fhir_validate.py")

    struct Validation: Decodable {
        let resources: [String: Int]
    }

    /// Runs the validator on `files`: its exit status, its summary, its errors.
    static func validate(_ files: [URL]) async throws -> (status: Int32, summary: Validation?, errors: String) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", validator.path] + files.map(\.path)
        let run = try await process.runCapturingOutput()
        let summary = run.status == 0 ? try? JSONDecoder().decode(Validation.self, from: run.output) : nil
        return (run.status, summary, run.errorText)
    }

    /// A vault with a professional and one patient whose record fills every field: a
    /// signed session with notes, plan, two diagnoses (one with a Spanish title),
    /// an attachment and two addenda; an unsigned cancelled session; a prescribed
    /// medication with a schedule and taken / skipped dose logs; a second patient with
    /// nothing but required fields.
    static func richVault(at folder: URL) async throws -> (Vault, UUID) {
        let vault = try await Vault.create(at: folder, password: try Password(BackupFixtures.password),
                                           options: VaultFixtures.options).vault
        try await vault.professional.save(Professional(
            fullName: "Dra. Ana Ruiz", licenseNumber: "M-12345", specialty: "Psiquiatría", email: "ana@example.com"))
        let patient = try await vault.patients.create(Patient(
            firstName: "José", lastName: "García \"Núñez\"", dateOfBirth: try CalendarDate(iso8601: "1984-03-07"),
            biologicalSex: .male, nationalId: "12345678Z", email: "jose@example.com", phoneNumber: "+34 600 000 001",
            address: "Calle Mayor 1, Madrid"))
        _ = try await vault.patients.create(Patient(
            firstName: "Eva", lastName: "Sola", dateOfBirth: try CalendarDate(iso8601: "1990-01-01")))
        let date = Date(millisecondsSince1970: 1_770_000_000_123)
        let session = try await vault.sessions.create(ClinicalSession(
            patientID: patient.id, date: date, type: .video, durationMinutes: 45,
            notes: "Duerme 4 h.\n«Sin ideación»\t.", chiefComplaint: "Insomnio", treatmentPlan: "TCC-I semanal"))
        try await vault.diagnoses.create(Diagnosis(
            sessionID: session.id, snapshot: ClinicalFixtures.snapshot, severity: .moderate,
            clinicalNotes: "Episodio leve", diagnosedAt: date))
        try await vault.diagnoses.create(Diagnosis(
            sessionID: session.id, snapshot: ClinicalFixtures.otherSnapshot, diagnosisType: .differential,
            diagnosedAt: date))
        try await vault.attachments.create(
            NewAttachment(sessionID: session.id, fileName: "informe.pdf", mimeType: "application/pdf"),
            data: Data("%PDF-1.4 informe".utf8))
        try await vault.sessions.sign(session.id, version: session.version)
        try await vault.sessions.addAddendum(to: session.id, reason: "Corrección", text: "Dosis 50 mg")
        try await vault.sessions.addAddendum(to: session.id, reason: "Entrada tardía", text: "Llamó")
        let cancelled = try await vault.sessions.create(ClinicalSession(
            patientID: patient.id, date: date.addingTimeInterval(86_400), type: .phone))
        _ = try await vault.sessions.cancel(cancelled.id)
        let medication = try await vault.medications.create(Medication(
            patientID: patient.id, name: "Sertralina", genericName: "sertraline", dosage: Dosage(amount: 1.5, unit: .mg),
            frequency: .timesPerDay(2), instructions: "Con comida", startDate: try CalendarDate(iso8601: "2026-01-01"),
            endDate: try CalendarDate(iso8601: "2026-12-31"), requiresPrescription: true,
            maximumDosesPer24Hours: 3))
        _ = try await vault.medications.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8, minute: 30, label: "desayuno")],
            daysOfWeek: [.monday, .friday], timeZoneIdentifier: "Europe/Madrid",
            effectiveFrom: try CalendarDate(iso8601: "2026-01-05"), effectiveUntil: try CalendarDate(iso8601: "2026-06-30"),
            interval: DayInterval(days: 2, startDate: try CalendarDate(iso8601: "2026-01-05"))))
        _ = try await vault.medications.doseLogs.create(DoseLog(
            medicationID: medication.id, scheduledAt: date, status: .taken, takenAt: date.addingTimeInterval(60),
            amount: 3, notes: "Sin efectos"))
        _ = try await vault.medications.doseLogs.create(DoseLog(
            medicationID: medication.id, scheduledAt: date.addingTimeInterval(43_200), status: .skipped,
            skipReason: .sideEffects))
        return (vault, patient.id)
    }
}
