import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

/// Keyring format version 2: the audit record after the header MAC (docs/keyring-format.md,
/// "Audit record").
@Suite("Keyring: the audit record (format version 2)")
struct KeyringAuditRecordTests {
    static func anchor() -> AuditAnchor {
        AuditAnchor(trail: AuditAnchor.Trail(first: Array(repeating: 1, count: 32), sequence: 7,
                                             head: Array(repeating: 2, count: 32)))
    }

    func code(_ body: () throws -> Void) -> MedVaultError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? MedVaultError)?.code
        }
    }

    @Test("A first record makes version 2 with the vault key; the file round-trips, the slots still open, the record reads back")
    func versionTwoRoundTrip() throws {
        let created = try makeKeyring()
        let key = try AuditKey(vaultKey: created.vaultKey, vaultID: created.keyring.vaultID)
        #expect(created.keyring.formatVersion == 1)
        let recorded = try created.keyring.replacingAuditRecord(Self.anchor().encoded(key: key), vaultKey: created.vaultKey)
        #expect(recorded.formatVersion == 2)
        #expect(recorded.serialized().count == 438 + AuditAnchor.byteCount)
        let decoded = try Keyring(serialized: recorded.serialized())
        #expect(decoded == recorded)
        #expect(try AuditAnchor.read(decoded, key: key) == .valid(Self.anchor()))
        let vaultKey = try decoded.unlock(password: try Password("correct horse battery"))
        defer { vaultKey.wipe() }
        #expect(try decoded.databaseKey(vaultKey: vaultKey) == created.databaseKey)
        #expect(try AuditAnchor.read(created.keyring, key: key) == .none)

        // Moving it forward needs no vault key, and keeps the header MAC.
        var moved = Self.anchor()
        moved.trail?.sequence = 9
        let again = try decoded.replacingAuditRecord(moved.encoded(key: key), vaultKey: nil)
        #expect(again.authenticationTag == decoded.authenticationTag)
        #expect(try AuditAnchor.read(again, key: key) == .valid(moved))
        // Key changes keep it: it is this device's.
        let changed = try again.replacingPassword(try Password("another horse battery"), vaultKey: created.vaultKey,
                                                  kdf: .fastForTestsOnly)
        #expect(try AuditAnchor.read(changed, key: key) == .valid(moved))
    }

    @Test("A first record without the vault key is locked; one of the wrong size is invalidArgument; nothing is built")
    func refusedRecords() throws {
        let created = try makeKeyring()
        let key = try AuditKey(vaultKey: created.vaultKey, vaultID: created.keyring.vaultID)
        let record = try Self.anchor().encoded(key: key)
        #expect(code { _ = try created.keyring.replacingAuditRecord(record, vaultKey: nil) } == .locked)
        #expect(code { _ = try created.keyring.replacingAuditRecord(Array(record.dropLast()), vaultKey: created.vaultKey) }
            == .invalidArgument)
        var short = Self.anchor()
        short.pendingRestore = [1, 2, 3]
        #expect(code { _ = try short.encoded(key: key) } == .invalidArgument)
        // A keyring whose header MAC does not verify gets no record (it would be laundered).
        let edited = tampered(created.keyring, generation: 5)
        #expect(code { _ = try edited.replacingAuditRecord(record, vaultKey: created.vaultKey) } == .corrupted)
    }

    @Test("An edited record still decodes and unlocks but reads as invalid; another vault's record is invalid; a version-2 body relabelled 1 is corrupted")
    func tamperedRecords() throws {
        let created = try makeKeyring()
        let key = try AuditKey(vaultKey: created.vaultKey, vaultID: created.keyring.vaultID)
        let recorded = try created.keyring.replacingAuditRecord(Self.anchor().encoded(key: key), vaultKey: created.vaultKey)
        var bytes = recorded.serialized()
        let start = bytes.count - 32 - AuditAnchor.byteCount
        for offset in [0, 5, 40, 100, AuditAnchor.byteCount - 1] {
            var edited = bytes
            edited[start + offset] ^= 0x10
            let body = Array(edited.dropLast(32))
            let keyring = try Keyring(serialized: body + KeyringCodec.checksum(body))
            #expect(try AuditAnchor.read(keyring, key: key) == .invalid, "offset \(offset)")
            let vaultKey = try keyring.unlock(password: try Password("correct horse battery"))
            vaultKey.wipe()
        }
        let other = try makeKeyring()
        let otherKey = try AuditKey(vaultKey: other.vaultKey, vaultID: other.keyring.vaultID)
        #expect(try AuditAnchor.read(recorded, key: otherKey) == .invalid)

        bytes[9] = 1
        let relabelled = Array(bytes.dropLast(32))
        #expect(code { _ = try Keyring(serialized: relabelled + KeyringCodec.checksum(relabelled)) } == .corrupted)
        // Without its record, the version-2 body no longer matches its header MAC.
        let stripped = Array(recorded.serialized().dropLast(32 + AuditAnchor.byteCount))
        let strippedKeyring = try? Keyring(serialized: stripped + KeyringCodec.checksum(stripped))
        #expect(strippedKeyring == nil)
    }

    @Test("A joining device's keyring has no record; a merge of another device's slots keeps this device's record")
    func recordStaysOnItsDevice() throws {
        let created = try makeKeyring()
        let key = try AuditKey(vaultKey: created.vaultKey, vaultID: created.keyring.vaultID)
        let mine = try created.keyring.replacingAuditRecord(Self.anchor().encoded(key: key), vaultKey: created.vaultKey)
        var theirs = Self.anchor()
        theirs.trail?.first = Array(repeating: 9, count: 32)
        let published = try mine
            .replacingPassword(try Password("another horse battery"), vaultKey: created.vaultKey, kdf: .fastForTestsOnly)
            .replacingAuditRecord(theirs.encoded(key: key), vaultKey: nil)
        let joined = try published.forNewDevice(vaultKey: created.vaultKey)
        joined.databaseKey.wipe()
        #expect(joined.keyring.auditRecord == nil && joined.keyring.formatVersion == 1)
        let merged = try mine.mergingSharedSlots(of: published, vaultKey: created.vaultKey)
        #expect(merged.sharedSlotsDigest == published.sharedSlotsDigest)
        #expect(try AuditAnchor.read(merged, key: key) == .valid(Self.anchor()))
    }
}
