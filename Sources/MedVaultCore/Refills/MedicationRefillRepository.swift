import Foundation

/// Stores refills (``MedicationStore/refills``): each adds its quantity to the
/// medication's inventory in the same transaction.
///
/// For example:
///
/// ```swift
/// try await store.refills.create(MedicationRefill(medicationID: id, quantity: 60, date: today))
/// let all = try await store.refills.list(medicationID: id)
/// ```
public protocol MedicationRefillRepository: Sendable {
    /// Stores a refill and adds its quantity to the inventory, atomically.
    ///
    /// - Parameter refill: The refill; its record fields are ignored.
    /// - Returns: The stored refill and the medication after the write.
    /// - Throws: ``MedVaultError/Code/notFound`` (field `medicationID`) for an unknown
    ///   medication, ``MedVaultError/Code/validation`` (a quantity not above zero,
    ///   control characters in the notes), ``MedVaultError/Code/duplicate`` for a
    ///   known identifier. Nothing is written on error.
    @discardableResult
    func create(_ refill: MedicationRefill) async throws -> MedicationRefillReceipt

    /// The refill with this identifier.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func get(_ id: UUID) async throws -> MedicationRefill

    /// A medication's refills, by date, then creation, oldest first.
    func list(medicationID: UUID) async throws -> [MedicationRefill]
}

/// Refills inside a unit of work (``TransactionalMedicationStore/refills``): the
/// synchronous mirror of ``MedicationRefillRepository``, same rules and errors.
public protocol TransactionalMedicationRefillRepository {
    /// Stores a refill, as ``MedicationRefillRepository/create(_:)``.
    @discardableResult
    func create(_ refill: MedicationRefill) throws -> MedicationRefillReceipt

    /// The refill with `id`, as ``MedicationRefillRepository/get(_:)``.
    func get(_ id: UUID) throws -> MedicationRefill

    /// A medication's refills, as ``MedicationRefillRepository/list(medicationID:)``.
    func list(medicationID: UUID) throws -> [MedicationRefill]
}
