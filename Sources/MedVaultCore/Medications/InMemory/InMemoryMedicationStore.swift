import Foundation

/// A ``MedicationStore`` held in memory, for tests, previews and apps' own unit tests.
///
/// It follows exactly the same rules as the SQLCipher store (the shared
/// conformance suite runs against both). Each write works on a copy of the tables
/// and replaces them only when it succeeded, so a failing write, including a batch
/// that fails half way, changes nothing.
///
/// For example:
///
/// ```swift
/// let store = InMemoryMedicationStore(clock: .fixed(someInstant))
/// let stored = try await store.create(medication)
/// ```
public actor InMemoryMedicationStore: MedicationStore {
    private struct Tables {
        var medications: [UUID: Medication] = [:]
        var schedules: [UUID: MedicationSchedule] = [:]
        var logs: [UUID: DoseLog] = [:]
        var logIDsByDose: [ScheduledDose.ID: UUID] = [:]
    }

    /// The clock that stamps records and decides which doses are already missed.
    public nonisolated let clock: RecordClock
    private var tables = Tables()
    private var armedFault: _MedicationFaultPoint?
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
        self.clock = clock
        self.patients = nil
    }

    /// A store that sees the patients of `patients`, for ``InMemoryVault``.
    init(clock: RecordClock, patients: InMemoryClinicalStore) {
        self.clock = clock
        self.patients = patients
    }

    /// Makes the next write that reaches `point` fail with a storage error (once).
    /// Public but unstable: for MedVault's transactionality tests.
    public func _failNextWrite(at point: _MedicationFaultPoint) {
        armedFault = point
    }

    // MARK: - Medications

    /// Stores a new medication.
    ///
    /// - Throws: `validation`, `duplicate` for a known identifier, `notFound` (field
    ///   `patientID`) when the store belongs to an ``InMemoryVault`` that has no such
    ///   patient: the SQLCipher store's checks, in its order.
    public func create(_ medication: Medication) async throws -> Medication {
        try MedicationValidation.validate(medication)
        // Patients are never deleted, so a patient seen here still exists after the
        // suspension; everything below runs without suspending, so the write is atomic.
        let patientKnown = await patients?.hasPatient(medication.patientID) ?? true
        guard tables.medications[medication.id] == nil else {
            throw MedVaultError(.duplicate, reason: "a medication with this identifier exists")
        }
        guard patientKnown else {
            throw MedVaultError(.notFound, field: "patientID", reason: "no patient has this identifier")
        }
        var stored = medication
        let now = clock.now()
        stored.createdAt = now
        stored.updatedAt = now
        stored.version = 1
        tables.medications[stored.id] = stored
        return stored
    }

    public func update(_ medication: Medication) throws -> Medication {
        let current = try existingMedication(medication.id)
        let stored = try MedicationUpdateRule.updated(medication, replacing: current, now: clock.now())
        tables.medications[stored.id] = stored
        return stored
    }

    public func medication(id: UUID) -> Medication? {
        tables.medications[id]
    }

    public func medications(forPatient patientID: UUID, filter: MedicationFilter) -> [Medication] {
        tables.medications.values
            .filter { $0.patientID == patientID && filter.includes($0) }
            .sorted(by: Medication.listOrder)
    }

    public func search(_ query: String, patientID: UUID?) -> [Medication] {
        tables.medications.values
            .filter { medication in
                (patientID.map { medication.patientID == $0 } ?? true)
                    && SearchText.matches(query: query, in: [medication.name, medication.genericName])
            }
            .sorted(by: Medication.listOrder)
    }

    public func deactivate(id: UUID) throws -> Medication {
        var medication = try existingMedication(id)
        guard medication.isActive else { return medication }
        medication.isActive = false
        medication.updatedAt = clock.now()
        medication.version += 1
        tables.medications[id] = medication
        return medication
    }

    // MARK: - Schedules

    public func createSchedule(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        _ = try existingMedication(schedule.medicationID)
        try MedicationValidation.validate(schedule)
        guard tables.schedules[schedule.id] == nil else {
            throw MedVaultError(.duplicate, reason: "a schedule with this identifier exists")
        }
        var stored = schedule
        let now = clock.now()
        stored.createdAt = now
        stored.updatedAt = now
        stored.version = 1
        tables.schedules[stored.id] = stored
        return stored
    }

    public func updateSchedule(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        guard let current = tables.schedules[schedule.id] else {
            throw MedVaultError(.notFound, reason: "no schedule has this identifier")
        }
        let stored = try MedicationUpdateRule.updated(schedule, replacing: current, now: clock.now())
        tables.schedules[stored.id] = stored
        return stored
    }

    public func schedules(forMedication medicationID: UUID) -> [MedicationSchedule] {
        tables.schedules.values
            .filter { $0.medicationID == medicationID }
            .sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }
    }

    public func schedules(forPatient patientID: UUID) -> [MedicationSchedule] {
        tables.schedules.values
            .filter { tables.medications[$0.medicationID]?.patientID == patientID }
            .sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }
    }

    // MARK: - Dose logs

    public func log(_ log: DoseLog) throws -> DoseLogReceipt {
        var working = tables
        let receipt = try write(log, into: &working)
        tables = working
        return receipt
    }

    public func log(batch logs: [DoseLog]) throws -> [DoseLogReceipt] {
        var working = tables
        var receipts: [DoseLogReceipt] = []
        receipts.reserveCapacity(logs.count)
        for log in logs {
            receipts.append(try write(log, into: &working))
        }
        tables = working
        return receipts
    }

    public func history(forMedication medicationID: UUID, in range: Range<Date>) -> [DoseLog] {
        tables.logs.values
            .filter { $0.medicationID == medicationID && range.contains($0.scheduledAt) }
            .sorted { ($0.scheduledAt, $0.id.uuidString) < ($1.scheduledAt, $1.id.uuidString) }
    }

    public func logs(forPatient patientID: UUID, in range: Range<Date>) -> [DoseLog] {
        tables.logs.values
            .filter { range.contains($0.scheduledAt) && tables.medications[$0.medicationID]?.patientID == patientID }
            .sorted {
                ($0.scheduledAt, $0.medicationID.uuidString) < ($1.scheduledAt, $1.medicationID.uuidString)
            }
    }

    // MARK: - Private

    private func existingMedication(_ id: UUID) throws -> Medication {
        guard let medication = tables.medications[id] else {
            throw MedVaultError(.notFound, reason: "no medication has this identifier")
        }
        return medication
    }

    /// Writes one log and its inventory change into `working`; the caller commits.
    private func write(_ log: DoseLog, into working: inout Tables) throws -> DoseLogReceipt {
        guard var medication = working.medications[log.medicationID] else {
            throw MedVaultError(.notFound, reason: "no medication has this identifier")
        }
        try MedicationValidation.validate(log)
        guard working.logs[log.id] == nil else {
            throw MedVaultError(.duplicate, reason: "a dose log with this identifier exists")
        }
        var stored = log
        stored.scheduledAt = log.scheduledAt.truncatedToMilliseconds
        stored.takenAt = log.takenAt?.truncatedToMilliseconds
        let key = ScheduledDose.ID(medicationID: stored.medicationID,
                                   scheduledAtMilliseconds: stored.scheduledAt.millisecondsSince1970)
        guard working.logIDsByDose[key] == nil else {
            throw MedVaultError(.duplicate, reason: "this dose is already logged")
        }
        let now = clock.now()
        stored.createdAt = now
        stored.updatedAt = now
        stored.version = 1
        working.logs[stored.id] = stored
        working.logIDsByDose[key] = stored.id

        if armedFault == .afterDoseLogWrite {
            armedFault = nil
            throw MedVaultError(.storage, reason: "injected failure after the dose log write")
        }

        var shortfall = MedicationQuantity.zero
        if stored.consumesDose, var inventory = medication.inventory {
            let remaining = inventory.current - medication.dosage.amount
            shortfall = remaining < .zero ? .zero - remaining : .zero
            inventory.current = max(remaining, .zero)
            medication.inventory = inventory
            medication.updatedAt = now
            medication.version += 1
            working.medications[medication.id] = medication
        }
        return DoseLogReceipt(log: stored, medication: medication, shortfall: shortfall)
    }
}
