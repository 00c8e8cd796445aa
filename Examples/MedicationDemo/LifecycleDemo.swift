import Foundation
import MedVault

/// The schedule lifecycle part of the demo: a tapering regimen, a paused schedule
/// and the reminders an app's notification scheduler would schedule next.
enum LifecycleDemo {
    /// Runs this part for `patient`, whose Metformina schedule it pauses.
    static func run(_ store: any MedicationStore, patient: Patient, metformina: Medication,
                    now: Date, zone: TimeZone) async throws {
        let today = CalendarDate(now, in: zone)
        // A prednisone taper: 30 mg for three days, then 20 mg, then 10 mg, at 09:00,
        // reminded 15 minutes before.
        let prednisona = try await store.create(Medication(
            patientID: patient.id, name: "Prednisona 10 mg", genericName: "prednisone",
            dosage: Dosage(amount: 1, unit: .tablets), frequency: .specificTimes([TimeOfDay(hour: 9)]),
            startDate: today, endDate: today.adding(days: 8), requiresPrescription: true))
        _ = try await store.schedules.create(MedicationSchedule(
            medicationID: prednisona.id, times: [TimeOfDay(hour: 9)], timeZoneIdentifier: zone.identifier,
            taperSteps: [
                TaperStep(from: today, through: today.adding(days: 2), amount: 3),
                TaperStep(from: today.adding(days: 3), through: today.adding(days: 5), amount: 2),
                TaperStep(from: today.adding(days: 6), through: today.adding(days: 8), amount: 1),
            ],
            reminders: ReminderSettings(leadMinutes: 15)))

        // Metformina paused for three days from Friday (a procedure with contrast).
        if let schedule = try await store.schedules.list(medicationID: metformina.id).first {
            _ = try await store.schedules.pause(schedule.id, from: today.adding(days: 4), through: today.adding(days: 6))
        }
        let names = Dictionary(uniqueKeysWithValues: try await store.list(patientID: patient.id, filter: .all).map { ($0.id, $0.name) })
        let shown: Set<UUID> = [prednisona.id, metformina.id]

        print("")
        print("Next days: a prednisone taper, Metformina paused \(today.adding(days: 4).iso8601) to \(today.adding(days: 6).iso8601)")
        var rows: [[String]] = []
        for offset in 1...8 {
            let day = today.adding(days: offset)
            let doses = try await store.doses(forPatient: patient.id, on: day, in: zone).filter { shown.contains($0.medicationID) }
            let cells = doses.map { dose in
                let amount = DemoFormat.quantity(dose.amount ?? 1, .tablets)
                return "\(DemoFormat.time(dose.scheduledAt, zone)) \(names[dose.medicationID] ?? "?") (\(amount))"
            }
            rows.append(["\(DemoFormat.weekday(day).prefix(3)) \(day.iso8601)", cells.isEmpty ? "nothing" : cells.joined(separator: ", ")])
        }
        DemoFormat.rows(rows)

        print("")
        print("Reminders for the next 24 hours (what a notification scheduler would schedule)")
        let reminders = try await store.upcomingReminders(forPatient: patient.id, from: now,
                                                          until: now.addingTimeInterval(86_400), timeZone: zone)
        DemoFormat.rows(reminders.map { reminder in
            let dose = "\(DemoFormat.time(reminder.scheduledAt, zone)) dose of \(names[reminder.medicationID] ?? "?")"
            let what = switch reminder.kind {
            case .dose: dose
            case .followUp: "not logged yet: \(dose)"
            case .lowStock: "stock low after the \(dose)"
            case .refill: "refill soon: from the \(dose) on, a week of supply or less"
            }
            return ["\(DemoFormat.weekdayAndTime(reminder.remindAt, zone))", what]
        })
    }
}
