import Foundation

/// What happened to one dose: taken (when), skipped (why) or missed.
///
/// A log is matched to an expected dose by ``medicationID`` and ``scheduledAt``
/// (to the millisecond); a medication has at most one log per scheduled instant.
/// Instants are truncated to whole milliseconds when stored.
///
/// Loggable statuses are ``DoseStatus/taken``, ``DoseStatus/late``,
/// ``DoseStatus/skipped`` and ``DoseStatus/missed``; whether a taken dose reads as
/// late is decided when doses are read, against the grace window of the query.
///
/// For example:
///
/// ```swift
/// let log = DoseLog(medicationID: id, scheduledAt: dose.scheduledAt, status: .taken, takenAt: .now)
/// let receipt = try await store.doseLogs.create(log)
/// receipt.shortfall // non-zero if the inventory ran out
/// ```
public struct DoseLog: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public let id: UUID
    /// The medication taken.
    public var medicationID: UUID
    /// When the dose was due (for an as-needed dose: when it was taken).
    public var scheduledAt: Date
    /// When it was taken; required for taken and late, absent otherwise.
    public var takenAt: Date?
    /// How much was taken, in the unit of the medication's dose (``Medication/dosage``);
    /// only for taken and late doses. `nil` when creating a log means "the
    /// medication's dose": the repository stores the resolved amount, so a later
    /// correction or void gives back exactly what was subtracted from the inventory.
    public var amount: MedicationQuantity?
    /// The logged status.
    public var status: DoseStatus
    /// Why it was skipped; only for skipped doses.
    public var skipReason: SkipReason?
    /// Free-text notes.
    public var notes: String?
    /// When the record was created (set by the repository).
    public var createdAt: Date
    /// When the record was last changed (set by the repository).
    public var updatedAt: Date
    /// The stored version (set by the repository).
    public var version: Int64

    /// Creates a log not yet stored (version 0).
    public init(
        id: UUID = UUID(),
        medicationID: UUID,
        scheduledAt: Date,
        status: DoseStatus,
        takenAt: Date? = nil,
        amount: MedicationQuantity? = nil,
        skipReason: SkipReason? = nil,
        notes: String? = nil,
        createdAt: Date = Date(timeIntervalSince1970: 0),
        updatedAt: Date = Date(timeIntervalSince1970: 0),
        version: Int64 = 0
    ) {
        self.id = id
        self.medicationID = medicationID
        self.scheduledAt = scheduledAt
        self.takenAt = takenAt
        self.amount = amount
        self.status = status
        self.skipReason = skipReason
        self.notes = notes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }

    /// Whether this log consumes a dose from the inventory (taken or late).
    public var consumesDose: Bool { status == .taken || status == .late }
}
