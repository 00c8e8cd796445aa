import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Several `Vault` values on one folder: each holds its own lock-file descriptors, so
/// they coordinate exactly as separate processes do (flock locks belong to open file
/// descriptions). The child-process versions of these scenarios are in the CLI and
/// process tests.
@Suite("Vault: several holders of one vault")
struct VaultCoordinationTests {
    static func open(_ dir: TemporaryDirectory, _ password: Password, lockTimeout: Duration = .seconds(30)) async throws -> Vault {
        var options = VaultFixtures.options
        options.lockTimeout = lockTimeout
        return try await Vault.open(at: dir.url, password: password, options: options)
    }

    static func bytes(_ url: URL) -> Data? { try? Data(contentsOf: url) }

    @Test("A password changed by one holder is not undone by another holder's recovery-key regeneration")
    func keyringChangesCompose() async throws {
        try await withTemporaryDirectory { dir in
            let old = try VaultFixtures.password("old password")
            let new = try VaultFixtures.password("new password")
            let created = try await Vault.create(at: dir.url, password: old, options: VaultFixtures.options)
            let app = created.vault
            let tool = try await Self.open(dir, old)
            try await tool.changePassword(from: old, to: new)
            await tool.lock()
            // The app opened before the change; its cached keyring has the old password slot.
            let recoveryKey = try await app.regenerateRecoveryKey()
            await app.lock()

            let withNew = try await Self.open(dir, new)
            await withNew.lock()
            let oldRefused = await #expect(throws: MedVaultError.self) { _ = try await Self.open(dir, old) }
            #expect(oldRefused?.code == .wrongPassword)
            let viaRecovery = try await Vault.open(at: dir.url, recoveryKey: recoveryKey, options: VaultFixtures.options)
            await viaRecovery.lock()
            let oldRecovery = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: dir.url, recoveryKey: created.recoveryKey, options: VaultFixtures.options)
            }
            #expect(oldRecovery?.code == .wrongRecoveryKey)
        }
    }

    @Test("Rotation and destroy are refused with vaultInUse while another holder has the vault open; nothing changes")
    func soleAccessOperationsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 50)
            let other = try await Self.open(dir, password)
            let layout = VaultLayout(folder: dir.url)
            let keyringBefore = Self.bytes(layout.keyring)

            let rotation = await #expect(throws: MedVaultError.self) { try await created.vault.rotateDatabaseKey() }
            #expect(rotation?.code == .vaultInUse)
            let destroy = await #expect(throws: MedVaultError.self) { try await created.vault.destroy() }
            #expect(destroy?.code == .vaultInUse)
            #expect(Self.bytes(layout.keyring) == keyringBefore)
            #expect(!FileManager.default.fileExists(atPath: DatabaseKeyChange.copyURL(for: layout.database).path))
            // Both holders still work, and the other one keeps writing into the live file.
            try await VaultFixtures.insertRawPatients(other, count: 5, start: 50)
            #expect(try await VaultFixtures.patientCount(created.vault) == 55)

            await other.lock()
            try await created.vault.rotateDatabaseKey()
            #expect(try await created.vault.info().databaseKeyGeneration == 2)
            #expect(try await VaultFixtures.patientCount(created.vault) == 55)
            try await created.vault.destroy()
            #expect(!FileManager.default.fileExists(atPath: layout.keyring.path))
        }
    }

    @Test("A repository value kept after its Vault was dropped still holds the vault open")
    func repositoryKeepsPresence() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            var patients: (any PatientRepository)? = try await Self.open(dir, password).patients
            #expect(try await patients?.count() == 0)
            let refused = await #expect(throws: MedVaultError.self) { try await created.vault.rotateDatabaseKey() }
            #expect(refused?.code == .vaultInUse)
            patients = nil
            try await created.vault.rotateDatabaseKey()
            #expect(try await created.vault.info().databaseKeyGeneration == 2)
            await created.vault.lock()
        }
    }

    @Test("Opening waits for another holder's keyring lock and, past the timeout, fails with vaultInUse, deleting nothing")
    func openingDuringAnotherKeyOperation() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            await created.vault.lock()
            let layout = VaultLayout(folder: dir.url)
            // What a rotating process holds: the keyring lock, and its copy being written.
            let rotator = try VaultFileLock(layout.keyringLock)
            #expect(try rotator.tryLock(.exclusive))
            let copy = DatabaseKeyChange.copyURL(for: layout.database)
            try Data("copy in progress".utf8).write(to: copy)
            let started = ContinuousClock.now
            let refused = await #expect(throws: MedVaultError.self) {
                _ = try await Self.open(dir, password, lockTimeout: .milliseconds(300))
            }
            #expect(refused?.code == .vaultInUse)
            #expect(ContinuousClock.now - started >= .milliseconds(300))
            #expect(FileManager.default.fileExists(atPath: copy.path), "another process's rotation copy survives")

            // Once the lock is free, opening goes ahead (and clears the abandoned copy).
            rotator.release()
            let vault = try await Self.open(dir, password)
            #expect(!FileManager.default.fileExists(atPath: copy.path))
            await vault.lock()
        }
    }

    @Test("Opening while another holder streams an attachment leaves that upload alone")
    func openingKeepsAnotherHoldersUpload() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            let writer = created.vault
            let patient = try await writer.patients.create(
                Patient(firstName: "Ana", lastName: "Núñez", dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
            let session = try await writer.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
            let (content, feed) = AsyncStream<Data>.makeStream()
            feed.yield(Data(repeating: 7, count: 100_000))
            let upload = Task {
                try await writer.attachments.create(
                    NewAttachment(sessionID: session.id, fileName: "scan.pdf", mimeType: "application/pdf"), content: content)
            }
            // Wait until the upload's row is stored, incomplete.
            var staged: Int64 = 0
            for _ in 0..<500 where staged == 0 {
                staged = try await writer.database.read { db in
                    try db.fetchOne("SELECT count(*) FROM attachment WHERE is_complete = 0") { row in row.int64(at: 0) } ?? 0
                }
                if staged == 0 { try await Task.sleep(for: .milliseconds(10)) }
            }
            try #require(staged == 1)
            let reader = try await Self.open(dir, password)
            let stillStaged = try await reader.database.read { db in
                try db.fetchOne("SELECT count(*) FROM attachment WHERE is_complete = 0") { row in row.int64(at: 0) } ?? 0
            }
            #expect(stillStaged == 1, "the other holder's upload in progress was not cleaned away")
            feed.yield(Data(repeating: 8, count: 50_000))
            feed.finish()
            let attachment = try await upload.value
            #expect(attachment.byteCount == 150_000)
            #expect(try await reader.attachments.data(of: attachment.id).count == 150_000)
            await reader.lock()
            await writer.lock()
        }
    }

    @Test("A temporary keyring left by an interrupted write is removed at open and after every keyring write")
    func staleTemporaryKeyringsRemoved() async throws {
        try await withTemporaryDirectory { dir in
            let old = try VaultFixtures.password("old password")
            let new = try VaultFixtures.password("new password")
            let created = try await Vault.create(at: dir.url, password: old, options: VaultFixtures.options)
            let layout = VaultLayout(folder: dir.url)
            // The state a process killed between writing and renaming leaves.
            let leftover = dir.file(".records.medvault.keyring.0a1b2c3d.tmp")
            try FileManager.default.copyItem(at: layout.keyring, to: leftover)
            try await created.vault.changePassword(from: old, to: new)
            #expect(!FileManager.default.fileExists(atPath: leftover.path), "removed after the keyring write")

            // Planted again while the vault is open: verify reports it, the next open removes it.
            try FileManager.default.copyItem(at: layout.keyring, to: leftover)
            #expect(try await created.vault.verify().problems.contains { $0.contains("temporary keyring") })
            await created.vault.lock()
            // It still opens with what was current when it was written: a real hazard.
            #expect(throws: Never.self) { _ = try KeyringFile.read(at: leftover).unlock(password: new) }
            let reopened = try await Self.open(dir, new)
            #expect(!FileManager.default.fileExists(atPath: leftover.path), "removed at open")
            #expect(try await reopened.verify().problemsBesidesTestKDF.isEmpty)
            await reopened.lock()
        }
    }

    @Test("A lock taken on a lock file that was then unlinked (destroy, a clean-up script) is retaken on the new file")
    func lockFollowsTheCurrentFile() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("records.medvault.keyring.lock")
            let holder = try VaultFileLock(url)
            #expect(try holder.tryLock(.exclusive))
            // A waiter opened the file before it was unlinked…
            let waiter = try VaultFileLock(url)
            let waiting = Task { try await waiter.lock(.exclusive, timeout: .seconds(10), waitingFor: "test") }
            try await Task.sleep(for: .milliseconds(50))
            // …the holder finishes and the file is unlinked (as destroy() does).
            holder.release()
            unlink(url.path)
            try await waiting.value
            // A newcomer opens the path afresh: it must see the waiter's lock.
            let newcomer = try VaultFileLock(url)
            #expect(try !newcomer.tryLock(.exclusive), "the waiter's lock is on the file the path names")
            waiter.release()
            #expect(try newcomer.tryLock(.exclusive))
        }
    }

    @Test("destroy() that fails after closing the database (a hard-linked keyring) locks the vault and removes nothing")
    func destroyFailureLocks() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let folder = dir.url.appendingPathComponent("v")
            let created = try await Vault.create(at: folder, password: password, options: VaultFixtures.options)
            let layout = VaultLayout(folder: folder)
            // A `cp -l` backup: crypto-shredding refuses a keyring with a second link.
            #expect(link(layout.keyring.path, dir.file("keyring-backup").path) == 0)
            await #expect(throws: MedVaultError.self) { try await created.vault.destroy() }
            #expect(await created.vault.isLocked, "no key stays in memory after the failure")
            let later = await #expect(throws: MedVaultError.self) { _ = try await created.vault.patients.count() }
            #expect(later?.code == .locked)
            // Nothing was removed: the vault opens.
            let reopened = try await Vault.open(at: folder, password: password, options: VaultFixtures.options)
            await reopened.lock()
        }
    }

    @Test("A lock file planted as a symbolic link is refused with a clear error and its target is untouched")
    func plantedLockFileLink() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url.appendingPathComponent("v"), password: password,
                                                 options: VaultFixtures.options)
            await created.vault.lock()
            let layout = VaultLayout(folder: dir.url.appendingPathComponent("v"))
            let target = dir.file("precious")
            try Data("do not touch".utf8).write(to: target)
            try FileManager.default.removeItem(at: layout.presenceLock)
            try FileManager.default.createSymbolicLink(at: layout.presenceLock, withDestinationURL: target)
            let refused = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: layout.folder, password: password, options: VaultFixtures.options)
            }
            #expect(refused?.code == .permissionDenied)
            #expect(refused?.reason.contains("records.medvault.lock") == true)
            #expect(try Data(contentsOf: target) == Data("do not touch".utf8))
        }
    }

    @Test("Rotation checks for room for the copy first: too little free space is diskFull and nothing changes")
    func rotationNeedsRoom() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 500)
            let layout = VaultLayout(folder: dir.url)
            let needed = DiskSpace.bytesNeededForCopy(of: layout.database)
            #expect(needed > DatabaseKeyChange.fileSize(layout.database))
            let refused = #expect(throws: MedVaultError.self) {
                try DiskSpace.requireRoomForCopy(of: layout.database, available: needed - 1)
            }
            #expect(refused?.code == .diskFull)
            #expect(refused?.reason.contains("free space") == true)
            #expect(throws: Never.self) { try DiskSpace.requireRoomForCopy(of: layout.database, available: needed) }
            await created.vault.lock()
        }
    }
}
