import Foundation
import MedVault
import MedVaultTestSupport
import Testing

/// `write { tx in … }` on a whole in-memory vault and a whole SQLCipher vault: one
/// unit of work across repositories commits everything or nothing, with the same
/// results and errors as the async repositories.
@Suite("Unit of work across repositories")
struct UnitOfWorkConformanceTests {
    typealias F = ClinicalFixtures

    /// A failure thrown by the tests' own closures.
    struct Abandoned: Error {}

    @Test("A patient, a session and its diagnoses commit together, as the async methods store them",
          arguments: VaultBackend.all)
    func patientSessionDiagnosesCommit(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let (patient, session, diagnoses) = try await repos.writer.write { tx in
            let patient = try tx.patients.create(F.patient())
            let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
            let diagnoses = try tx.diagnoses.create([
                Diagnosis(sessionID: session.id, snapshot: F.snapshot, diagnosedAt: F.now),
                Diagnosis(sessionID: session.id, snapshot: F.otherSnapshot, diagnosedAt: F.now),
            ])
            return (patient, session, diagnoses)
        }
        #expect(patient.version == 1 && session.version == 1 && diagnoses.allSatisfy { $0.version == 1 })
        #expect(patient.createdAt > F.now && patient.updatedAt == patient.createdAt)
        // The returned values are exactly the stored ones.
        #expect(try await repos.patients.get(patient.id) == patient)
        #expect(try await repos.sessions.get(session.id) == session)
        #expect(Set(try await repos.diagnoses.list(sessionID: session.id)) == Set(diagnoses))
        #expect(try await repos.patients.count(filter: .all) == 1)
        #expect(try await repos.sessions.count() == 1)
        #expect(try await repos.diagnoses.count() == 2)
        await repos.close()
    }

    @Test("A failure in the third operation leaves none of the first two", arguments: VaultBackend.all)
    func failureRollsBackEverything(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let earlier = try await repos.patients.create(F.patient("Eva", "Gil"))
        let newID = UUID()
        await expectMedVaultError(.notFound, field: "sessionID") {
            try await repos.writer.write { tx in
                let patient = try tx.patients.create(F.patient(id: newID))
                _ = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
                // An unknown session: the third operation fails.
                try tx.diagnoses.create(Diagnosis(sessionID: UUID(), snapshot: F.snapshot, diagnosedAt: F.now))
            }
        }
        // The closure's own error rolls back too.
        await #expect(throws: Abandoned.self) {
            try await repos.writer.write { tx in
                let patient = try tx.patients.create(F.patient(id: newID))
                try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
                throw Abandoned()
            }
        }
        #expect(try await repos.patients.count(filter: .all) == 1)
        #expect(try await repos.sessions.count() == 0)
        #expect(try await repos.diagnoses.count() == 0)
        await expectMedVaultError(.notFound) { try await repos.patients.get(newID) }
        #expect(try await repos.patients.get(earlier.id) == earlier)
        #expect(try await repos.patients.search("ana").isEmpty, "the search index was rolled back too")
        await repos.close()
    }

    @Test("A validation error changes nothing; a failed step caught inside the unit leaves nothing of itself",
          arguments: VaultBackend.all)
    func validationChangesNothing(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        await expectMedVaultError(.validation) {
            try await repos.writer.write { tx in
                try tx.patients.create(F.patient())
                try tx.patients.create(F.patient(F.marker + "\u{0}", ""))
            }
        }
        #expect(try await repos.patients.count(filter: .all) == 0)

        // A batch whose second element is invalid fails whole, even when the closure
        // catches its error and commits the rest of the unit.
        let kept = UUID()
        let half = UUID()
        let caught = try await repos.writer.write { tx in
            try tx.patients.create(F.patient(id: kept))
            do {
                try tx.patients.create([F.patient("Luis", "Mora", id: half), F.patient("", F.marker)])
                return false
            } catch let error as MedVaultError where error.code == .validation {
                return true
            }
        }
        #expect(caught)
        #expect(try await repos.patients.count(filter: .all) == 1)
        _ = try await repos.patients.get(kept)
        await expectMedVaultError(.notFound) { try await repos.patients.get(half) }
        #expect(try await repos.patients.search("luis").isEmpty)
        await repos.close()
    }

    @Test("A batch refused by a storage check at a later row writes none of its rows; a closure that catches goes on",
          arguments: VaultBackend.all)
    func batchCheckedBeforeItsFirstRow(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let existing = try await repos.patients.create(F.patient("Eva", "Gil"))
        let kept = UUID()
        let first = UUID()
        let twice = UUID()
        let codes = try await repos.writer.write { tx -> [MedVaultError.Code?] in
            let patient = try tx.patients.create(F.patient(id: kept))
            var codes: [MedVaultError.Code?] = []
            func attempt(_ call: () throws -> Void) {
                do { try call(); codes.append(nil) } catch { codes.append((error as? MedVaultError)?.code) }
            }
            // The second patient's id is stored already; then one id twice in a batch.
            attempt { try tx.patients.create([F.patient("Luis", "Mora", id: first), F.patient("Rosa", "Paz", id: existing.id)]) }
            attempt { try tx.patients.create([F.patient("Luis", "Mora", id: twice), F.patient("Luis", "Mora", id: twice)]) }
            // The second session's patient is missing; then the second diagnosis's session.
            attempt {
                try tx.sessions.create([ClinicalSession(patientID: patient.id, date: F.now),
                                        ClinicalSession(patientID: UUID(), date: F.now)])
            }
            let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
            attempt {
                try tx.diagnoses.create([Diagnosis(sessionID: session.id, snapshot: F.snapshot, diagnosedAt: F.now),
                                         Diagnosis(sessionID: UUID(), snapshot: F.snapshot, diagnosedAt: F.now)])
            }
            // An earlier row's storage error wins over a later row's validation error.
            attempt { try tx.patients.create([F.patient("Rosa", "Paz", id: existing.id), F.patient("", "")]) }
            #expect(try tx.patients.count(filter: .all) == 2, "a refused batch left rows inside the unit")
            #expect(try tx.sessions.count() == 1 && tx.diagnoses.count() == 0)
            return codes
        }
        #expect(codes == [.duplicate, .duplicate, .notFound, .notFound, .duplicate])
        #expect(try await repos.patients.count(filter: .all) == 2)
        _ = try await repos.patients.get(kept)
        await expectMedVaultError(.notFound) { try await repos.patients.get(first) }
        await expectMedVaultError(.notFound) { try await repos.patients.get(twice) }
        #expect(try await repos.patients.search("luis").isEmpty)
        #expect(try await repos.sessions.count() == 1)
        #expect(try await repos.diagnoses.count() == 0)
        await repos.close()
    }

    @Test("Versions inside a unit: each update sees the last; a stale one is a conflict that undoes the unit",
          arguments: VaultBackend.all)
    func versionConflicts(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let stored = try await repos.patients.create(F.patient())
        let twice = try await repos.writer.write { tx in
            var first = stored
            first.phoneNumber = "600 000 001"
            var second = try tx.patients.update(first)
            second.phoneNumber = "600 000 002"
            return try tx.patients.update(second)
        }
        #expect(twice.version == 3)
        #expect(try await repos.patients.get(stored.id) == twice)

        await expectMedVaultError(.conflict) {
            try await repos.writer.write { tx in
                var fresh = twice
                fresh.phoneNumber = "600 000 003"
                try tx.patients.update(fresh)
                try tx.patients.update(fresh) // the version read before the first update: stale
            }
        }
        #expect(try await repos.patients.get(stored.id) == twice, "the first update was rolled back")
        await repos.close()
    }

    @Test("Reads inside a unit see its own writes, in every repository", arguments: VaultBackend.all)
    func readsSeeOwnWrites(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let day = MT.day("2026-03-10")
        let dose = MT.local(day, 8, 0, MT.madrid)
        let result = try await repos.writer.write { tx in
            let patient = try tx.patients.create(F.patient("Inés", "Soto"))
            #expect(try tx.patients.get(patient.id) == patient)
            #expect(try tx.patients.count() == 1)
            #expect(try tx.patients.search("ines").map(\.id) == [patient.id])
            #expect(try tx.patients.list().patients == [patient])
            let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
            let diagnosis = try tx.diagnoses.create(
                Diagnosis(sessionID: session.id, snapshot: F.snapshot, diagnosedAt: F.now))
            let history = try tx.sessions.history(of: patient.id, after: nil, limit: 10)
            #expect(history.entries.map(\.session) == [session])
            #expect(history.entries.first?.diagnoses == [diagnosis])
            #expect(try tx.diagnoses.list(patientID: patient.id) == [diagnosis])
            #expect(try tx.sessions.count() == 1 && tx.diagnoses.count() == 1)

            let medication = try tx.medications.create(MT.medication(
                patientID: patient.id, inventory: MedicationInventory(current: 10)))
            let schedule = try tx.medications.schedules.create(MedicationSchedule(
                medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: MT.madrid.identifier))
            let receipt = try tx.medications.doseLogs.create(
                DoseLog(medicationID: medication.id, scheduledAt: dose, status: .taken, takenAt: dose))
            #expect(try tx.medications.get(medication.id) == receipt.medication)
            #expect(receipt.medication.inventory?.current == 9)
            #expect(try tx.medications.schedules.list(medicationID: medication.id) == [schedule])
            #expect(try tx.medications.doseLogs.list(patientID: patient.id, in: dose..<dose.addingTimeInterval(1))
                    == [receipt.log])
            #expect(try tx.medications.search("ibupro", patientID: patient.id) == [receipt.medication])
            return receipt
        }
        #expect(try await repos.medications.get(result.medication.id) == result.medication)
        #expect(try await repos.medications.doseLogs.get(result.log.id) == result.log)
        await repos.close()
    }

    @Test("A medication, its schedule and a dose log: one unit, undone whole by a duplicate dose",
          arguments: VaultBackend.all)
    func medicationUnit(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let patient = try await repos.patients.create(F.patient())
        let dose = MT.local(MT.day("2026-03-10"), 8, 0, MT.madrid)
        await expectMedVaultError(.duplicate) {
            try await repos.writer.write { tx in
                let medication = try tx.medications.create(MT.medication(
                    patientID: patient.id, inventory: MedicationInventory(current: 10)))
                try tx.medications.schedules.create(MedicationSchedule(
                    medicationID: medication.id, times: [TimeOfDay(hour: 8)],
                    timeZoneIdentifier: MT.madrid.identifier))
                try tx.medications.doseLogs.create([
                    DoseLog(medicationID: medication.id, scheduledAt: dose, status: .taken, takenAt: dose),
                    DoseLog(medicationID: medication.id, scheduledAt: dose, status: .taken, takenAt: dose),
                ])
            }
        }
        #expect(try await repos.medications.list(patientID: patient.id, filter: .all).isEmpty)
        #expect(try await repos.medications.schedules.list(patientID: patient.id).isEmpty)
        #expect(try await repos.medications.doseLogs.list(patientID: patient.id, in: dose..<dose.addingTimeInterval(1))
                .isEmpty)
        await repos.close()
    }

    @Test("A transaction used after its closure returned throws and writes nothing", arguments: VaultBackend.all)
    func transactionAfterClosure(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let escaped = EscapedTransaction()
        let patient = try await repos.writer.write { tx in
            escaped.keep(tx)
            return try tx.patients.create(F.patient())
        }
        let tx = try #require(escaped.transaction)
        let ended = await expectMedVaultError(.invalidArgument) { try tx.patients.create(F.patient("Eva", "Gil")) }
        #expect(ended?.reason.contains("transaction has ended") == true)
        await expectMedVaultError(.invalidArgument) { try tx.patients.count() }
        await expectMedVaultError(.invalidArgument) { try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now)) }
        await expectMedVaultError(.invalidArgument) { try tx.medications.schedules.list(patientID: patient.id) }
        await expectMedVaultError(.invalidArgument) { try tx.professional.get() }

        // The same after a unit that failed.
        await #expect(throws: Abandoned.self) {
            try await repos.writer.write { tx in
                escaped.keep(tx)
                throw Abandoned()
            }
        }
        let failed = try #require(escaped.transaction)
        await expectMedVaultError(.invalidArgument) { try failed.diagnoses.count() }
        #expect(try await repos.patients.count(filter: .all) == 1)
        #expect(try await repos.sessions.count() == 0)
        await repos.close()
    }

    @Test("A task cancelled during its unit rolls the unit back", arguments: VaultBackend.all)
    func cancellationRollsBack(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let writer = repos.writer
        let unit = Task {
            try await writer.write { tx in
                try tx.patients.create(F.patient())
                // The task is cancelled while the unit runs, before its commit (the
                // SQLCipher suite also cancels one from another task).
                withUnsafeCurrentTask { $0?.cancel() }
            }
        }
        await expectMedVaultError(.cancelled) { try await unit.value }
        #expect(try await repos.patients.count(filter: .all) == 0)
        await repos.close()
    }
}
