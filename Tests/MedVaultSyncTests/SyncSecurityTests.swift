import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// What the server sees: every byte handed to the transport, scanned.
@Suite("Sync engine: what the server sees")
struct SyncSecurityTests {
    @Test("No marker of any field, no record id, no table name is in any byte handed to the transport (JSON and decoded ciphertexts)")
    func markerScan() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            await server.recordRequestBytes()
            let devices = try await SyncDevices.make(2, in: dir, server: server)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let patient = try await vault.patients.create(SyncFixtures.markedPatient())
            let marker = ClinicalFixtures.marker
            let session = try await vault.sessions.create(ClinicalSession(
                patientID: patient.id, date: ClinicalFixtures.now, type: .video, durationMinutes: 45,
                notes: marker, chiefComplaint: marker, treatmentPlan: marker))
            try await vault.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: ClinicalFixtures.snapshot,
                                                       severity: .moderate, clinicalNotes: marker,
                                                       diagnosedAt: session.date))
            _ = try await vault.medications.create(Medication(
                patientID: patient.id, name: marker, genericName: marker, dosage: Dosage(amount: 1, unit: .tablets),
                frequency: .asNeeded, instructions: marker, startDate: ClinicalFixtures.date("2026-01-01")))
            try await devices.syncAll()
            #expect(try await devices.vaults[1].patients.get(patient.id).lastName == marker)

            let bodies = await server.recordedRequestBytes()
            #expect(bodies.count >= 3)
            let scanned = await SyncFixtures.bytesSeen(by: server)
            #expect(scanned.count > bodies.count + 4, "the pushed envelopes are scanned too")
            var needles: [Data] = [Data(marker.utf8), Data(marker.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
                                   Data(marker.lowercased().utf8), Data("clinical_session".utf8)]
            for id in [patient.id, session.id] {
                needles += [Data(id.uuidString.utf8), Data(id.uuidString.lowercased().utf8),
                            withUnsafeBytes(of: id.uuid) { Data($0) }]
            }
            for haystack in scanned {
                for needle in needles { #expect(haystack.range(of: needle) == nil) }
            }
        }
    }
}
