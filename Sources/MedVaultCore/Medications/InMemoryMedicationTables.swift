import Foundation

/// The tables behind ``InMemoryMedicationStore`` and its schedule and dose-log
/// repositories: one actor, so that a dose log and its inventory change are one
/// atomic step, like a transaction in the SQLCipher store.
///
/// The rules themselves are ``MedicationRecordRule``'s and ``MedicationUpdateRule``'s,
/// shared with the SQLCipher store; this actor only reads, checks identifiers and
/// stores. Each write works on a copy of the tables and replaces them only when it
/// succeeded, so a failing write, including a batch that fails half way, changes nothing.
actor InMemoryMedicationTables {
    struct Tables {
        var medications: [UUID: Medication] = [:]
        var schedules: [UUID: MedicationSchedule] = [:]
        var logs: [UUID: DoseLog] = [:]
        var logIDsByDose: [ScheduledDose.ID: UUID] = [:]
        /// Every dose-log revision, in the order written.
        var revisions: [DoseLogRevision] = []
        var refills: [UUID: MedicationRefill] = [:]
        /// Explicit stock changes, in the order written (``MedicationStockLedger``).
        var adjustments: [MedicationStockAdjustment] = []
        /// Per medication, the stock its stored version was written with.
        var declaredStock: [UUID: MedicationQuantity] = [:]
        var snoozes: [ScheduledDose.ID: DoseSnooze] = [:]
    }

    let clock: RecordClock
    var tables = Tables()
    var armedFault: _MedicationFaultPoint?
    /// The actor whose executor these tables run on.
    private let executorOwner: InMemoryClinicalStore

    /// Tables that run on `owner`'s executor: isolated to `owner` is isolated to them,
    /// so a unit of work of ``InMemoryVault`` reads and writes patients and
    /// medications in one step, with nothing else in between.
    init(clock: RecordClock, sharingExecutorOf owner: InMemoryClinicalStore) {
        self.clock = clock
        self.executorOwner = owner
    }

    /// The executor of the clinical store these tables belong to (see
    /// ``init(clock:sharingExecutorOf:)``).
    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executorOwner.unownedExecutor
    }

    func arm(_ point: _MedicationFaultPoint) {
        armedFault = point
    }

    // MARK: - Medications

    func createMedication(_ medication: Medication, patientKnown: Bool) throws -> Medication {
        let stored = try MedicationRecordRule.created(medication, now: clock.now())
        guard tables.medications[stored.id] == nil else { throw MedVaultError.duplicateRecord }
        guard patientKnown else { throw MedVaultError.recordNotFound("patientID") }
        tables.medications[stored.id] = stored
        if let inventory = stored.inventory {
            tables.recordAdjustment(of: stored, setting: inventory.current, now: stored.createdAt)
        }
        tables.declaredStock[stored.id] = stored.inventory?.current
        return stored
    }

    func updateMedication(_ medication: Medication) throws -> Medication {
        let current = try getMedication(medication.id)
        let stamped = try MedicationUpdateRule.updated(medication, replacing: current, now: clock.now())
        let (stored, adjustment) = MedicationStockLedger.updated(
            stamped, replacing: current, declared: tables.declaredStock[current.id]) { tables.balance(of: current) }
        if let adjustment {
            tables.adjustments.append(MedicationStockAdjustment(medicationID: stored.id, delta: adjustment,
                                                                recordedAt: stored.updatedAt))
        }
        tables.medications[stored.id] = stored
        tables.declaredStock[stored.id] = stored.inventory?.current
        return stored
    }

    func getMedication(_ id: UUID) throws -> Medication {
        guard let medication = tables.medications[id] else { throw MedVaultError.recordNotFound() }
        return medication
    }

    func listMedications(patientID: UUID, filter: MedicationFilter) -> [Medication] {
        tables.medications.values
            .filter { $0.patientID == patientID && filter.includes($0) }
            .sorted(by: Medication.listOrder)
    }

    func searchMedications(_ query: String, patientID: UUID?) -> [Medication] {
        let queryTokens = SearchText.queryTokens(of: query)
        guard !queryTokens.isEmpty else { return [] }
        return tables.medications.values
            .filter { medication in
                (patientID.map { medication.patientID == $0 } ?? true)
                    && SearchText.matches(queryTokens: queryTokens, recordTokens: [medication.name, medication.genericName]
                        .compactMap { $0 }.flatMap(SearchText.tokens(of:)))
            }
            .sorted(by: Medication.listOrder)
    }

    func deactivateMedication(_ id: UUID) throws -> Medication {
        let current = try getMedication(id)
        guard let stored = MedicationRecordRule.deactivated(current, now: clock.now()) else { return current }
        tables.medications[id] = stored
        tables.declaredStock[id] = stored.inventory?.current
        return stored
    }
}

extension InMemoryMedicationTables.Tables {
    /// The ledger's balance of `medication` (``MedicationStockLedger``).
    func balance(of medication: Medication) -> MedicationQuantity {
        MedicationStockLedger.balance(of: medication, adjustments: adjustments, refills: refills.values, logs: logs.values)
    }

    /// Records the adjustment that makes the balance of `medication` equal `target`.
    mutating func recordAdjustment(of medication: Medication, setting target: MedicationQuantity, now: Date) {
        guard let delta = MedicationStockLedger.adjustment(setting: target, balance: balance(of: medication)) else { return }
        adjustments.append(MedicationStockAdjustment(medicationID: medication.id, delta: delta,
                                                     recordedAt: now.truncatedToMilliseconds))
    }
}
