import Foundation

/// Stores the schedules of medications: when each dose is expected.
///
/// Record conventions as in ``MedicationRepository``: version 1 on create,
/// optimistic versioning on update, ``get(_:)`` throws ``MedVaultError/Code/notFound``.
///
/// For example:
///
/// ```swift
/// let morning = try await schedules.create(MedicationSchedule(
///     medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Madrid"))
/// let all = try await schedules.list(medicationID: medication.id)
/// ```
public protocol MedicationScheduleRepository: Sendable {
    /// Stores a new schedule for a medication.
    ///
    /// - Returns: The stored value (version 1).
    /// - Throws: ``MedVaultError/Code/notFound`` (field `medicationID`) for an unknown
    ///   medication, ``MedVaultError/Code/validation`` (see ``MedicationSchedule/validated()``),
    ///   ``MedVaultError/Code/duplicate``.
    @discardableResult
    func create(_ schedule: MedicationSchedule) async throws -> MedicationSchedule

    /// Saves changes to a stored schedule, with optimistic versioning.
    ///
    /// - Returns: The stored value, version + 1.
    /// - Throws: ``MedVaultError/Code/notFound``, ``MedVaultError/Code/validation``
    ///   (also when `medicationID` changed), ``MedVaultError/Code/conflict``.
    @discardableResult
    func update(_ schedule: MedicationSchedule) async throws -> MedicationSchedule

    /// The schedule with this identifier.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func get(_ id: UUID) async throws -> MedicationSchedule

    /// A medication's schedules, oldest first (by `createdAt`, then identifier).
    func list(medicationID: UUID) async throws -> [MedicationSchedule]

    /// The schedules of all of a patient's medications, oldest first (one read for a day's plan).
    func list(patientID: UUID) async throws -> [MedicationSchedule]

    // MARK: - Lifecycle

    /// Changes a schedule from `day` on: the stored version ends the day before and
    /// `schedule` (your edited copy of it, same `id` and `version`) is stored as a new
    /// version of the same series, with a new identifier, in force from `day`. Past
    /// days keep the version that was in force then.
    ///
    /// For example:
    ///
    /// ```swift
    /// var edited = try await schedules.get(id)
    /// edited.times = [TimeOfDay(hour: 9)]
    /// let next = try await schedules.revise(edited, effectiveFrom: tomorrow)
    /// ```
    ///
    /// - Returns: The new version (version 1, `effectiveFrom == day`).
    /// - Throws: ``MedVaultError/Code/notFound``, ``MedVaultError/Code/validation``
    ///   (a field; `medicationID` when it changed; `effectiveFrom` when `day` is not
    ///   after the stored version's first day), ``MedVaultError/Code/conflict``.
    @discardableResult
    func revise(_ schedule: MedicationSchedule, effectiveFrom day: CalendarDate) async throws -> MedicationSchedule

    /// Pauses a schedule from `from` through `through` (inclusive), or until
    /// ``resume(_:on:)`` when `through` is `nil`. No dose is expected on those days.
    ///
    /// - Returns: The stored value, version + 1.
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/validation``
    ///   (field `pauses`) when the range ends before it starts or overlaps another pause.
    @discardableResult
    func pause(_ id: UUID, from: CalendarDate, through: CalendarDate?) async throws -> MedicationSchedule

    /// Resumes a paused schedule: doses are expected again from `day`.
    ///
    /// - Returns: The stored value, version + 1.
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/validation``
    ///   (field `pauses`) when it has no open-ended pause.
    @discardableResult
    func resume(_ id: UUID, on day: CalendarDate) async throws -> MedicationSchedule

    /// Ends a schedule: `lastDay` is the last day it expects doses.
    ///
    /// - Returns: The stored value, version + 1.
    /// - Throws: ``MedVaultError/Code/notFound``; ``MedVaultError/Code/validation``
    ///   (field `effectiveUntil`) when `lastDay` is before its first day.
    @discardableResult
    func end(_ id: UUID, lastDay: CalendarDate) async throws -> MedicationSchedule

    // MARK: - Reminders

    /// Snoozes the reminder of the dose at `scheduledAt` of schedule `scheduleID`:
    /// it fires again the schedule's ``ReminderSettings/snoozeMinutes`` after the
    /// store clock's now.
    ///
    /// - Returns: The stored snooze.
    /// - Throws: ``MedVaultError/Code/notFound`` (unknown schedule);
    ///   ``MedVaultError/Code/validation`` (field `scheduledAt`) when the schedule
    ///   expects no dose then; ``MedVaultError/Code/duplicate`` when the dose is
    ///   logged; ``MedVaultError/Code/limitExceeded`` past ``ReminderSettings/maximumSnoozes``.
    @discardableResult
    func snooze(scheduleID: UUID, doseAt scheduledAt: Date) async throws -> DoseSnooze

    /// Snoozes the reminder of a dose that comes from a medication's frequency (it has
    /// no schedule): it fires again ``ReminderSettings/standard``'s snooze length
    /// (10 minutes) after the store clock's now, at most 3 times.
    ///
    /// For example:
    ///
    /// ```swift
    /// let madrid = TimeZone(identifier: "Europe/Madrid")!
    /// try await store.schedules.snooze(medicationID: medication.id, doseAt: reminder.scheduledAt, timeZone: madrid)
    /// ```
    ///
    /// - Parameters:
    ///   - medicationID: The medication.
    ///   - scheduledAt: The dose.
    ///   - timeZone: The zone its frequency's times are read in: the one given to
    ///     `MedicationStore.upcomingReminders(forPatient:from:until:timeZone:options:)`.
    /// - Returns: The stored snooze.
    /// - Throws: ``MedVaultError/Code/notFound`` (unknown medication);
    ///   ``MedVaultError/Code/validation`` (field `scheduledAt`) when its frequency
    ///   expects no dose then, or it has schedules; ``MedVaultError/Code/duplicate`` when
    ///   the dose is logged; ``MedVaultError/Code/limitExceeded`` past 3 snoozes.
    @discardableResult
    func snooze(medicationID: UUID, doseAt scheduledAt: Date, timeZone: TimeZone) async throws -> DoseSnooze

    /// The snoozes of a patient's doses scheduled in `range`, by scheduled instant.
    func snoozes(patientID: UUID, in range: Range<Date>) async throws -> [DoseSnooze]
}
