import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A vault written before the "medication schedule lifecycle and reminders"
/// migration opens with its medications, schedules and logs intact and the same
/// adherence for past weeks.
@Suite("Schedule lifecycle migration")
struct ScheduleLifecycleMigrationTests {
    static let previous = SchemaMigrator(Array(MedVaultSchema.migrator.migrations.prefix {
        $0.name != "medication schedule lifecycle and reminders"
    }))

    @Test("Existing schedules become versions in force since their medication started, with default reminders")
    func existingRowsReadAsBefore() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("before.db")
            let key = StorageFixtures.randomKey()
            let patientID = UUID(), active = UUID(), inactive = UUID(), scheduleID = UUID()
            let madrid = MT.madrid
            let old = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing, migrator: Self.previous)
            try await old.write { db in
                try TemporaryMedicationDatabase.insertPatient(id: patientID, db)
                // The columns migration 2 created, nothing more.
                for (id, isActive) in [(active, 1), (inactive, 0)] {
                    try db.execute("""
                        INSERT INTO medication (id, patient_id, name, dosage_amount, dosage_unit, form, route,
                            frequency_kind, frequency_count, start_date, is_active, requires_prescription, inventory_current,
                            inventory_minimum, created_at, updated_at, version)
                        VALUES (?, ?, 'Metformina', 1000, 'tablets', 'tablet', 'oral', 'timesPerDay', 1, '2026-03-02', ?, 0,
                            20000, 5000, 0, 0, 1)
                        """, [id.vaultValue, patientID.vaultValue, .integer(Int64(isActive))])
                }
                // Created on 2026-03-05, after the medication started on the 2nd.
                try db.execute("""
                    INSERT INTO medication_schedule (id, medication_id, times, time_labels, days_of_week, time_zone,
                        created_at, updated_at, version)
                    VALUES (?, ?, '480,1200', '["Desayuno",null]', 0, 'Europe/Madrid', ?, ?, 1)
                    """, [scheduleID.vaultValue, active.vaultValue,
                          MT.utc("2026-03-05T10:00:00Z").vaultValue, MT.utc("2026-03-05T10:00:00Z").vaultValue])
                for offset in [0, 1, 2] {
                    let at = MT.local(MT.day("2026-03-02").adding(days: offset), 8, 0, madrid)
                    try db.execute("""
                        INSERT INTO dose_log (id, medication_id, patient_id, scheduled_at, taken_at, status,
                            created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, 'taken', 0, 0, 1)
                        """, [UUID().vaultValue, active.vaultValue, patientID.vaultValue, at.vaultValue, at.vaultValue])
                }
            }
            await old.close()

            let pool = try await VaultDatabase.open(at: url, key: key, mode: .openExisting, migrator: MedVaultSchema.migrator)
            let store = SQLCipherMedicationStore(pool: pool, clock: .fixed(MT.utc("2026-03-20T12:00:00Z")),
                                                 faults: MedicationFaultSwitch())
            let schedule = try await store.schedules.get(scheduleID)
            #expect(schedule.seriesID == scheduleID)
            #expect(schedule.effectiveFrom == nil && schedule.effectiveUntil == nil && schedule.pauses.isEmpty)
            #expect(schedule.interval == nil && schedule.taperSteps.isEmpty && schedule.reminders == .standard)
            #expect(schedule.times == [TimeOfDay(hour: 8, label: "Desayuno"), TimeOfDay(hour: 20)])
            #expect(schedule.version == 1)
            let medication = try await store.get(active)
            #expect(medication.maximumDosesPer24Hours == nil && medication.deactivatedAt == nil)
            #expect(medication.inventory == MedicationInventory(current: 20, minimum: 5))
            #expect(try await store.get(inactive).isActive == false)

            // The first week, as the store computed it before: the schedule from the
            // medication's first day (not from its creation), the inactive one nothing.
            let week = try await store.adherence(forPatient: patientID, from: MT.day("2026-03-02"),
                                                 through: MT.day("2026-03-08"), in: madrid)
            #expect(week == AdherenceStats(expected: 14, taken: 3, missed: 11))
            #expect(try await store.doseLogs.list(patientID: patientID, in: MT.utc("2026-03-01T00:00:00Z")..<MT.utc("2026-04-01T00:00:00Z")).count == 3)
            await pool.close()
        }
    }
}
