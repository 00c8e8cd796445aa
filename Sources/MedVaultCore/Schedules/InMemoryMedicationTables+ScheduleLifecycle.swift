import Foundation

extension InMemoryMedicationTables {
    func reviseSchedule(_ schedule: MedicationSchedule, effectiveFrom day: CalendarDate) throws -> MedicationSchedule {
        let current = try getSchedule(schedule.id)
        let (ended, started) = try ScheduleLifecycleRule.revised(
            schedule, replacing: current, effectiveFrom: day, newID: UUID(), now: clock.now())
        guard tables.schedules[started.id] == nil else { throw MedVaultError.duplicateRecord }
        tables.schedules[ended.id] = ended
        tables.schedules[started.id] = started
        return started
    }

    func pauseSchedule(_ id: UUID, from: CalendarDate, through: CalendarDate?) throws -> MedicationSchedule {
        let stored = try ScheduleLifecycleRule.paused(try getSchedule(id), from: from, through: through, now: clock.now())
        tables.schedules[id] = stored
        return stored
    }

    func resumeSchedule(_ id: UUID, on day: CalendarDate) throws -> MedicationSchedule {
        let stored = try ScheduleLifecycleRule.resumed(try getSchedule(id), on: day, now: clock.now())
        tables.schedules[id] = stored
        return stored
    }

    func endSchedule(_ id: UUID, lastDay: CalendarDate) throws -> MedicationSchedule {
        let stored = try ScheduleLifecycleRule.ended(try getSchedule(id), lastDay: lastDay, now: clock.now())
        tables.schedules[id] = stored
        return stored
    }

    func snooze(scheduleID: UUID, doseAt scheduledAt: Date) throws -> DoseSnooze {
        let schedule = try getSchedule(scheduleID)
        let medication = try getMedication(schedule.medicationID)
        try ReminderPlanner.checkDoseInstant(scheduledAt)
        let key = ScheduledDose.ID(medicationID: medication.id,
                                   scheduledAtMilliseconds: scheduledAt.millisecondsSince1970)
        let stored = try ReminderPlanner.snooze(
            scheduledAt, of: schedule, medication: medication, existing: tables.snoozes[key],
            isLogged: tables.logIDsByDose[key] != nil, now: clock.now())
        tables.snoozes[key] = stored
        return stored
    }

    func snooze(medicationID: UUID, doseAt scheduledAt: Date, timeZone: TimeZone) throws -> DoseSnooze {
        let medication = try getMedication(medicationID)
        try ReminderPlanner.checkDoseInstant(scheduledAt)
        let key = ScheduledDose.ID(medicationID: medication.id,
                                   scheduledAtMilliseconds: scheduledAt.millisecondsSince1970)
        let schedules = tables.schedules.values.filter { $0.medicationID == medicationID }
        let stored = try ReminderPlanner.snoozeFrequencyDose(
            scheduledAt, of: medication, schedules: Array(schedules), timeZone: timeZone,
            existing: tables.snoozes[key], isLogged: tables.logIDsByDose[key] != nil, now: clock.now())
        tables.snoozes[key] = stored
        return stored
    }

    func listSnoozes(patientID: UUID, in range: Range<Date>) -> [DoseSnooze] {
        tables.snoozes.values
            .filter { range.contains($0.scheduledAt) && tables.medications[$0.medicationID]?.patientID == patientID }
            .sorted { ($0.scheduledAt, $0.medicationID.uuidString) < ($1.scheduledAt, $1.medicationID.uuidString) }
    }
}
