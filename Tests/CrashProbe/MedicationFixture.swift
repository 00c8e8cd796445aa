// `CrashProbe medication-fixture <vault folder> <expected json>`: writes the medication
// fixture vault of the migration test (Tests/Vectors/medication-fixture-v5/) and, beside
// it, what the library that wrote it read back: every medication, schedule and dose log
// (JSON, the values' own Codable form) and the adherence of each past week. A later
// library must open the vault and read the same records and the same adherence.
//
// The committed fixture was written by main at schema version 5 (five migrations),
// before medication strength, dose-log corrections and refills existed. Regenerate it
// only with a library at that schema: see docs/medications.md, "Upgrading".
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// What the fixture's writer read back, for the migration test to compare with.
struct MedicationFixtureExpectation: Codable {
    /// One week's adherence, for the patient and per medication.
    struct Week: Codable {
        var first: String
        var last: String
        var patient: AdherenceStats
        var byMedication: [String: AdherenceStats]
    }

    var patientID: UUID
    var now: Date
    var timeZone: String
    var medications: [Medication]
    var schedules: [MedicationSchedule]
    var logs: [DoseLog]
    var weeks: [Week]
}

func writeMedicationFixture(folder: String, expectationPath: String) async throws {
    let madrid = TimeZone(identifier: "Europe/Madrid")!
    let now = Date(timeIntervalSince1970: 1_770_033_600)  // 2026-02-02T12:00:00Z, a Monday
    let options = Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0), clock: .fixed(now))
    let vault = try await Vault.create(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                       options: options).vault
    let patient = try await vault.patients.create(
        Patient(firstName: "Fixture", lastName: "Patient", dateOfBirth: try CalendarDate(iso8601: "1970-05-17")))
    let start = try CalendarDate(iso8601: "2026-01-05")  // a Monday

    let metformin = try await vault.medications.create(Medication(
        patientID: patient.id, name: "Metformina", genericName: "metformin", dosage: Dosage(amount: 850, unit: .mg),
        form: .tablet, route: .oral, frequency: .specificTimes([TimeOfDay(hour: 8), TimeOfDay(hour: 20)]),
        instructions: "Con las comidas", startDate: start, requiresPrescription: true,
        inventory: MedicationInventory(current: 60, minimum: 10, packageSize: 60,
                                       expirationDate: try CalendarDate(iso8601: "2027-03-31"))))
    let schedule = try await vault.medications.schedules.create(MedicationSchedule(
        medicationID: metformin.id, times: [TimeOfDay(hour: 8, label: "desayuno"), TimeOfDay(hour: 20, label: "cena")],
        timeZoneIdentifier: "Europe/Madrid"))
    let drops = try await vault.medications.create(Medication(
        patientID: patient.id, name: "Colirio", dosage: Dosage(amount: 2, unit: .drops), form: .drops,
        route: .ophthalmic, frequency: .everyNHours(12, startingAt: TimeOfDay(hour: 9)), startDate: start,
        inventory: MedicationInventory(current: 200, minimum: 20)))
    let weekly = try await vault.medications.create(Medication(
        patientID: patient.id, name: "Vitamina D", dosage: Dosage(amount: 1, unit: .capsules), form: .capsule,
        frequency: .timesPerDay(1), startDate: start))
    try await vault.medications.schedules.create(MedicationSchedule(
        medicationID: weekly.id, times: [TimeOfDay(hour: 10)], daysOfWeek: [.monday, .thursday],
        timeZoneIdentifier: "Europe/Madrid"))
    let ibuprofen = try await vault.medications.create(Medication(
        patientID: patient.id, name: "Ibuprofeno", dosage: Dosage(amount: 400, unit: .mg), frequency: .asNeeded,
        startDate: start, inventory: MedicationInventory(current: 12, minimum: 4)))
    let stopped = try await vault.medications.create(Medication(
        patientID: patient.id, name: "Omeprazol", dosage: Dosage(amount: 20, unit: .mg), frequency: .timesPerDay(1),
        startDate: start, endDate: try CalendarDate(iso8601: "2026-01-15")))
    _ = stopped

    // Four weeks of logs: a deterministic mix of taken, late, skipped and missed.
    var logs: [DoseLog] = []
    let firstDay = LocalTime.interval(from: start, through: start, in: madrid).lowerBound
    let month = firstDay..<LocalTime.interval(from: start.adding(days: 27), through: start.adding(days: 27),
                                                 in: madrid).upperBound
    var index = 0
    for medication in [metformin, drops, weekly] {
        let all = try await vault.medications.schedules.list(medicationID: medication.id)
        for dose in DoseExpansion.expectedDoses(for: medication, schedules: all, in: month, fallbackTimeZone: madrid) {
            index += 1
            switch index % 7 {
            case 0: continue  // never logged: reads as missed
            case 1: logs.append(DoseLog(medicationID: medication.id, scheduledAt: dose.scheduledAt, status: .skipped,
                                        skipReason: index % 2 == 0 ? .sideEffects : .forgot, notes: "nota \(index)"))
            case 2: logs.append(DoseLog(medicationID: medication.id, scheduledAt: dose.scheduledAt, status: .taken,
                                        takenAt: dose.scheduledAt.addingTimeInterval(3 * 3600)))
            case 3: logs.append(DoseLog(medicationID: medication.id, scheduledAt: dose.scheduledAt, status: .missed))
            default: logs.append(DoseLog(medicationID: medication.id, scheduledAt: dose.scheduledAt, status: .taken,
                                         takenAt: dose.scheduledAt.addingTimeInterval(600)))
            }
        }
    }
    logs.append(DoseLog(medicationID: ibuprofen.id, scheduledAt: firstDay.addingTimeInterval(50_000), status: .taken,
                        takenAt: firstDay.addingTimeInterval(50_000), notes: "dolor de cabeza"))
    try await vault.medications.doseLogs.create(logs)
    _ = schedule

    let medications = try await vault.medications.list(patientID: patient.id, filter: .all)
    var weeks: [MedicationFixtureExpectation.Week] = []
    for week in 0..<4 {
        let first = start.adding(days: 7 * week), last = first.adding(days: 6)
        var byMedication: [String: AdherenceStats] = [:]
        for medication in medications {
            byMedication[medication.id.uuidString] = try await vault.medications.adherence(
                forMedication: medication.id, from: first, through: last, in: madrid)
        }
        weeks.append(.init(first: first.description, last: last.description,
                           patient: try await vault.medications.adherence(forPatient: patient.id, from: first,
                                                                          through: last, in: madrid),
                           byMedication: byMedication))
    }
    let expectation = MedicationFixtureExpectation(
        patientID: patient.id, now: now, timeZone: madrid.identifier,
        medications: medications,
        schedules: try await vault.medications.schedules.list(patientID: patient.id),
        logs: try await vault.medications.doseLogs.list(patientID: patient.id, in: month),
        weeks: weeks)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(expectation).write(to: URL(fileURLWithPath: expectationPath))
    await vault.lock()
}
