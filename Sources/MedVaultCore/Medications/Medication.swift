import Foundation

/// A medication a patient takes: what, how much, how often, from when to when,
/// and optionally how much is left at home.
///
/// The record fields (``createdAt``, ``updatedAt``, ``version``) are set by the
/// repository: ``MedicationRepository/create(_:)`` stores version 1, and every
/// update must carry the version it read.
///
/// For example:
///
/// ```swift
/// let metformin = Medication(
///     patientID: patientID,
///     name: "Metformina",
///     dosage: Dosage(amount: 850, unit: .mg),
///     frequency: .specificTimes([TimeOfDay(hour: 8), TimeOfDay(hour: 20)]),
///     startDate: try CalendarDate(iso8601: "2026-01-01"),
///     inventory: MedicationInventory(current: 60, minimum: 10)
/// )
/// let stored = try await medications.create(metformin)
/// ```
public struct Medication: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public let id: UUID
    /// The patient the medication belongs to; cannot change once created.
    public var patientID: UUID
    /// The commercial or usual name; not blank.
    public var name: String
    /// The generic (active ingredient) name, if known; not blank when present.
    public var genericName: String?
    /// The amount of one dose, in units of the form (1 tablet, 5 ml, 2 puffs): the
    /// unit the ``inventory`` is counted in and each taken dose subtracts.
    ///
    /// A medication stored before strengths existed keeps the amount and unit it was
    /// created with (say 850 mg) and its ``strength`` is `nil`: its inventory is then
    /// counted in that unit, exactly as before (see docs/medications.md, "Strength and units").
    public var dosage: Dosage
    /// The active ingredient per unit of the dose (850 mg per tablet), if known.
    public var strength: MedicationStrength?
    /// The pharmaceutical form.
    public var form: MedicationForm
    /// The administration route.
    public var route: AdministrationRoute
    /// How often it is taken.
    public var frequency: MedicationFrequency
    /// Free-text instructions ("with food").
    public var instructions: String?
    /// The first day of treatment (a calendar date in the schedule's time zone).
    public var startDate: CalendarDate
    /// The last day of treatment, inclusive; not before ``startDate``. `nil`: open-ended.
    public var endDate: CalendarDate?
    /// Whether the medication is current. An inactive medication expects no doses
    /// after ``deactivatedAt``; the days before keep their doses and adherence.
    public var isActive: Bool
    /// When the medication was deactivated (set by the repository on deactivation,
    /// cleared on reactivation). `nil` on an inactive medication stored before this
    /// was recorded: it expects no doses at all, as it did then.
    public var deactivatedAt: Date?
    /// For an as-needed medication, the most doses taken in any 24 hours (1 through
    /// 100); logging one more is refused with ``MedVaultError/Code/limitExceeded``.
    /// `nil`: no limit.
    public var maximumDosesPer24Hours: Int?
    /// Whether it needs a prescription.
    public var requiresPrescription: Bool
    /// The stock on hand, in the unit of ``dosage``, if the patient tracks it.
    public var inventory: MedicationInventory?
    /// When the record was created (set by the repository).
    public var createdAt: Date
    /// When the record was last changed (set by the repository).
    public var updatedAt: Date
    /// The stored version (set by the repository; 1 after create, +1 on each change).
    public var version: Int64

    /// Creates a medication not yet stored (version 0).
    public init(
        id: UUID = UUID(),
        patientID: UUID,
        name: String,
        genericName: String? = nil,
        dosage: Dosage,
        strength: MedicationStrength? = nil,
        form: MedicationForm = .tablet,
        route: AdministrationRoute = .oral,
        frequency: MedicationFrequency,
        instructions: String? = nil,
        startDate: CalendarDate,
        endDate: CalendarDate? = nil,
        isActive: Bool = true,
        requiresPrescription: Bool = false,
        inventory: MedicationInventory? = nil,
        maximumDosesPer24Hours: Int? = nil,
        deactivatedAt: Date? = nil,
        createdAt: Date = Date(timeIntervalSince1970: 0),
        updatedAt: Date = Date(timeIntervalSince1970: 0),
        version: Int64 = 0
    ) {
        self.id = id
        self.patientID = patientID
        self.name = name
        self.genericName = genericName
        self.dosage = dosage
        self.strength = strength
        self.form = form
        self.route = route
        self.frequency = frequency
        self.instructions = instructions
        self.startDate = startDate
        self.endDate = endDate
        self.isActive = isActive
        self.requiresPrescription = requiresPrescription
        self.inventory = inventory
        self.maximumDosesPer24Hours = maximumDosesPer24Hours
        self.deactivatedAt = deactivatedAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }

    /// Whether `day` lies within ``startDate`` … ``endDate`` (inclusive).
    public func isInTreatment(on day: CalendarDate) -> Bool {
        day >= startDate && (endDate.map { day <= $0 } ?? true)
    }
}
