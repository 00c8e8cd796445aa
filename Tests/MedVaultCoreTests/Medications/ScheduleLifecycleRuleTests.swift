import Foundation
@testable import MedVaultCore
import Testing

/// The pure lifecycle transitions: what pause, resume, end and revise store.
@Suite struct ScheduleLifecycleRuleTests {
    static func date(_ text: String) -> CalendarDate {
        (try? CalendarDate(iso8601: text)) ?? CalendarDate(dayNumber: 0)
    }

    let now = Date(timeIntervalSince1970: 1_780_000_000)
    let stored = MedicationSchedule(medicationID: UUID(), times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "UTC",
                                    createdAt: Date(timeIntervalSince1970: 1), updatedAt: Date(timeIntervalSince1970: 1),
                                    version: 3)

    @Test func pauseResumeAndEnd() throws {
        let paused = try ScheduleLifecycleRule.paused(stored, from: Self.date("2026-05-10"), through: nil, now: now)
        #expect(paused.pauses == [SchedulePause(from: Self.date("2026-05-10"))])
        #expect(paused.version == 4 && paused.updatedAt == now && paused.createdAt == stored.createdAt)
        #expect(paused.openPause != nil)
        #expect(throws: MedVaultError.self) {
            _ = try ScheduleLifecycleRule.paused(paused, from: Self.date("2026-05-20"), through: Self.date("2026-05-21"), now: now)
        }
        let resumed = try ScheduleLifecycleRule.resumed(paused, on: Self.date("2026-05-17"), now: now)
        #expect(resumed.pauses == [SchedulePause(from: Self.date("2026-05-10"), through: Self.date("2026-05-16"))])
        #expect(!resumed.isInForce(on: Self.date("2026-05-16")) && resumed.isInForce(on: Self.date("2026-05-17")))
        // Resumed before the pause began: the pause is dropped.
        #expect(try ScheduleLifecycleRule.resumed(paused, on: Self.date("2026-05-10"), now: now).pauses.isEmpty)
        #expect(throws: MedVaultError.self) { _ = try ScheduleLifecycleRule.resumed(resumed, on: Self.date("2026-05-20"), now: now) }

        let ended = try ScheduleLifecycleRule.ended(resumed, lastDay: Self.date("2026-06-30"), now: now)
        #expect(ended.effectiveUntil == Self.date("2026-06-30") && ended.version == 6)
        var started = stored
        started.effectiveFrom = Self.date("2026-05-01")
        #expect(throws: MedVaultError.self) { _ = try ScheduleLifecycleRule.ended(started, lastDay: Self.date("2026-04-30"), now: now) }
    }

    @Test func reviseEndsTheCurrentVersionAndStartsANewOne() throws {
        var paused = stored
        paused.pauses = [SchedulePause(from: Self.date("2026-05-01"), through: Self.date("2026-05-03")),
                         SchedulePause(from: Self.date("2026-05-20"))]
        var edited = paused
        edited.times = [TimeOfDay(hour: 9)]
        let newID = UUID()
        let (ended, started) = try ScheduleLifecycleRule.revised(edited, replacing: paused, effectiveFrom: Self.date("2026-05-10"),
                                                                 newID: newID, now: now)
        #expect(ended.times == stored.times && ended.effectiveUntil == Self.date("2026-05-09") && ended.version == 4)
        #expect(started.id == newID && started.seriesID == stored.id && started.version == 1 && started.createdAt == now)
        #expect(started.times == [TimeOfDay(hour: 9)] && started.effectiveFrom == Self.date("2026-05-10"))
        #expect(started.pauses == [SchedulePause(from: Self.date("2026-05-20"))])

        var stale = edited
        stale.version = 2
        #expect(throws: MedVaultError.recordConflict) {
            _ = try ScheduleLifecycleRule.revised(stale, replacing: paused, effectiveFrom: Self.date("2026-05-10"), newID: newID, now: now)
        }
        #expect(throws: MedVaultError.self) {
            _ = try ScheduleLifecycleRule.revised(edited, replacing: started, effectiveFrom: Self.date("2026-05-10"), newID: newID, now: now)
        }
    }
}
