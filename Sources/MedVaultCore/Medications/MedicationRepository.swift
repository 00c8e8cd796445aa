import Foundation

/// Stores a patient's medications.
///
/// Record conventions, the same as every MedVault repository: ``create(_:)`` stores
/// version 1 with `createdAt == updatedAt == now`; ``update(_:)`` requires the stored
/// version (else ``MedVaultError/Code/conflict`` and nothing is written) and returns
/// version + 1; ``get(_:)`` throws ``MedVaultError/Code/notFound`` where ``find(_:)``
/// returns `nil`. Invalid input throws ``MedVaultError/Code/validation`` naming the
/// field, and changes nothing. Lists are sorted by folded name, then identifier.
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
    /// - Throws: ``MedVaultError/Code/validation`` (see ``Medication/validated()``),
    ///   ``MedVaultError/Code/duplicate`` when the identifier exists, or a storage error.
    ///   A store that knows patients refuses an unknown one with
    ///   ``MedVaultError/Code/notFound``, field `patientID`.
    @discardableResult
    func create(_ medication: Medication) async throws -> Medication

    /// Saves changes to a stored medication (including its inventory: a recount is an update).
    ///
    /// An `inventory.current` equal to the stored stock, or to the stock this version
    /// was written with (a copy read before doses were logged), leaves the stock as it
    /// is; any other value is a recount, recorded as a stock adjustment.
    ///
    /// - Parameter medication: The medication, with the ``Medication/version`` it read.
    /// - Returns: The stored value, version + 1.
    /// - Throws: ``MedVaultError/Code/notFound``, ``MedVaultError/Code/validation``
    ///   (also when `patientID` changed), ``MedVaultError/Code/conflict`` for a stale version.
    @discardableResult
    func update(_ medication: Medication) async throws -> Medication

    /// The medication with this identifier, active or not.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func get(_ id: UUID) async throws -> Medication

    /// A patient's medications.
    ///
    /// - Parameters:
    ///   - patientID: The patient.
    ///   - filter: Active (the usual view), inactive or all.
    func list(patientID: UUID, filter: MedicationFilter) async throws -> [Medication]

    /// Medications whose name or generic name matches `query`, case- and
    /// accent-insensitively, by token prefix (``SearchText``): "ibupro" finds "Ibuprofeno".
    ///
    /// - Parameters:
    ///   - query: The search text; one with no letters or digits finds nothing. Its first
    ///     32 distinct words count (``SearchText/queryTokens(of:)``).
    ///   - patientID: Only this patient's medications, or everyone's when `nil`.
    func search(_ query: String, patientID: UUID?) async throws -> [Medication]

    /// Marks a medication inactive (it keeps its history and expects no more doses).
    ///
    /// - Returns: The stored value, version + 1 (unchanged if already inactive).
    /// - Throws: ``MedVaultError/Code/notFound``.
    @discardableResult
    func deactivate(_ id: UUID) async throws -> Medication
}

extension MedicationRepository {
    /// The medication with this identifier, or `nil` when there is none.
    ///
    /// - Throws: A storage error (never ``MedVaultError/Code/notFound``).
    public func find(_ id: UUID) async throws -> Medication? {
        do {
            return try await get(id)
        } catch let error as MedVaultError where error.code == .notFound {
            return nil
        }
    }

    /// A patient's active medications.
    public func list(patientID: UUID) async throws -> [Medication] {
        try await list(patientID: patientID, filter: .active)
    }

    /// The number of a patient's medications passing `filter` (active by default).
    public func count(patientID: UUID, filter: MedicationFilter = .active) async throws -> Int {
        try await list(patientID: patientID, filter: filter).count
    }
}
