import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultTestSupport
import Testing

/// A valid record too large for one envelope is listed and kept, and sync goes on.
@Suite("Sync: a record too large for one envelope does not stop sync")
struct SyncUnsentRecordTests {
    /// 200,000 characters (the limit), 400,000 bytes: two such texts seal past 1 MiB.
    static let longText = String(repeating: "é", count: 200_000)

    @Test("A session with two 200,000-character texts is listed, not sent; later records flow; a change that fits sends it")
    func largeSessionIsListedAndSyncGoesOn() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let patient = try await vault.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            var session = try await vault.sessions.create(ClinicalSession(
                patientID: patient.id, date: ClinicalFixtures.now, type: .video, durationMinutes: 45,
                notes: Self.longText, treatmentPlan: Self.longText))
            let first = try await devices.engines[0].sync()
            #expect(first.unsentRecords == 1)
            let unsent = try await devices.engines[0].unsentRecords()
            #expect(unsent.map(\.recordID) == [session.id])
            #expect(unsent.first?.table == .clinicalSession && unsent.first?.code == .limitExceeded)
            #expect(unsent.first?.description.contains("é") == false)

            // Records after it still travel, both ways.
            let later = try await vault.patients.create(ClinicalFixtures.patient("Luis", "Gil"))
            let fromOther = try await devices.vaults[1].patients.create(ClinicalFixtures.patient("Eva", "Sanz"))
            _ = try await devices.syncAll()
            #expect(try await devices.vaults[1].patients.get(later.id).id == later.id)
            #expect(try await vault.patients.get(fromOther.id).id == fromOther.id)
            let missing = await SyncFixtures.errorCode { _ = try await devices.vaults[1].sessions.get(session.id) }
            #expect(missing == .notFound)
            // Kept whole where it was written.
            #expect(try await vault.sessions.get(session.id).notes == Self.longText)

            session.notes = "resumen"
            session = try await vault.sessions.update(session)
            let fixed = try await devices.engines[0].sync()
            #expect(fixed.unsentRecords == 0)
            #expect(try await devices.engines[0].unsentRecords().isEmpty)
            _ = try await devices.engines[1].sync()
            let arrived = try await devices.vaults[1].sessions.get(session.id)
            #expect(arrived.notes == "resumen" && arrived.treatmentPlan == Self.longText)
        }
    }

    @Test("A change another device makes from the version before an unsent one is a conflict that keeps it, not a fast-forward over it")
    func unsentVersionIsNotOverwritten() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let patient = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            var session = try await devices.vaults[0].sessions.create(ClinicalSession(
                patientID: patient.id, date: ClinicalFixtures.now, type: .video, durationMinutes: 45, notes: "corta"))
            _ = try await devices.syncAll()
            session.notes = Self.longText
            session.treatmentPlan = Self.longText
            _ = try await devices.vaults[0].sessions.update(session)
            #expect(try await devices.engines[0].sync().unsentRecords == 1)

            var other = try await devices.vaults[1].sessions.get(session.id)
            other.durationMinutes = 50
            _ = try await devices.vaults[1].sessions.update(other)
            _ = try await devices.engines[1].sync()
            _ = try await devices.engines[0].sync()
            // Either the long version is still the one held here, or it is kept as the
            // losing side of a listed conflict: never silently replaced.
            let held = try await devices.vaults[0].sessions.get(session.id)
            let listed = try await devices.engines[0].conflicts().contains { $0.recordID == session.id }
            #expect(held.notes == Self.longText || listed)
            #expect(listed, "the two devices changed the session from the same version")
        }
    }
}
