import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a unit of work (`Vault.write`) does on disk, beyond the conformance suite:
/// isolation from readers, `lock()` during a unit, and a process killed mid-unit.
@Suite("Vault: units of work on disk", .serialized)
struct VaultUnitOfWorkTests {
    typealias F = ClinicalFixtures

    /// A patient, a session and a diagnosis in `tx`.
    static func writeUnit(_ tx: VaultTransaction) throws -> (Patient, ClinicalSession, Diagnosis) {
        let patient = try tx.patients.create(F.patient())
        let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
        let diagnosis = try tx.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: F.snapshot, diagnosedAt: F.now))
        return (patient, session, diagnosis)
    }

    @Test("Readers see none of a unit's writes before its commit, and all of them after")
    func readersSeeTheUnitWhole() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.url, password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            let written = Flag()
            let release = Flag()
            let unit = Task {
                try await vault.write { tx in
                    let records = try Self.writeUnit(tx)
                    written.set()
                    let deadline = Date().addingTimeInterval(20)
                    while !release.isSet, Date() < deadline { usleep(1_000) }
                    return records
                }
            }
            while !written.isSet { try await Task.sleep(for: .milliseconds(1)) }
            #expect(try await vault.patients.count(filter: .all) == 0)
            #expect(try await vault.sessions.count() == 0)
            #expect(try await vault.diagnoses.count() == 0)
            release.set()
            let (patient, session, diagnosis) = try await unit.value
            #expect(try await vault.patients.get(patient.id) == patient)
            #expect(try await vault.sessions.get(session.id) == session)
            #expect(try await vault.diagnoses.get(diagnosis.id) == diagnosis)
            await vault.lock()
        }
    }

    @Test("Cancelling a unit from another task rolls it back")
    func cancellationFromAnotherTask() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.url, password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            let started = Flag()
            // The unit runs on the writer's own thread, so holding it blocks no thread of
            // the cooperative pool.
            let unit = Task {
                try await vault.write { tx in
                    let patient = try tx.patients.create(F.patient())
                    started.set()
                    let deadline = Date().addingTimeInterval(20)
                    while !Task.isCancelled, Date() < deadline { usleep(1_000) }
                    try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
                }
            }
            while !started.isSet { try await Task.sleep(for: .milliseconds(1)) }
            unit.cancel()
            await expectMedVaultError(.cancelled) { try await unit.value }
            #expect(try await vault.patients.count(filter: .all) == 0)
            #expect(try await vault.sessions.count() == 0)
            await vault.lock()
        }
    }

    @Test("lock() during a long unit waits for it: the unit commits whole, later writes are refused")
    func lockDuringUnitWaitsForIt() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let vault = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options).vault
            let started = Flag()
            let finished = Flag()
            let unit = Task {
                try await vault.write { tx in
                    let patient = try tx.patients.create(F.patient())
                    started.set()
                    usleep(300_000) // a long unit: lock() is called meanwhile
                    let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
                    finished.set()
                    return (patient, session)
                }
            }
            while !started.isSet { try await Task.sleep(for: .milliseconds(1)) }
            await vault.lock()
            #expect(finished.isSet, "lock() returned before the unit ended")
            let (patient, session) = try await unit.value
            await expectMedVaultError(.locked) { try await vault.write { tx in try tx.patients.count() } }

            let reopened = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            #expect(try await reopened.patients.get(patient.id) == patient)
            #expect(try await reopened.sessions.get(session.id) == session)
            await reopened.lock()
        }
    }

    @Test("lock() during a unit that then fails leaves none of it")
    func lockDuringFailingUnit() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let vault = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options).vault
            let started = Flag()
            let unit = Task {
                try await vault.write { tx in
                    let patient = try tx.patients.create(F.patient())
                    started.set()
                    usleep(200_000)
                    try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
                    try tx.diagnoses.create(Diagnosis(sessionID: UUID(), snapshot: F.snapshot, diagnosedAt: F.now))
                }
            }
            while !started.isSet { try await Task.sleep(for: .milliseconds(1)) }
            await vault.lock()
            await expectMedVaultError(.notFound, field: "sessionID") { try await unit.value }
            let reopened = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            #expect(try await reopened.patients.count(filter: .all) == 0)
            #expect(try await reopened.sessions.count() == 0)
            await reopened.lock()
        }
    }

    @Test("A process killed inside a unit leaves none of the unit's rows")
    func sigkillMidUnit() async throws {
        try await withTemporaryDirectory { dir in
            let password = try Password("probe")
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            await created.vault.lock()
            let child = try ProbeChild(["unit-hold", dir.url.path], outputURL: dir.file("unit-hold.txt"))
            try #require(try await child.waitForLines(1), "the probe did not write its unit")
            let ids = try #require(child.lines.first).split(separator: " ").compactMap { UUID(uuidString: String($0)) }
            try #require(ids.count == 3)
            child.sigkill()
            try await child.waitForExit()
            #expect(child.process.terminationReason == .uncaughtSignal)

            let vault = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            await expectMedVaultError(.notFound) { try await vault.patients.get(ids[0]) }
            await expectMedVaultError(.notFound) { try await vault.sessions.get(ids[1]) }
            await expectMedVaultError(.notFound) { try await vault.diagnoses.get(ids[2]) }
            #expect(try await vault.patients.count(filter: .all) == 0)
            #expect(try await vault.sessions.count() == 0)
            #expect(try await vault.diagnoses.count() == 0)
            let verification = try await vault.verify()
            #expect(verification.problemsBesidesTestKDF.isEmpty, "\(verification.problems)")
            await vault.lock()
        }
    }

    @Test("Killed at random moments, a process committing units leaves whole units only, every acknowledged one kept")
    func sigkillWhileCommittingUnits() async throws {
        try await withTemporaryDirectory { dir in
            let password = try Password("probe")
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            await created.vault.lock()
            var acknowledged: Set<UUID> = []
            for round in 1...5 {
                let child = try ProbeChild(["units", dir.url.path], outputURL: dir.file("units-\(round).txt"))
                try #require(try await child.waitForLines(1), "round \(round): the probe did not commit")
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
                child.sigkill()
                try await child.waitForExit()
                acknowledged.formUnion(child.lines.compactMap { UUID(uuidString: $0) })
            }
            let vault = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            let patients = try await vault.patients.count(filter: .all)
            #expect(patients >= acknowledged.count)
            #expect(try await vault.sessions.count() == patients, "a unit was cut after its patient")
            #expect(try await vault.diagnoses.count() == patients, "a unit was cut after its session")
            for id in acknowledged {
                let history = try await vault.sessions.history(of: id, after: nil, limit: 5)
                #expect(history.entries.count == 1 && history.entries.first?.diagnoses.count == 1)
            }
            await vault.lock()
        }
    }
}

/// The unit of work's own guards, on a bare database.
@Suite("SQLCipherUnitOfWork")
struct SQLCipherUnitOfWorkTests {
    typealias F = ClinicalFixtures

    @Test("When SQLite drops the unit's transaction, later steps are refused instead of committing alone")
    func lostTransactionRefusesLaterSteps() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.url, password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            let clock = vault.options.clock
            await #expect(throws: MedVaultError.self) {
                try await vault.database.write { db in
                    let unit = SQLCipherUnitOfWork(db: db, clock: clock)
                    let tx = unit.transaction
                    try tx.patients.create(F.patient())
                    // What SQLite does on its own after an interrupt or an I/O error.
                    try db.execute("ROLLBACK")
                    let refused = #expect(throws: MedVaultError.self) { try tx.patients.create(F.patient("Eva", "Gil")) }
                    #expect(refused?.code == .storage)
                    #expect(refused?.reason == SQLCipherUnitOfWork.transactionLostError.reason)
                    #expect(throws: MedVaultError.self) { try tx.patients.count() }
                    try unit.finish()
                }
            }
            #expect(try await vault.patients.count(filter: .all) == 0, "a step ran and committed outside the unit")
            await vault.lock()
        }
    }

    @Test("A batch that fails after writing part of itself poisons the unit: later steps and the commit throw its error, nothing is written")
    func partlyWrittenBatchPoisonsTheUnit() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.url, password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            // A failure no check foresees, at the second row: what a full disk does mid-batch.
            try await vault.database.write { db in
                try db.execute("""
                    CREATE TEMP TRIGGER fail_second_session BEFORE INSERT ON main.clinical_session
                    WHEN NEW.duration_minutes = 7 BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                    """)
            }
            let earlier = try await vault.patients.create(F.patient("Eva", "Gil"))
            let changesBefore = try await vault.changes(after: nil, limit: 100).entries.count
            var failing = ClinicalSession(patientID: earlier.id, date: F.now)
            failing.durationMinutes = 7
            let batch = [ClinicalSession(patientID: earlier.id, date: F.now), failing]
            let outcome = Flag()
            let thrown = await #expect(throws: MedVaultError.self) {
                try await vault.write { tx in
                    try tx.patients.create(F.patient())
                    do {
                        try tx.sessions.create(batch)
                    } catch {
                        // Caught and ignored: the unit must refuse to go on anyway.
                        let later = #expect(throws: MedVaultError.self) { try tx.patients.create(F.patient("Luis", "Mora")) }
                        let read = #expect(throws: MedVaultError.self) { try tx.patients.count() }
                        if later?.reason == (error as? MedVaultError)?.reason, read?.reason == later?.reason { outcome.set() }
                    }
                }
            }
            #expect(outcome.isSet, "a step after the poisoning ran, or threw another error")
            #expect(thrown != nil && thrown?.code != .invalidArgument, "the unit's error is the batch's")
            #expect(try await vault.patients.count(filter: .all) == 1)
            #expect(try await vault.sessions.count() == 0, "the batch's first row was committed")
            #expect(try await vault.changes(after: nil, limit: 100).entries.count == changesBefore)
            // The writer is sound afterwards: the next unit commits.
            _ = try await vault.write { tx in try VaultUnitOfWorkTests.writeUnit(tx) }
            #expect(try await vault.sessions.count() == 1)
            await vault.lock()
        }
    }
}
