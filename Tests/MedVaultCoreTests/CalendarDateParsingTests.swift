import Foundation
import MedVaultCore
import Testing

/// `CalendarDate(iso8601:)` accepts exactly `YYYY-MM-DD` in ASCII digits.
@Suite("CalendarDate ISO 8601 parsing")
struct CalendarDateParsingTests {
    @Test(arguments: [("1984-03-07", 1984, 3, 7), ("0001-01-01", 1, 1, 1), ("2024-02-29", 2024, 2, 29),
                      ("9999-12-31", 9999, 12, 31)])
    func valid(text: String, year: Int, month: Int, day: Int) throws {
        let date = try CalendarDate(iso8601: text)
        #expect(date.year == year && date.month == month && date.day == day)
        #expect(date.iso8601 == text)
    }

    @Test(arguments: ["", "1984-3-07", "1984-03-7", "84-03-07", "1984/03/07", "1984-03-07 ", " 1984-03-07",
                      "19840-03-07", "+984-03-07", "1984-03-0a", "１９８４-03-07", "1984-٠3-07", "1984-03-07\n",
                      "1984--3-07", "1984-13-01", "2023-02-29", "1984-00-10", "1984-01-00", "1984-03-07-01"])
    func invalid(text: String) {
        #expect(throws: MedVaultError.self) { try CalendarDate(iso8601: text) }
    }

    @Test func invalidIsInvalidArgument() {
        do {
            _ = try CalendarDate(iso8601: "1984-3-7")
            Issue.record("expected an error")
        } catch let error as MedVaultError {
            #expect(error.code == .invalidArgument)
        } catch {
            Issue.record("unexpected error type")
        }
    }
}
