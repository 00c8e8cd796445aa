import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// The wire module throws its own small error (`SyncWireError`), so the server needs no
/// MedVaultCore; MedVaultSync's API still throws only `MedVaultError`: a wire value's
/// error reaches an app as `validation` on the same field, never as the wire's type.
@Suite("Sync: wire errors at the engine's edge")
struct SyncWireErrorTests {
    @Test("A damaged outbox row (a 31-byte record key) fails the push as MedVaultError validation on recordKey, and nothing is pushed")
    func damagedOutboxRow() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            // Of the current epoch, so that no re-seal opens it first.
            let epoch = try await devices.vaults[0].database.read { db in try SyncEpochRecord.currentEpoch(db) }
            let damaged = SyncStateStore.SyncEnvelopeRow(
                id: UUID(), recordKey: Data(repeating: 7, count: 31), ciphertext: Data(repeating: 1, count: 64),
                epoch: epoch)
            let vaultID = devices.vaults[0].vaultID
            let stored = await devices.server.envelopeCount(vaultID: vaultID)
            try await devices.vaults[0].database.write { db in try SyncStateStore.enqueue([damaged], db) }
            let error = await expectMedVaultError(.validation, field: "recordKey") {
                try await devices.engines[0].sync()
            }
            #expect(error?.reason == "a record key is 32 bytes")
            #expect(await devices.server.envelopeCount(vaultID: vaultID) == stored)
        }
    }

    @Test("MedVaultError.fromWire maps only SyncWireError; any other error passes through as it was")
    func fromWire() throws {
        #expect(throws: MedVaultError(.validation, field: "keyring", reason: "must be 1 byte to 64 KiB")) {
            try MedVaultError.fromWire { try SyncKeyringBlob(generation: 1, keyring: Data()) }
        }
        #expect(throws: CancellationError.self) {
            try MedVaultError.fromWire { () throws -> Int in throw CancellationError() }
        }
        #expect(try MedVaultError.fromWire { 42 } == 42)
    }
}
