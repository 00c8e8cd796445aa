import Foundation
import MedVaultCore
import Testing

@Suite struct MedicationQuantityTests {
    @Test func parsesAndPrintsDecimals() throws {
        #expect(try MedicationQuantity("2.5").thousandths == 2500)
        #expect(try MedicationQuantity("0.025").thousandths == 25)
        #expect(try MedicationQuantity("-1.5").thousandths == -1500)
        #expect(try MedicationQuantity("3").description == "3")
        #expect(try MedicationQuantity("0.250").description == "0.25")
        #expect(MedicationQuantity(thousandths: -25).description == "-0.025")
        #expect(MedicationQuantity(thousandths: 1005).description == "1.005")
        #expect((0.1 as MedicationQuantity).thousandths == 100)
        #expect(MedicationQuantity(7) == 7)
    }

    @Test(arguments: ["", ".", "1.", ".5", "1.2345", "1,5", "abc", "1e3", "--1", "1234567890123456"])
    func rejectsWhatIsNotADecimal(_ text: String) {
        #expect(throws: MedVaultError.self) { try MedicationQuantity(text) }
        do { _ = try MedicationQuantity(text) } catch let error as MedVaultError {
            #expect(error.code == .invalidArgument)
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func arithmeticIsExact() {
        var stock: MedicationQuantity = 10
        for _ in 0..<100 { stock = stock - 0.1 }
        #expect(stock == .zero)
        #expect((0.1 as MedicationQuantity) * 3 == 0.3)
        #expect(MedicationQuantity(1) + 0.5 > 1.4)
    }

    @Test func codableAsDecimalText() throws {
        let data = try JSONEncoder().encode([MedicationQuantity(thousandths: 2500)])
        #expect(String(decoding: data, as: UTF8.self) == #"["2.5"]"#)
        #expect(try JSONDecoder().decode([MedicationQuantity].self, from: data) == [2.5])
        #expect(throws: MedVaultError.self) { try JSONDecoder().decode([MedicationQuantity].self, from: Data(#"["x"]"#.utf8)) }
    }

    @Test func valuesRoundTripThroughJSONWithUnknownRawValues() throws {
        let medication = Medication(
            patientID: UUID(), name: "N", dosage: Dosage(amount: 0.5, unit: DosageUnit("sachets")),
            form: MedicationForm("lozenge"), route: AdministrationRoute("buccal"),
            frequency: .everyNHours(6, startingAt: TimeOfDay(hour: 7, label: "Wake")),
            startDate: try CalendarDate(iso8601: "2026-01-01"),
            inventory: MedicationInventory(current: 3, minimum: 1, packageSize: 10,
                                           expirationDate: try CalendarDate(iso8601: "2027-02-28")))
        let decoded = try JSONDecoder().decode(Medication.self, from: JSONEncoder().encode(medication))
        #expect(decoded == medication)
        let log = DoseLog(medicationID: UUID(), scheduledAt: Date(millisecondsSince1970: 1_700_000_000_123),
                          status: .skipped, skipReason: SkipReason("travelling"))
        #expect(try JSONDecoder().decode(DoseLog.self, from: JSONEncoder().encode(log)) == log)
        #expect(Dosage(amount: 2.5, unit: .ml).description == "2.5 ml")
    }
}
