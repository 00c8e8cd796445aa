import Foundation

/// One dose of a day's plan: an expected dose with its resolved status, or a
/// logged dose that matches no expected one (as-needed, off-schedule).
public struct ScheduledDose: Sendable, Hashable, Identifiable {
    /// The medication.
    public var medicationID: UUID
    /// When the dose is (was) due.
    public var scheduledAt: Date
    /// The schedule time's label, if any.
    public var label: String?
    /// The status as of the query's "now" and grace window.
    public var status: DoseStatus
    /// The stored log, if the dose was logged.
    public var log: DoseLog?
    /// `true` for a dose expected by a schedule or frequency; `false` for a log that
    /// matches none.
    public var isExpected: Bool
    /// The amount its schedule sets (taper step or per-time amount); `nil`: the
    /// medication's dosage.
    public var amount: MedicationQuantity?

    /// Creates a dose.
    public init(medicationID: UUID, scheduledAt: Date, label: String?, status: DoseStatus, log: DoseLog?,
                isExpected: Bool, amount: MedicationQuantity? = nil) {
        self.medicationID = medicationID
        self.scheduledAt = scheduledAt
        self.label = label
        self.status = status
        self.log = log
        self.isExpected = isExpected
        self.amount = amount
    }

    /// A log of this dose as taken at `takenAt`, carrying the amount its schedule sets (a
    /// taper step or a per-time amount), so the stock goes down by what the regimen says.
    ///
    /// For example:
    ///
    /// ```swift
    /// let receipt = try await store.doseLogs.create(dose.takenLog(at: .now))
    /// ```
    public func takenLog(at takenAt: Date, notes: String? = nil) -> DoseLog {
        DoseLog(medicationID: medicationID, scheduledAt: scheduledAt, status: .taken, takenAt: takenAt,
                amount: amount, notes: notes)
    }

    /// Identifies the dose by medication and scheduled instant.
    public struct ID: Hashable, Sendable {
        /// The medication.
        public var medicationID: UUID
        /// The scheduled instant, in milliseconds.
        public var scheduledAtMilliseconds: Int64

        /// Creates an identity.
        public init(medicationID: UUID, scheduledAtMilliseconds: Int64) {
            self.medicationID = medicationID
            self.scheduledAtMilliseconds = scheduledAtMilliseconds
        }
    }

    /// The dose's identity: medication and scheduled instant.
    public var id: ID {
        ID(medicationID: medicationID, scheduledAtMilliseconds: scheduledAt.millisecondsSince1970)
    }
}
