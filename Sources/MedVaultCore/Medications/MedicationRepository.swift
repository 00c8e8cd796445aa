import Foundation

/// Stores a patient's medications and their schedules.
///
/// Record conventions: ``create(_:)`` stores version 1 with `createdAt == updatedAt
/// == now`; ``update(_:)`` requires the stored version (else
/// ``MedVaultError/Code/conflict`` and nothing is written) and returns version + 1.
/// Invalid input throws ``MedVaultError/Code/validation`` naming the field, and
/// changes nothing. Lists are sorted by folded name, then identifier.
///
/// For example:
///
/// ```swift
/// var stored = try await medications.create(medication)
/// stored.instructions = "Con el desayuno"
/// stored = try await medications.update(stored)   // version 2
/// let found = try await medications.search("ibuprofeno", patientID: patientID)
/// ```
public protocol MedicationRepository: Sendable {
    /// Stores a new medication.
    ///
    /// - Parameter medication: The medication; its record fields are ignored.
    /// - Returns: The stored value (version 1).
    /// - Throws: ``MedVaultError/Code/validation`` (see ``MedicationValidation``),
    ///   ``MedVaultError/Code/duplicate`` when the identifier exists, or a storage error.
    ///   A SQL implementation also refuses an unknown patient.
    func create(_ medication: Medication) async throws -> Medication

    /// Saves changes to a stored medication (including its inventory: a restock is an update).
    ///
    /// - Parameter medication: The medication, with the ``Medication/version`` it read.
    /// - Returns: The stored value, version + 1.
    /// - Throws: ``MedVaultError/Code/notFound``, ``MedVaultError/Code/conflict`` for a
    ///   stale version, ``MedVaultError/Code/validation`` (also when `patientID` changed).
    func update(_ medication: Medication) async throws -> Medication

    /// The medication with this identifier, or `nil`.
    func medication(id: UUID) async throws -> Medication?

    /// A patient's medications.
    ///
    /// - Parameters:
    ///   - patientID: The patient.
    ///   - filter: Active (the usual view), inactive or all.
    func medications(forPatient patientID: UUID, filter: MedicationFilter) async throws -> [Medication]

    /// Medications whose name or generic name matches `query`, case- and
    /// accent-insensitively, by token prefix (``SearchText``): "ibupro" finds "Ibuprofeno".
    ///
    /// - Parameters:
    ///   - query: The search text; one with no letters or digits finds nothing.
    ///   - patientID: Only this patient's medications, or everyone's when `nil`.
    func search(_ query: String, patientID: UUID?) async throws -> [Medication]

    /// Marks a medication inactive (it keeps its history and expects no more doses).
    ///
    /// - Returns: The stored value, version + 1 (unchanged if already inactive).
    /// - Throws: ``MedVaultError/Code/notFound``.
    func deactivate(id: UUID) async throws -> Medication

    /// Stores a new schedule for a medication.
    ///
    /// - Returns: The stored value (version 1).
    /// - Throws: ``MedVaultError/Code/notFound`` for an unknown medication,
    ///   ``MedVaultError/Code/duplicate``, ``MedVaultError/Code/validation``.
    func createSchedule(_ schedule: MedicationSchedule) async throws -> MedicationSchedule

    /// Saves changes to a stored schedule, with optimistic versioning like ``update(_:)``.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``, ``MedVaultError/Code/conflict``,
    ///   ``MedVaultError/Code/validation`` (also when `medicationID` changed).
    func updateSchedule(_ schedule: MedicationSchedule) async throws -> MedicationSchedule

    /// A medication's schedules, oldest first (by `createdAt`, then identifier).
    func schedules(forMedication medicationID: UUID) async throws -> [MedicationSchedule]

    /// The schedules of all of a patient's medications (one read for a day's plan).
    func schedules(forPatient patientID: UUID) async throws -> [MedicationSchedule]
}
