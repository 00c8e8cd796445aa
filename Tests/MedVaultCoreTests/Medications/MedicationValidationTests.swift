import Foundation
import MedVaultCore
import Testing

@Suite struct MedicationValidationTests {
    func field(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch let error as MedVaultError {
            return error.code == .validation ? error.field : "code \(error.code)"
        } catch { return "other" }
    }

    @Test func aValidMedicationScheduleAndLogPass() throws {
        let medication = Medication(patientID: UUID(), name: "N", genericName: "G", dosage: Dosage(amount: 0.001, unit: .mg),
                                    frequency: .everyNHours(24, startingAt: TimeOfDay(hour: 23, minute: 59)),
                                    startDate: try CalendarDate(iso8601: "2026-01-01"),
                                    endDate: try CalendarDate(iso8601: "2026-01-01"),
                                    inventory: MedicationInventory(current: 0, minimum: 0, packageSize: 1))
        #expect(field { try MedicationValidation.validate(medication) } == nil)
        let schedule = MedicationSchedule(medicationID: medication.id, times: [TimeOfDay(hour: 0)], timeZoneIdentifier: "UTC")
        #expect(field { try MedicationValidation.validate(schedule) } == nil)
        let log = DoseLog(medicationID: medication.id, scheduledAt: .now, status: .skipped, skipReason: .other)
        #expect(field { try MedicationValidation.validate(log) } == nil)
    }

    @Test func brokenValuesNameTheirField() throws {
        var m = Medication(patientID: UUID(), name: "\t", dosage: Dosage(amount: 1, unit: .mg), frequency: .asNeeded,
                           startDate: try CalendarDate(iso8601: "2026-01-01"))
        #expect(field { try MedicationValidation.validate(m) } == "name")
        m.name = "N"
        m.dosage.amount = .zero
        #expect(field { try MedicationValidation.validate(m) } == "dosage.amount")
        m.dosage.amount = 1
        m.endDate = try CalendarDate(iso8601: "2025-12-31")
        #expect(field { try MedicationValidation.validate(m) } == "endDate")
        m.endDate = nil
        m.frequency = .everyNHours(8, startingAt: TimeOfDay(hour: 8, minute: -1))
        #expect(field { try MedicationValidation.validate(m) } == "frequency.startingAt")
        let schedule = MedicationSchedule(medicationID: m.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Nowhere")
        #expect(field { try MedicationValidation.validate(schedule) } == "timeZoneIdentifier")
        let log = DoseLog(medicationID: m.id, scheduledAt: .now, status: .missed, skipReason: .forgot)
        #expect(field { try MedicationValidation.validate(log) } == "skipReason")
    }
}
