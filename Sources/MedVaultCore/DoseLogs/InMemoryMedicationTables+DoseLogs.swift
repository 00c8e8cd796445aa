import Foundation

extension InMemoryMedicationTables {
    func createLogs(_ logs: [DoseLog]) throws -> [DoseLogReceipt] {
        var working = tables
        var receipts: [DoseLogReceipt] = []
        receipts.reserveCapacity(logs.count)
        for log in logs {
            receipts.append(try write(log, into: &working))
        }
        tables = working
        return receipts
    }

    func getLog(_ id: UUID) throws -> DoseLog {
        guard let log = tables.logs[id] else { throw MedVaultError.recordNotFound() }
        return log
    }

    func listLogs(medicationID: UUID, in range: Range<Date>) -> [DoseLog] {
        tables.logs.values
            .filter { $0.medicationID == medicationID && range.contains($0.scheduledAt) }
            .sorted { ($0.scheduledAt, $0.id.uuidString) < ($1.scheduledAt, $1.id.uuidString) }
    }

    func listLogs(patientID: UUID, in range: Range<Date>) -> [DoseLog] {
        tables.logs.values
            .filter { range.contains($0.scheduledAt) && tables.medications[$0.medicationID]?.patientID == patientID }
            .sorted {
                ($0.scheduledAt, $0.medicationID.uuidString) < ($1.scheduledAt, $1.medicationID.uuidString)
            }
    }

    func correctLog(_ id: UUID, with correction: DoseLogCorrection, expectedVersion: Int64) throws -> DoseLogReceipt {
        let current = try getLog(id)
        let medication = try getMedication(current.medicationID)
        let now = clock.now()
        let next = try MedicationRecordRule.corrected(current, with: correction, expectedVersion: expectedVersion,
                                                      of: medication, now: now)
        tables.revisions.append(MedicationRecordRule.revision(of: current, kind: .correction,
                                                              reason: correction.reason, now: now))
        tables.logs[id] = next
        let balance = MedicationRecordRule.needsBalance(medication, replacing: current, with: next)
            ? tables.balance(of: medication) : nil
        let (changed, shortfall) = MedicationRecordRule.adjusting(medication, replacing: current, with: next,
                                                                  balanceAfter: balance)
        tables.medications[changed.id] = changed
        return DoseLogReceipt(log: next, medication: changed, shortfall: shortfall)
    }

    func voidLog(_ id: UUID, reason: String?, expectedVersion: Int64) throws -> DoseLogReceipt {
        let current = try getLog(id)
        let medication = try getMedication(current.medicationID)
        try MedicationRecordRule.checkVoid(current, reason: reason, expectedVersion: expectedVersion)
        let now = clock.now()
        tables.revisions.append(MedicationRecordRule.revision(of: current, kind: .void, reason: reason, now: now))
        tables.logs[id] = nil
        tables.logIDsByDose[ScheduledDose.ID(medicationID: current.medicationID,
                                             scheduledAtMilliseconds: current.scheduledAt.millisecondsSince1970)] = nil
        let balance = MedicationRecordRule.needsBalance(medication, replacing: current, with: nil)
            ? tables.balance(of: medication) : nil
        let (changed, shortfall) = MedicationRecordRule.adjusting(medication, replacing: current, with: nil,
                                                                  balanceAfter: balance)
        tables.medications[changed.id] = changed
        return DoseLogReceipt(log: current, medication: changed, shortfall: shortfall)
    }

    func logHistory(_ id: UUID) -> [DoseLogRevision] {
        tables.revisions.filter { $0.doseLogID == id }
    }

    /// Oldest first: instant, then log, then the order written (the SQL store's order).
    func logHistory(medicationID: UUID) -> [DoseLogRevision] {
        tables.revisions.enumerated()
            .filter { $0.element.previous.medicationID == medicationID }
            .sorted {
                ($0.element.recordedAt, $0.element.doseLogID.uuidString, $0.offset)
                    < ($1.element.recordedAt, $1.element.doseLogID.uuidString, $1.offset)
            }
            .map(\.element)
    }

    /// Writes one log and its inventory change into `working`; the caller commits.
    private func write(_ log: DoseLog, into working: inout Tables) throws -> DoseLogReceipt {
        guard let medication = working.medications[log.medicationID] else {
            throw MedVaultError.recordNotFound("medicationID")
        }
        let now = clock.now()
        let stored = try MedicationRecordRule.created(log, of: medication, now: now)
        guard working.logs[stored.id] == nil else { throw MedVaultError.duplicateRecord }
        let key = ScheduledDose.ID(medicationID: stored.medicationID,
                                   scheduledAtMilliseconds: stored.scheduledAt.millisecondsSince1970)
        guard working.logIDsByDose[key] == nil else { throw MedVaultError.doseAlreadyLogged }
        if let maximum = medication.maximumDosesPer24Hours, stored.consumesDose, let takenAt = stored.takenAt {
            let taken = working.logs.values.compactMap { $0.medicationID == medication.id && $0.consumesDose ? $0.takenAt : nil }
            try DoseLimit.check(adding: takenAt, to: taken, maximum: maximum)
        }
        working.logs[stored.id] = stored
        working.logIDsByDose[key] = stored.id

        if armedFault == .afterDoseLogWrite {
            armedFault = nil
            throw MedVaultError(.storage, reason: "injected failure after the dose log write")
        }

        let receipt = MedicationRecordRule.applying(stored, to: medication, now: now)
        working.medications[medication.id] = receipt.medication
        return receipt
    }
}
