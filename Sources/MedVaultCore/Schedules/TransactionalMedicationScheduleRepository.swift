import Foundation

/// Schedules inside a unit of work (``TransactionalMedicationStore/schedules``): the
/// synchronous mirror of ``MedicationScheduleRepository``, with the same rules,
/// results and errors, in the unit's transaction. Reads see the unit's own writes.
public protocol TransactionalMedicationScheduleRepository {
    /// Stores a new schedule, as ``MedicationScheduleRepository/create(_:)``.
    @discardableResult
    func create(_ schedule: MedicationSchedule) throws -> MedicationSchedule

    /// Saves changes to a schedule, as ``MedicationScheduleRepository/update(_:)``.
    @discardableResult
    func update(_ schedule: MedicationSchedule) throws -> MedicationSchedule

    /// The schedule with `id`, as ``MedicationScheduleRepository/get(_:)``.
    func get(_ id: UUID) throws -> MedicationSchedule

    /// A medication's schedules, as ``MedicationScheduleRepository/list(medicationID:)``.
    func list(medicationID: UUID) throws -> [MedicationSchedule]

    /// A patient's schedules, as ``MedicationScheduleRepository/list(patientID:)``.
    func list(patientID: UUID) throws -> [MedicationSchedule]

    /// Starts a new version from `day`, as ``MedicationScheduleRepository/revise(_:effectiveFrom:)``.
    @discardableResult
    func revise(_ schedule: MedicationSchedule, effectiveFrom day: CalendarDate) throws -> MedicationSchedule

    /// Pauses a schedule, as ``MedicationScheduleRepository/pause(_:from:through:)``.
    @discardableResult
    func pause(_ id: UUID, from: CalendarDate, through: CalendarDate?) throws -> MedicationSchedule

    /// Resumes a schedule, as ``MedicationScheduleRepository/resume(_:on:)``.
    @discardableResult
    func resume(_ id: UUID, on day: CalendarDate) throws -> MedicationSchedule

    /// Ends a schedule, as ``MedicationScheduleRepository/end(_:lastDay:)``.
    @discardableResult
    func end(_ id: UUID, lastDay: CalendarDate) throws -> MedicationSchedule

    /// Snoozes a dose's reminder, as ``MedicationScheduleRepository/snooze(scheduleID:doseAt:)``.
    @discardableResult
    func snooze(scheduleID: UUID, doseAt scheduledAt: Date) throws -> DoseSnooze

    /// Snoozes a frequency-derived dose's reminder, as
    /// ``MedicationScheduleRepository/snooze(medicationID:doseAt:timeZone:)``.
    @discardableResult
    func snooze(medicationID: UUID, doseAt scheduledAt: Date, timeZone: TimeZone) throws -> DoseSnooze

    /// A patient's snoozes, as ``MedicationScheduleRepository/snoozes(patientID:in:)``.
    func snoozes(patientID: UUID, in range: Range<Date>) throws -> [DoseSnooze]
}
