import Foundation

/// Stock added to a medication's inventory: a refill, with its date and quantity.
///
/// Refills are kept (listable, exported) and never changed: a wrong refill is
/// compensated by an explicit inventory adjustment (``MedicationRepository/update(_:)``,
/// a recount). Storing a refill adds ``quantity`` to the inventory in the same
/// transaction; a medication without an inventory starts tracking one.
///
/// For example:
///
/// ```swift
/// let receipt = try await store.refills.create(MedicationRefill(
///     medicationID: id, quantity: 30, date: today, expirationDate: try CalendarDate(iso8601: "2027-06-30")))
/// receipt.medication.inventory?.current // previous stock + 30
/// ```
public struct MedicationRefill: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public let id: UUID
    /// The medication restocked.
    public var medicationID: UUID
    /// How much was added, in the unit of the medication's dose (units of form); above zero.
    public var quantity: MedicationQuantity
    /// The calendar day of the refill.
    public var date: CalendarDate
    /// The expiration date of the new stock; when set, it becomes the inventory's.
    public var expirationDate: CalendarDate?
    /// Free-text notes (pharmacy, prescription number…).
    public var notes: String?
    /// When the record was created (set by the repository).
    public var createdAt: Date
    /// The stored version (set by the repository; always 1: refills never change).
    public var version: Int64

    /// Creates a refill not yet stored (version 0).
    public init(
        id: UUID = UUID(), medicationID: UUID, quantity: MedicationQuantity, date: CalendarDate,
        expirationDate: CalendarDate? = nil, notes: String? = nil,
        createdAt: Date = Date(timeIntervalSince1970: 0), version: Int64 = 0
    ) {
        self.id = id
        self.medicationID = medicationID
        self.quantity = quantity
        self.date = date
        self.expirationDate = expirationDate
        self.notes = notes
        self.createdAt = createdAt
        self.version = version
    }
}

/// What storing a refill wrote: the refill and the medication with its new inventory.
public struct MedicationRefillReceipt: Sendable, Hashable {
    /// The stored refill (version 1).
    public var refill: MedicationRefill
    /// The medication after the refill: inventory increased; version + 1 only when the
    /// refill started an inventory or changed its expiration date.
    public var medication: Medication

    /// Creates a receipt.
    public init(refill: MedicationRefill, medication: Medication) {
        self.refill = refill
        self.medication = medication
    }
}
