import Foundation
import MedVault

/// Formatting for the medication demo.
enum DemoFormat {
    /// Rows of cells padded into aligned columns, indented by two spaces.
    static func rows(_ rows: [[String]]) {
        let count = rows.map(\.count).max() ?? 0
        let widths = (0..<count).map { index in rows.map { index < $0.count ? $0[index].count : 0 }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            print(("  " + cells.joined(separator: "  ")).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
        }
    }

    /// "1 capsule", "2 puffs", "9 tablets".
    static func quantity(_ amount: MedicationQuantity, _ unit: DosageUnit) -> String {
        let name = amount == MedicationQuantity(1) && unit.rawValue.hasSuffix("s") ? String(unit.rawValue.dropLast()) : unit.rawValue
        return "\(amount) \(name)"
    }

    /// `HH:MM` of `date` in `zone`.
    static func time(_ date: Date, _ zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// "Monday".
    static func weekday(_ day: CalendarDate) -> String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][(day.isoWeekday - 1) % 7]
    }

    /// "Monday 2026-03-16 13:30".
    static func weekdayAndTime(_ date: Date, _ zone: TimeZone) -> String {
        let day = CalendarDate(date, in: zone)
        return "\(weekday(day)) \(day.iso8601) \(time(date, zone))"
    }

    /// "twice daily: 08:00 desayuno, 20:00 cena", "every 8 h: 07:00, 15:00, 23:00", "as needed".
    static func frequency(_ frequency: MedicationFrequency, _ times: [TimeOfDay]) -> String {
        let list = times.map { time in
            String(format: "%02d:%02d", time.hour, time.minute) + (time.label.map { " " + $0 } ?? "")
        }.joined(separator: ", ")
        switch frequency {
        case .asNeeded: return "as needed"
        case .timesPerDay(2): return "twice daily: " + list
        case .timesPerDay(let count): return "\(count) times a day: " + list
        case .everyNHours(let hours, _): return "every \(hours) h: " + list
        case .specificTimes: return "at " + list
        }
    }

    /// "taken 08:05", "late (taken 17:20)", "skipped: sideEffects", "missed", "pending", "as needed, taken 11:15".
    static func status(_ dose: ScheduledDose, _ zone: TimeZone) -> String {
        let taken = dose.log?.takenAt.map { time($0, zone) }
        switch dose.status {
        case .taken where !dose.isExpected: return "taken as needed"
        case .taken: return "taken" + (taken.map { " at " + $0 } ?? "")
        case .late: return "LATE" + (taken.map { ", taken at " + $0 } ?? "")
        case .skipped: return "skipped" + (dose.log?.skipReason.map { ", reason: \($0.rawValue)" } ?? "")
        case .missed: return "MISSED" + (dose.log == nil ? " (never logged)" : "")
        case .pending: return "pending"
        }
    }

    /// ["12/14", "86%", "11 on time, 1 late, 1 skipped, 1 missed"].
    static func adherence(_ stats: AdherenceStats) -> [String] {
        let rate = stats.rate.map { String(format: "%3.0f%%", $0 * 100) } ?? "  —"
        return ["\(stats.taken + stats.late)/\(stats.expected)", rate,
                "\(stats.taken) on time, \(stats.late) late, \(stats.skipped) skipped, \(stats.missed) missed"]
    }
}
