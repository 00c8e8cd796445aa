import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultKeys
import MedVaultTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Files planted in a vault's folder by someone else: links, folders and pipes where
/// MedVault expects its own regular files. Each is refused by name, and nothing it points
/// at is touched.
@Suite("Hostile files in the vault folder")
struct HostileFileTests {
    /// A vault created and locked in `dir/clinic`, plus a "victim" file outside it.
    private func lockedVault(_ dir: TemporaryDirectory) async throws -> (VaultLayout, URL, Data) {
        let folder = dir.file("clinic")
        let created = try await Vault.create(at: folder, password: VaultFixtures.password(), options: VaultFixtures.options)
        await created.vault.lock()
        let victim = dir.file("victim.txt")
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try bytes.write(to: victim)
        return (VaultLayout(folder: folder), victim, bytes)
    }

    private func openError(_ layout: VaultLayout) async throws -> MedVaultError? {
        await #expect(throws: MedVaultError.self) {
            let vault = try await Vault.open(at: layout.folder, password: VaultFixtures.password(),
                                             options: VaultFixtures.options)
            await vault.lock()
        }
    }

    @Test("A -wal or -shm symlink is refused by name; the link's target keeps its bytes",
          arguments: ["-wal", "-shm", "-journal"])
    func plantedCompanionLink(suffix: String) async throws {
        try await withTemporaryDirectory { dir in
            let (layout, victim, bytes) = try await lockedVault(dir)
            try FileManager.default.createSymbolicLink(atPath: layout.database.path + suffix, withDestinationPath: victim.path)
            let error = try await openError(layout)
            #expect(error?.code == .storage)
            #expect(error?.reason.contains("records.medvault\(suffix) is a symbolic link") == true)
            #expect(error?.reason.contains(dir.url.path) == false, "the message names the file, not its path")
            #expect(try Data(contentsOf: victim) == bytes, "the link's target was changed")
        }
    }

    @Test("A -wal that is a folder or a named pipe is refused by name")
    func companionNotRegular() async throws {
        try await withTemporaryDirectory { dir in
            let (layout, _, _) = try await lockedVault(dir)
            let wal = layout.database.path + "-wal"
            try FileManager.default.createDirectory(atPath: wal, withIntermediateDirectories: false)
            var error = try await openError(layout)
            #expect(error?.reason.contains("records.medvault-wal is a folder") == true)
            try FileManager.default.removeItem(atPath: wal)
            #expect(mkfifo(wal, 0o600) == 0)
            error = try await openError(layout)
            #expect(error?.reason.contains("records.medvault-wal is a named pipe") == true)
        }
    }

    @Test("A -wal hard-linked to another file is refused; that file keeps its bytes")
    func companionHardLink() async throws {
        try await withTemporaryDirectory { dir in
            let (layout, victim, bytes) = try await lockedVault(dir)
            #expect(link(victim.path, layout.database.path + "-wal") == 0)
            let error = try await openError(layout)
            #expect(error?.reason.contains("records.medvault-wal has other hard links") == true)
            #expect(try Data(contentsOf: victim) == bytes)
        }
    }

    @Test("A symlinked database is refused")
    func databaseLink() async throws {
        try await withTemporaryDirectory { dir in
            let (layout, _, _) = try await lockedVault(dir)
            let moved = dir.file("elsewhere.medvault")
            try FileManager.default.moveItem(at: layout.database, to: moved)
            try FileManager.default.createSymbolicLink(at: layout.database, withDestinationURL: moved)
            let error = try await openError(layout)
            #expect(error?.code == .notADatabase)
            #expect(error?.reason.contains("records.medvault is a symbolic link") == true)
        }
    }

    @Test("A keyring replaced by a named pipe is refused at once instead of blocking")
    func keyringPipe() async throws {
        try await withTemporaryDirectory { dir in
            let (layout, _, _) = try await lockedVault(dir)
            try FileManager.default.removeItem(at: layout.keyring)
            #expect(mkfifo(layout.keyring.path, 0o600) == 0)
            // The old code blocked in open(2) waiting for a writer. After two seconds a
            // writer (on a thread of its own) opens and closes the pipe, so the test ends
            // either way.
            let path = layout.keyring.path
            let unblocker = Thread {
                Thread.sleep(forTimeInterval: 2)
                let descriptor = open(path, O_WRONLY | O_NONBLOCK)
                if descriptor >= 0 { close(descriptor) }
            }
            unblocker.start()
            let started = Date()
            var error: MedVaultError?
            do {
                _ = try KeyringFile.read(at: layout.keyring)
            } catch let caught as MedVaultError {
                error = caught
            }
            #expect(Date().timeIntervalSince(started) < 1.5, "reading the pipe blocked")
            #expect(error?.code == .storage)
            #expect(error?.reason.contains("records.medvault.keyring is not a regular file") == true)
        }
    }

    @Test("A symlinked keyring is refused by open and by destroy; its target is untouched")
    func keyringLink() async throws {
        try await withTemporaryDirectory { dir in
            let (layout, _, _) = try await lockedVault(dir)
            let real = dir.file("real.keyring")
            try FileManager.default.moveItem(at: layout.keyring, to: real)
            try FileManager.default.createSymbolicLink(at: layout.keyring, withDestinationURL: real)
            let before = try Data(contentsOf: real)
            let error = try await openError(layout)
            #expect(error?.reason.contains("symbolic link") == true)
            let destroyError = #expect(throws: MedVaultError.self) { try KeyringFile.destroy(at: layout.keyring) }
            #expect(destroyError?.reason.contains("records.medvault.keyring") == true)
            #expect(try Data(contentsOf: real) == before, "the keyring behind the link was overwritten")
            #expect(FileManager.default.fileExists(atPath: layout.keyring.path), "the link was removed")
        }
    }

    @Test("destroy refuses a keyring with a second hard link")
    func keyringHardLink() async throws {
        try await withTemporaryDirectory { dir in
            let (layout, _, _) = try await lockedVault(dir)
            let other = dir.file("other-name")
            #expect(link(layout.keyring.path, other.path) == 0)
            let before = try Data(contentsOf: other)
            let error = #expect(throws: MedVaultError.self) { try KeyringFile.destroy(at: layout.keyring) }
            #expect(error?.reason.contains("hard links") == true)
            #expect(try Data(contentsOf: other) == before)
        }
    }

    @Test("A file secret store refuses a symlinked secret")
    func secretLink() async throws {
        try await withTemporaryDirectory { dir in
            let target = dir.file("target")
            try Data("not a secret".utf8).write(to: target)
            let link = dir.file("planted")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            let error = #expect(throws: MedVaultError.self) { _ = try AtomicFile.readSecret(link) }
            #expect(error?.reason.contains("symbolic link") == true)
        }
    }

    @Test("Key rotation refuses a folder planted as its copy's journal, by name; the vault keeps working")
    func rotationCopyCompanion() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.file("clinic")
            let created = try await Vault.create(at: folder, password: VaultFixtures.password(), options: VaultFixtures.options)
            let vault = created.vault
            try await VaultFixtures.insertRawPatients(vault, count: 3)
            let journal = folder.path + "/records.medvault.rekey-journal"
            try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: false)
            let error = await #expect(throws: MedVaultError.self) { try await vault.rotateDatabaseKey() }
            #expect(error?.reason.contains("records.medvault.rekey-journal is a folder") == true, "\(String(describing: error))")
            #expect(try await VaultFixtures.patientCount(vault) == 3)
            await vault.lock()
        }
    }

    @Test("Syncing a folder that cannot be opened is an error, not ignored")
    func syncFolderFailure() {
        let error = #expect(throws: MedVaultError.self) {
            try DatabaseFile.syncFolder(of: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/records.medvault"))
        }
        #expect(error?.code == .fileNotFound)
    }

    @Test("create tightens an existing 0777 folder to 0700")
    func createTightensFolder() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.file("shared")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            #expect(chmod(folder.path, 0o777) == 0)
            let created = try await Vault.create(at: folder, password: VaultFixtures.password(), options: VaultFixtures.options)
            await created.vault.lock()
            let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
        }
    }

    @Test("verify reports a folder open to others and a -shm that is a link")
    func verifyReportsFolderAndLinks() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.file("clinic")
            let created = try await Vault.create(at: folder, password: VaultFixtures.password(), options: VaultFixtures.options)
            let vault = created.vault
            #expect(try await vault.verify().problemsBesidesTestKDF.isEmpty)
            #expect(chmod(folder.path, 0o777) == 0)
            let victim = dir.file("victim")
            try Data("untouched".utf8).write(to: victim)
            try FileManager.default.createSymbolicLink(atPath: folder.path + "/records.medvault.keyring-journal",
                                                       withDestinationPath: victim.path)
            // Swapped while open (SQLite keeps its mapping of the real one).
            let shm = folder.path + "/records.medvault-shm"
            try FileManager.default.removeItem(atPath: shm)
            try FileManager.default.createSymbolicLink(atPath: shm, withDestinationPath: victim.path)
            let verification = try await vault.verify()
            await vault.lock()
            #expect(verification.problems.contains { $0.contains("folder is open to other users (mode 777)") })
            #expect(verification.problems.contains { $0.contains("records.medvault.keyring-journal is a symbolic link") })
            #expect(verification.problems.contains { $0.contains("records.medvault-shm is a symbolic link") })
            #expect(try Data(contentsOf: victim) == Data("untouched".utf8))
        }
    }
}
