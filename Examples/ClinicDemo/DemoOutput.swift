import Foundation
import MedVault

/// Formatting for the clinic demo: aligned columns, local dates, grouped numbers.
enum DemoOutput {
    /// The clinic's time zone.
    static let zone = TimeZone(identifier: DemoData.timeZone) ?? TimeZone(secondsFromGMT: 3600) ?? .current

    /// A section title.
    static func title(_ text: String) {
        print("")
        print(text)
    }

    /// Rows of cells padded into aligned columns, indented by two spaces.
    static func rows(_ rows: [[String]]) {
        let count = rows.map(\.count).max() ?? 0
        let widths = (0..<count).map { index in rows.map { index < $0.count ? $0[index].count : 0 }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            print("  " + cells.joined(separator: "  "))
        }
    }

    /// `YYYY-MM-DD` in the clinic's time zone.
    static func day(_ date: Date) -> String {
        CalendarDate(date, in: zone).iso8601
    }

    /// `YYYY-MM-DD HH:MM` in the clinic's time zone.
    static func dayAndTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return day(date) + " " + String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// `98,304`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    /// `0.42 s`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f s", Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// "in person", "video", "phone".
    static func sessionType(_ type: SessionType) -> String {
        type == .inPerson ? "in person" : type.rawValue
    }
}
