// The medication demo (`make medication-demo`): one patient's medication plan through
// the library's public API: three medications with schedules, inventory, a week of
// dose logs, then today's doses, the week's adherence and a low-stock alert; then a
// mistaken log corrected, a refill and the days of supply; finally a tapering regimen, a
// paused schedule and the next day's reminders.
// "Now" is fixed (Vault.Options(clock:)), so the output is the same on every run.
import Foundation
import MedVault

/// Runs the demo in `folder`.
func runDemo(in folder: URL) async throws {
    let zone = TimeZone(identifier: MedicationData.timeZone) ?? TimeZone(secondsFromGMT: 3600) ?? .current
    let now = ISO8601Milliseconds.date(from: MedicationData.now) ?? Date()
    let created = try await Vault.create(at: folder, password: Password(MedicationData.password),
                                         options: Vault.Options(clock: .fixed(now)))
    let vault = created.vault
    let store = vault.medications
    let patient = try await vault.patients.create(MedicationData.patient)

    // Medications, schedules and the logged doses.
    var medications: [Medication] = []
    for seed in MedicationData.medications {
        let medication = try await store.create(Medication(
            patientID: patient.id, name: seed.name, genericName: seed.genericName, dosage: seed.dosage,
            form: seed.form, route: seed.route, frequency: seed.frequency,
            startDate: try CalendarDate(iso8601: seed.startDate),
            endDate: try seed.endDate.map { try CalendarDate(iso8601: $0) },
            requiresPrescription: !seed.frequency.isAsNeeded, inventory: seed.inventory))
        if !seed.times.isEmpty {
            _ = try await store.schedules.create(MedicationSchedule(
                medicationID: medication.id, times: seed.times, timeZoneIdentifier: MedicationData.timeZone))
        }
        let logs = try seed.logs.map { log in
            DoseLog(medicationID: medication.id, scheduledAt: try instant(log.day, log.due, zone),
                    status: log.status, takenAt: try log.takenAt.map { try instant(log.day, $0, zone) },
                    skipReason: log.skipReason, notes: log.notes)
        }
        _ = try await store.doseLogs.create(logs)
        medications.append(medication)
    }
    let byID = Dictionary(uniqueKeysWithValues: medications.map { ($0.id, $0) })

    print("MedVault medication demo — \(patient.fullName), \(DemoFormat.weekdayAndTime(now, zone)) \(MedicationData.timeZone)")
    print("")
    print("Medications")
    DemoFormat.rows(try await store.list(patientID: patient.id, filter: .active).map { medication in
        let schedule = MedicationData.medications.first { $0.name == medication.name }?.times ?? []
        return [medication.name, DemoFormat.quantity(medication.dosage.amount, medication.dosage.unit),
                DemoFormat.frequency(medication.frequency, schedule),
                medication.inventory.map { "stock \(DemoFormat.quantity($0.current, medication.dosage.unit)), min \($0.minimum)" } ?? ""]
    })

    let today = try CalendarDate(iso8601: MedicationData.today)
    print("")
    print("Today, \(DemoFormat.weekday(today)) \(today.iso8601)")
    DemoFormat.rows(try await store.doses(forPatient: patient.id, on: today, in: zone).map { dose in
        [DemoFormat.time(dose.scheduledAt, zone), byID[dose.medicationID]?.name ?? "?",
         DemoFormat.status(dose, zone)]
    })

    let first = try CalendarDate(iso8601: MedicationData.weekStart)
    let last = try CalendarDate(iso8601: MedicationData.weekEnd)
    print("")
    print("Last week's doses not taken on time")
    var exceptions: [[String]] = []
    var day = first
    while day <= last {
        for dose in try await store.doses(forPatient: patient.id, on: day, in: zone) where dose.status != .taken {
            exceptions.append(["\(DemoFormat.weekday(day).prefix(3)) \(day.iso8601) \(DemoFormat.time(dose.scheduledAt, zone))",
                               byID[dose.medicationID]?.name ?? "?", DemoFormat.status(dose, zone)])
        }
        day = day.adding(days: 1)
    }
    DemoFormat.rows(exceptions)
    print("")
    print("Adherence, \(first.iso8601) to \(last.iso8601)")
    var rows: [[String]] = []
    for medication in medications where !medication.frequency.isAsNeeded {
        let stats = try await store.adherence(forMedication: medication.id, from: first, through: last, in: zone)
        rows.append([medication.name] + DemoFormat.adherence(stats))
    }
    rows.append(["All scheduled"] + DemoFormat.adherence(
        try await store.adherence(forPatient: patient.id, from: first, through: last, in: zone)))
    DemoFormat.rows(rows)

    print("")
    let low = try await store.lowInventory(forPatient: patient.id)
    if low.isEmpty {
        print("Inventory: every medication is above its minimum.")
    }
    for medication in low {
        guard let inventory = medication.inventory else { continue }
        let package = inventory.packageSize.map { "; a package holds \($0)" } ?? ""
        print("LOW INVENTORY: \(medication.name): \(DemoFormat.quantity(inventory.current, medication.dosage.unit)) left, "
              + "minimum \(inventory.minimum)\(package). Time to refill.")
    }
    if let metformin = medications.first(where: { $0.name.hasPrefix("Metformina") }) {
        try await showCorrectionAndRefill(store: store, metformin: metformin, patientID: patient.id,
                                          first: first, last: last, zone: zone)
        let current = try await store.get(metformin.id)
        try await LifecycleDemo.run(store, patient: patient, metformina: current, now: now, zone: zone)
    }
    await vault.lock()
}

/// The instant of wall-clock time `hhmm` on `day` in `zone`.
func instant(_ day: String, _ hhmm: String, _ zone: TimeZone) throws -> Date {
    let parts = hhmm.split(separator: ":").compactMap { Int($0) }
    let minutes = (parts.first ?? 0) * 60 + (parts.dropFirst().first ?? 0)
    return LocalTime.instant(on: try CalendarDate(iso8601: day), minutesSinceMidnight: minutes, in: zone)
}

let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("medvault-medication-demo-\(UUID().uuidString)", isDirectory: true)
var succeeded = false
do {
    try await runDemo(in: folder)
    succeeded = true
} catch {
    print("The demo failed: \(error)")
}
try? FileManager.default.removeItem(at: folder)
exit(succeeded ? 0 : 1)
