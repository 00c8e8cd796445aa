import Foundation
import MedVault

/// README.md, "Medications": the lines between the markers are the README's block.
func medicationsExample(vault: Vault, patient: Patient) async throws {
    // README:begin
    let madrid = TimeZone(identifier: "Europe/Madrid")!
    let metformin = try await vault.medications.create(Medication(
        patientID: patient.id, name: "Metformina 850 mg", genericName: "metformin",
        dosage: Dosage(amount: 1, unit: .tablets), frequency: .timesPerDay(2),
        startDate: try CalendarDate(iso8601: "2026-01-01"),
        inventory: MedicationInventory(current: 60, minimum: 10)))
    try await vault.medications.schedules.create(MedicationSchedule(
        medicationID: metformin.id, times: [TimeOfDay(hour: 8, label: "desayuno"), TimeOfDay(hour: 20, label: "cena")],
        timeZoneIdentifier: "Europe/Madrid"))

    let today = CalendarDate(Date(), in: madrid)
    let doses = try await vault.medications.doses(forPatient: patient.id, on: today, in: madrid)
    try await vault.medications.doseLogs.create(DoseLog(medicationID: metformin.id, scheduledAt: doses[0].scheduledAt,
                                                       status: .taken, takenAt: Date()))   // inventory 60 → 59, atomically
    let week = try await vault.medications.adherence(forPatient: patient.id, from: today.adding(days: -6),
                                                     through: today, in: madrid)
    // README:end
    guard doses.count == 2, week.expected >= 1,
          try await vault.medications.find(metformin.id)?.inventory?.current == 59 else {
        throw ReadmeAppError("the medications example read back something else")
    }
}
