import Foundation
import MedVault

/// How `medvault` prints patients, sessions and dates.
enum PatientTable {
    /// The table of `patients list` and `patients search`, with a header; or
    /// `emptyMessage` when there is no patient.
    static func lines(_ patients: [Patient], emptyMessage: String) -> [String] {
        guard !patients.isEmpty else { return [emptyMessage] }
        let header = ["ID", "LAST NAME", "FIRST NAME", "BORN", "STATUS"]
        // Stored names are escaped: a name with ESC, a line break or a bidi override
        // (from an older vault or another app) must not forge a row or restyle the terminal.
        let rows = patients.map { patient in
            [shortID(patient.id), TextSafety.escaped(patient.lastName), TextSafety.escaped(patient.firstName),
             patient.dateOfBirth.iso8601, status(of: patient)]
        }
        return columns([header] + rows)
    }

    /// "active patients", "inactive patients" or "patients".
    static func noun(_ filter: PatientFilter) -> String {
        switch filter {
        case .active: "active patients"
        case .inactive: "inactive patients"
        case .all: "patients"
        }
    }

    /// The first 8 characters of an identifier, as `patients show` accepts them.
    static func shortID(_ id: UUID) -> String {
        String(id.uuidString.lowercased().prefix(8))
    }

    /// "active", or "inactive since YYYY-MM-DD".
    static func status(of patient: Patient) -> String {
        guard let deletedAt = patient.deletedAt else { return "active" }
        return "inactive since \(day(deletedAt))"
    }

    /// Rows of cells padded into aligned columns (two spaces apart, no trailing blanks).
    static func columns(_ rows: [[String]]) -> [String] {
        let count = rows.map(\.count).max() ?? 0
        let widths = (0..<count).map { index in rows.map { index < $0.count ? $0[index].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }
    }

    // MARK: - Dates, in the local time zone

    /// `YYYY-MM-DD` of `date` in the local time zone.
    static func day(_ date: Date) -> String {
        CalendarDate(date, in: TimeZone.current).iso8601
    }

    /// `YYYY-MM-DD HH:MM` of `date` in the local time zone.
    static func dayAndTime(_ date: Date) -> String {
        let calendar = Calendar(identifier: .gregorian)
        var local = calendar
        local.timeZone = TimeZone.current
        let parts = local.dateComponents([.hour, .minute], from: date)
        return day(date) + " " + String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }
}
