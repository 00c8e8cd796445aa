import Foundation

/// A ``MedicationStore`` held in memory, for tests, previews and apps' own unit tests.
///
/// It follows exactly the same rules as the SQLCipher store (the shared
/// conformance suite runs against both): the rules are written once in
/// `MedicationRecordRule` and ``MedicationUpdateRule``. Its three repositories
/// share one set of tables, so a dose log and its inventory change are one atomic
/// step, and a failing write, including a batch that fails half way, changes nothing.
///
/// For example:
///
/// ```swift
/// let store = InMemoryMedicationStore(clock: .fixed(someInstant))
/// let stored = try await store.create(medication)
/// try await store.schedules.create(MedicationSchedule(
///     medicationID: stored.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Madrid"))
/// ```
public struct InMemoryMedicationStore: MedicationStore {
    /// The clock that stamps records and decides which doses are already missed.
    public let clock: RecordClock
    /// The medications' schedules.
    public let schedules: any MedicationScheduleRepository
    /// What happened to doses.
    public let doseLogs: any DoseLogRepository
    /// Stock added to the medications.
    public let refills: any MedicationRefillRepository

    let tables: InMemoryMedicationTables
    /// The patients of the ``InMemoryVault`` this store belongs to; `nil` for a store
    /// on its own, which knows no patients.
    private let patients: InMemoryClinicalStore?

    /// Creates an empty store on its own.
    ///
    /// A store on its own knows no patients, so it cannot check a medication's
    /// `patientID` as the vault does and accepts any. Use ``InMemoryVault/medications``
    /// for a store that refuses an unknown patient (`notFound`, field `patientID`),
    /// exactly like `Vault.medications`.
    ///
    /// - Parameter clock: Where "now" comes from; `.system` by default.
    public init(clock: RecordClock = .system) {
        self.init(clock: clock, patientsOf: nil)
    }

    /// A store that sees the patients of `patients`, for ``InMemoryVault``.
    init(clock: RecordClock, patients: InMemoryClinicalStore) {
        self.init(clock: clock, patientsOf: patients)
    }

    private init(clock: RecordClock, patientsOf patients: InMemoryClinicalStore?) {
        // A store on its own gets an empty clinical store to share an executor with.
        let owner = patients ?? InMemoryClinicalStore(clock: clock, maximumAttachmentByteCount: 0)
        let tables = InMemoryMedicationTables(clock: clock, sharingExecutorOf: owner)
        self.clock = clock
        self.tables = tables
        self.patients = patients
        self.schedules = InMemoryMedicationScheduleRepository(tables: tables)
        self.doseLogs = InMemoryDoseLogRepository(tables: tables)
        self.refills = InMemoryMedicationRefillRepository(tables: tables)
    }

    /// Makes the next write that reaches `point` fail with a storage error (once).
    /// For this package's transactionality tests: `package` access, out of an app's reach.
    package func _failNextWrite(at point: _MedicationFaultPoint) async {
        await tables.arm(point)
    }

    /// Stores a new medication.
    ///
    /// - Throws: `validation`, `duplicate` for a known identifier, `notFound` (field
    ///   `patientID`) when the store belongs to an ``InMemoryVault`` that has no such
    ///   patient: the SQLCipher store's checks, in its order.
    @discardableResult
    public func create(_ medication: Medication) async throws -> Medication {
        // Patients are never deleted: one seen here still exists when the tables write.
        let patientKnown = await patients?.hasPatient(medication.patientID) ?? true
        return try await tables.createMedication(medication, patientKnown: patientKnown)
    }

    @discardableResult
    public func update(_ medication: Medication) async throws -> Medication {
        try await tables.updateMedication(medication)
    }

    public func get(_ id: UUID) async throws -> Medication {
        try await tables.getMedication(id)
    }

    public func list(patientID: UUID, filter: MedicationFilter) async throws -> [Medication] {
        await tables.listMedications(patientID: patientID, filter: filter)
    }

    public func search(_ query: String, patientID: UUID?) async throws -> [Medication] {
        await tables.searchMedications(query, patientID: patientID)
    }

    @discardableResult
    public func deactivate(_ id: UUID) async throws -> Medication {
        try await tables.deactivateMedication(id)
    }
}
