import Foundation
@testable import MedVault
import Testing

/// Column names derived from an enum's case names, and the SQL built from them.
@Suite("Storage: table columns")
struct TableColumnTests {
    enum Column: Int32, TableColumn {
        case id, firstName, patientID, doseLogID, maximumDosesPer24Hours, rowID

        var name: String { self == .rowID ? "rowid" : derivedName }
    }

    @Test("Snake case from camel case: a run of capitals is one word, a digit ends a word; an override wins")
    func names() {
        #expect(Column.allCases.map(\.derivedName)
            == ["id", "first_name", "patient_id", "dose_log_id", "maximum_doses_per24_hours", "row_id"])
        #expect(Column.selection == "id, first_name, patient_id, dose_log_id, maximum_doses_per24_hours, rowid")
    }

    @Test("INSERT and UPDATE over chosen columns, in their order")
    func statements() {
        #expect(Column.insert(into: "t", [.firstName, .id], extra: ["x"])
            == "INSERT INTO t (first_name, id, x) VALUES (?, ?, ?)")
        #expect(Column.update("t", set: [.patientID, .firstName], where: "rowid")
            == "UPDATE t SET patient_id = ?, first_name = ? WHERE rowid = ?")
        #expect(Column.selection(alias: "c").hasPrefix("c.id, c.first_name, "))
    }
}
