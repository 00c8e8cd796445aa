import Foundation
import MedVault

/// The medication demo's data: values only. Times are wall-clock times in Madrid;
/// the week is Monday 9 to Sunday 15 March 2026 and "now" is Monday 16 March, 13:30.
enum MedicationData {
    static let password = "demo: correct horse battery staple"
    static let timeZone = "Europe/Madrid"
    /// Monday 16 March 2026, 13:30 in Madrid (CET, UTC+1).
    static let now = "2026-03-16T12:30:00.000Z"
    static let weekStart = "2026-03-09"
    static let weekEnd = "2026-03-15"
    static let today = "2026-03-16"

    static let patient = Patient(firstName: "Carmen", lastName: "López Díaz", dateOfBirth: date("1956-05-14"),
                                 biologicalSex: .female)

    /// A medication, its schedule times (none for as-needed) and its logs.
    struct MedicationSeed {
        let name: String
        let genericName: String
        let dosage: Dosage
        let form: MedicationForm
        let route: AdministrationRoute
        let frequency: MedicationFrequency
        let times: [TimeOfDay]
        let startDate: String
        let endDate: String?
        let inventory: MedicationInventory?
        let logs: [LogSeed]
    }

    /// A dose log: the local day and time it was due, what happened, and when it was taken.
    struct LogSeed {
        let day: String
        let due: String
        let status: DoseStatus
        let takenAt: String?
        let skipReason: SkipReason?
        let notes: String?

        init(_ day: String, _ due: String, _ status: DoseStatus, takenAt: String? = nil,
             skipReason: SkipReason? = nil, notes: String? = nil) {
            self.day = day
            self.due = due
            self.status = status
            self.takenAt = takenAt
            self.skipReason = skipReason
            self.notes = notes
        }
    }

    static let medications: [MedicationSeed] = [
        MedicationSeed(
            name: "Metformina 850 mg", genericName: "metformin", dosage: Dosage(amount: 1, unit: .tablets),
            form: .tablet, route: .oral, frequency: .timesPerDay(2),
            times: [TimeOfDay(hour: 8, label: "desayuno"), TimeOfDay(hour: 20, label: "cena")],
            startDate: "2026-01-01", endDate: nil,
            inventory: MedicationInventory(current: 22, minimum: 10, packageSize: 60),
            logs: takenTwiceDaily(except: ["2026-03-11 20:00", "2026-03-13 08:00", "2026-03-14 20:00"]) + [
                LogSeed("2026-03-11", "20:00", .taken, takenAt: "21:40"),
                LogSeed("2026-03-13", "08:00", .skipped, skipReason: .sideEffects, notes: "náuseas"),
                LogSeed("2026-03-16", "08:00", .taken, takenAt: "08:05"),
                // 2026-03-14 20:00 was never logged: it reads as missed.
            ]),
        MedicationSeed(
            name: "Amoxicilina 500 mg", genericName: "amoxicillin", dosage: Dosage(amount: 1, unit: .capsules),
            form: .capsule, route: .oral, frequency: .everyNHours(8, startingAt: TimeOfDay(hour: 7)),
            times: [TimeOfDay(hour: 7), TimeOfDay(hour: 15), TimeOfDay(hour: 23)],
            startDate: "2026-03-09", endDate: "2026-03-18", inventory: nil,
            logs: takenEveryEightHours(except: ["2026-03-12 23:00", "2026-03-14 15:00"]) + [
                LogSeed("2026-03-12", "23:00", .missed, notes: "se quedó dormida"),
                LogSeed("2026-03-14", "15:00", .late, takenAt: "17:20"),
                LogSeed("2026-03-16", "07:00", .taken, takenAt: "07:10"),
            ]),
        MedicationSeed(
            name: "Salbutamol 100 µg", genericName: "salbutamol", dosage: Dosage(amount: 2, unit: .puffs),
            form: .inhaler, route: .inhaled, frequency: .asNeeded, times: [],
            startDate: "2025-10-01", endDate: nil,
            inventory: MedicationInventory(current: 200, minimum: 40, packageSize: 200),
            logs: [
                LogSeed("2026-03-10", "18:20", .taken, takenAt: "18:20"),
                LogSeed("2026-03-16", "11:15", .taken, takenAt: "11:15"),
            ]),
    ]

    // MARK: - Generated logs for the routine days

    private static let weekDays = (9...15).map { String(format: "2026-03-%02d", $0) }

    private static func takenTwiceDaily(except exceptions: Set<String>) -> [LogSeed] {
        routine(times: [("08:00", "08:02"), ("20:00", "20:10")], except: exceptions)
    }

    private static func takenEveryEightHours(except exceptions: Set<String>) -> [LogSeed] {
        routine(times: [("07:00", "07:05"), ("15:00", "15:20"), ("23:00", "23:00")], except: exceptions)
    }

    private static func routine(times: [(due: String, taken: String)], except exceptions: Set<String>) -> [LogSeed] {
        weekDays.flatMap { day in
            times.filter { !exceptions.contains("\(day) \($0.due)") }
                .map { LogSeed(day, $0.due, .taken, takenAt: $0.taken) }
        }
    }

    private static func date(_ text: String) -> CalendarDate {
        // Fixed literals, all valid: a failure here is a typo in this file.
        (try? CalendarDate(iso8601: text)) ?? CalendarDate(dayNumber: 0)
    }
}
