import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultTestSupport
import Testing

/// Issue #31, item 4: a change that arrives through sync enters the receiver's audit
/// trail naming the device that made it (`AuditEntry.syncedFrom`), not as the receiver's
/// own; the chain covers that name.
@Suite("Sync: the audit trail names the device a synced change came from", .timeLimit(.minutes(2)))
struct SyncAuditOriginTests {
    /// The entries of `vault`'s trail about record `id`.
    static func entries(_ vault: Vault, about id: UUID) async throws -> [AuditEntry] {
        try await AuditFixtures.entries(vault).filter { $0.entityID == id }
    }

    @Test("A's insert (the batch path) and update (the per-record path) are audited on B as A's; B's own change as nobody else's; both trails verify")
    func remoteChangesNameTheirDevice() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let (a, b) = (devices.vaults[0], devices.vaults[1])
            let aID = try #require(try await devices.engines[0].credentials()).deviceID
            let bID = try #require(try await devices.engines[1].credentials()).deviceID

            var ana = try await a.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await devices.syncAll()
            ana.phoneNumber = "+34 600 000 001"
            ana = try await a.patients.update(ana)
            let luis = try await b.patients.create(ClinicalFixtures.patient("Luis", "Gil"))
            try await devices.syncAll()
            #expect(try await b.patients.get(ana.id).version == ana.version)

            let anaOnB = try await Self.entries(b, about: ana.id)
            #expect(anaOnB.map(\.action) == [.create, .update])
            #expect(anaOnB.allSatisfy { $0.syncedFrom == aID && $0.deviceID == bID })
            let luisOnB = try await Self.entries(b, about: luis.id)
            #expect(luisOnB.map(\.action) == [.create])
            #expect(luisOnB.allSatisfy { $0.syncedFrom == nil && $0.deviceID == bID })
            // And the other way: on A, its own changes name nobody, B's name B.
            #expect(try await Self.entries(a, about: ana.id).allSatisfy { $0.syncedFrom == nil })
            #expect(try await Self.entries(a, about: luis.id).map(\.syncedFrom) == [bID])

            for vault in [a, b] {
                guard case .intact = try await vault.audit.verify() else {
                    Issue.record("a trail with synced entries does not verify")
                    return
                }
            }
        }
    }

    @Test("Clearing or changing the device a synced entry names is reported as an edit", arguments: [
        "origin = NULL", "origin = randomblob(16)",
    ])
    func originIsCovered(change: String) async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let b = devices.vaults[1]
            let ana = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await devices.syncAll()
            let entry = try #require(try await Self.entries(b, about: ana.id).first)
            #expect(entry.syncedFrom != nil)
            guard case .intact = try await b.audit.verify() else {
                Issue.record("the untouched trail does not verify")
                return
            }
            try await AuditFixtures.tamper(b, "UPDATE medvault_audit SET \(change) WHERE seq = ?",
                                           [.integer(entry.sequence)], password: try VaultFixtures.password())
            #expect(try await b.audit.verify() == .tampered(sequence: entry.sequence, problem: .edited))
        }
    }

    @Test("A synced deletion is audited as the deleting device's")
    func deletionNamesItsDevice() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let (a, b) = (devices.vaults[0], devices.vaults[1])
            let aID = try #require(try await devices.engines[0].credentials()).deviceID
            let session = try await SyncAttachmentFixtures.session(on: a)
            let attachment = try await SyncAttachmentFixtures.attach(Data("informe".utf8), to: session, on: a)
            try await devices.syncAll()
            try await a.attachments.delete(attachment.id)
            try await devices.syncAll()
            let onB = try await Self.entries(b, about: attachment.id)
            #expect(onB.map(\.action) == [.create, .delete])
            #expect(onB.allSatisfy { $0.syncedFrom == aID })
        }
    }
}
