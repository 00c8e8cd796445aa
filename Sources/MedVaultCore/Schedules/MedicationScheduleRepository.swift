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
}
