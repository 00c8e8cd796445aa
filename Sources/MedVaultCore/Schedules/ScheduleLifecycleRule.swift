import Foundation

/// The pure state transitions of a schedule's lifecycle (pause, resume, end,
/// revise), written once and used by every backend: a backend reads the stored
/// version, asks these rules for the values to store, and writes them.
package enum ScheduleLifecycleRule {
    /// `current` paused from `from` through `through` (inclusive; `nil`: until resumed).
    ///
    /// - Throws: `validation` (field `pauses`) when the pause ends before it starts
    ///   or overlaps a pause already recorded (an open pause included).
    package static func paused(_ current: MedicationSchedule, from: CalendarDate, through: CalendarDate?,
                               now: Date) throws -> MedicationSchedule {
        var next = current
        next.pauses.append(SchedulePause(from: from, through: through))
        next.pauses.sort { $0.from < $1.from }
        return try next.validated().stamped(replacing: current, at: now)
    }

    /// `current` resumed on `day`: its open pause ends the day before (or is
    /// dropped when it had not started yet).
    ///
    /// - Throws: `validation` (field `pauses`) when the schedule has no open pause.
    package static func resumed(_ current: MedicationSchedule, on day: CalendarDate,
                                now: Date) throws -> MedicationSchedule {
        guard let index = current.pauses.firstIndex(where: { $0.through == nil }) else {
            throw MedVaultError.validation("pauses", "the schedule is not paused")
        }
        var next = current
        if day <= current.pauses[index].from {
            next.pauses.remove(at: index)
        } else {
            next.pauses[index].through = day.adding(days: -1)
        }
        return try next.validated().stamped(replacing: current, at: now)
    }

    /// `current` ended: `lastDay` is the last day it is in force.
    ///
    /// - Throws: `validation` (field `effectiveUntil`) when `lastDay` is before the
    ///   version's first day.
    package static func ended(_ current: MedicationSchedule, lastDay: CalendarDate,
                              now: Date) throws -> MedicationSchedule {
        var next = current
        next.effectiveUntil = lastDay
        return try next.validated().stamped(replacing: current, at: now)
    }

    /// A revision: `current` ends the day before `day`, and `edited` (the caller's
    /// changes to `current`) becomes a new version of the same series, with
    /// identifier `newID`, in force from `day`. Pauses that end before `day` stay
    /// with the old version; the others are carried over.
    ///
    /// - Throws: `validation` (a field of `edited`; `medicationID` when it changed;
    ///   `effectiveFrom` when `day` is not after the current version's first day);
    ///   `conflict` when `edited.version` is not `current.version`.
    package static func revised(
        _ edited: MedicationSchedule, replacing current: MedicationSchedule, effectiveFrom day: CalendarDate,
        newID: UUID, now: Date
    ) throws -> (ended: MedicationSchedule, started: MedicationSchedule) {
        guard edited.medicationID == current.medicationID else {
            throw MedVaultError.validation("medicationID", "cannot change")
        }
        if let start = current.effectiveFrom, day <= start {
            throw MedVaultError.validation("effectiveFrom", "must be after the current version's first day")
        }
        guard edited.version == current.version else { throw MedVaultError.recordConflict }
        var ended = current
        ended.effectiveUntil = min(current.effectiveUntil ?? day.adding(days: -1), day.adding(days: -1))
        var started = MedicationSchedule(
            id: newID, medicationID: current.medicationID, times: edited.times, daysOfWeek: edited.daysOfWeek,
            timeZoneIdentifier: edited.timeZoneIdentifier, seriesID: current.seriesID,
            effectiveFrom: day, effectiveUntil: edited.effectiveUntil,
            pauses: edited.pauses.filter { ($0.through ?? day) >= day },
            interval: edited.interval, taperSteps: edited.taperSteps, reminders: edited.reminders)
        started = try started.validated().stampedAsNew(at: now)
        return (try ended.validated().stamped(replacing: current, at: now), started)
    }
}
