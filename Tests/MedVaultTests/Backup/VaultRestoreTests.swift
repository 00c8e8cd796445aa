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

@Suite("Vault: restore")
struct VaultRestoreTests {
    /// A vault with 40 patients in `dir/vault` and its backup in `dir/backup`.
    private func vaultAndBackup(_ dir: TemporaryDirectory) async throws -> (Vault.Creation, [Patient]) {
        let created = try await BackupFixtures.makeVault(at: dir.file("vault"))
        let patients = try await BackupFixtures.allPatients(created.vault)
        try await created.vault.backup(to: dir.file("backup"))
        return (created, patients)
    }

    private func snapshot(_ folder: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in BackupFixtures.names(in: folder) {
            files[name] = StorageFixtures.bytes(folder.appendingPathComponent(name))
        }
        return files
    }

    @Test("Restore into a new folder: the vault opens with the backup's password, holds every record field by field, and passes verify")
    func restoreIntoNewFolder() async throws {
        try await withTemporaryDirectory { dir in
            let (created, patients) = try await vaultAndBackup(dir)
            await created.vault.lock()
            let phases = PhaseRecorder()
            let report = try await Vault.restore(from: dir.file("backup"), to: dir.file("restored"),
                                                 password: try Password(BackupFixtures.password),
                                                 options: VaultFixtures.options) { phases.record($0) }
            #expect(report.recordCounts["patient"] == 40)
            #expect(report.vaultID == created.vault.vaultID)
            #expect(phases.phases == [.copying, .verifying, .finished])
            #expect(BackupFixtures.names(in: dir.url) == ["backup", "restored", "vault"])
            let mode = try FileManager.default.attributesOfItem(atPath: dir.file("restored").path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            let restored = try await BackupFixtures.open(dir.file("restored"))
            #expect(try await BackupFixtures.allPatients(restored) == patients)
            #expect(try await restored.verify().problemsBesidesTestKDF == [])
            await restored.lock()
            BackupFixtures.expectNoPlaintext(in: dir.file("restored"))
        }
    }

    @Test("Restore with the recovery key")
    func restoreWithRecoveryKey() async throws {
        try await withTemporaryDirectory { dir in
            let (created, _) = try await vaultAndBackup(dir)
            await created.vault.lock()
            try await Vault.restore(from: dir.file("backup"), to: dir.file("restored"),
                                    recoveryKey: created.recoveryKey, options: VaultFixtures.options)
            let restored = try await BackupFixtures.open(dir.file("restored"))
            #expect(try await restored.patients.count() == 39)
            await restored.lock()
        }
    }

    @Test("Restore over a closed vault replaces it: the old vault's records and keyring are gone, nothing is left beside it")
    func restoreReplacesClosedVault() async throws {
        try await withTemporaryDirectory { dir in
            let (created, patients) = try await vaultAndBackup(dir)
            // Records written after the backup disappear with the restore.
            try await BackupFixtures.addRecords(created.vault, patients: 7, start: 500)
            await created.vault.lock()
            try await Vault.restore(from: dir.file("backup"), to: dir.file("vault"),
                                    password: try Password(BackupFixtures.password), options: VaultFixtures.options)
            #expect(BackupFixtures.names(in: dir.url) == ["backup", "vault"], "the old vault or a temporary folder was left")
            let restored = try await BackupFixtures.open(dir.file("vault"))
            #expect(try await BackupFixtures.allPatients(restored) == patients)
            #expect(try await restored.verify().problemsBesidesTestKDF == [])
            await restored.lock()
        }
    }

    @Test("Restore over a vault another process or Vault has open is refused with vaultInUse and changes no byte")
    func restoreRefusedWhileOpen() async throws {
        try await withTemporaryDirectory { dir in
            let (created, _) = try await vaultAndBackup(dir)
            await created.vault.lock()
            let child = try ProbeChild(["hold", dir.file("vault").path], outputURL: dir.file("hold.txt"))
            try #require(try await child.waitForLines(1))
            let before = snapshot(dir.file("vault"))
            let error = await #expect(throws: MedVaultError.self) {
                try await Vault.restore(from: dir.file("backup"), to: dir.file("vault"),
                                        password: try Password(BackupFixtures.password), options: VaultFixtures.options)
            }
            #expect(error?.code == .vaultInUse)
            #expect(snapshot(dir.file("vault")) == before)
            #expect(BackupFixtures.names(in: dir.url) == ["backup", "hold.txt", "vault"])
            try child.closeInput()
            try await child.waitForExit()

            let inProcess = try await BackupFixtures.open(dir.file("vault"))
            let again = await #expect(throws: MedVaultError.self) {
                try await Vault.restore(from: dir.file("backup"), to: dir.file("vault"),
                                        password: try Password(BackupFixtures.password), options: VaultFixtures.options)
            }
            #expect(again?.code == .vaultInUse)
            #expect(try await inProcess.patients.count() == 39)
            await inProcess.lock()
        }
    }

    @Test("A damaged backup (one byte changed in a page, bytes appended, or truncated) is refused with corrupted and changes nothing at the target")
    func damagedBackupIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let (created, _) = try await vaultAndBackup(dir)
            await created.vault.lock()
            let database = VaultLayout(folder: dir.file("backup")).database
            var bytes = try #require(StorageFixtures.bytes(database))
            let original = bytes
            bytes[bytes.count - 4096 + 100] ^= 0x01
            try bytes.write(to: database)
            let before = snapshot(dir.file("vault"))
            for target in ["vault", "fresh"] {
                let error = await #expect(throws: MedVaultError.self, "a damaged backup was restored to \(target)") {
                    try await Vault.restore(from: dir.file("backup"), to: dir.file(target),
                                            password: try Password(BackupFixtures.password), options: VaultFixtures.options)
                }
                #expect(error?.code == .corrupted, "\(String(describing: error))")
            }
            // Bytes appended past the last page SQLite reads: random ones, and a page
            // that decrypts (a copy of the database's own second page).
            for appended in [Data((0..<4096).map { _ in UInt8.random(in: 0...255) }), original[4096..<8192]] {
                try (original + appended).write(to: database)
                let extended = await #expect(throws: MedVaultError.self, "a backup with bytes appended was restored") {
                    try await Vault.restore(from: dir.file("backup"), to: dir.file("fresh"),
                                            password: try Password(BackupFixtures.password), options: VaultFixtures.options)
                }
                #expect(extended?.code == .corrupted, "\(String(describing: extended))")
                #expect(extended?.reason.contains("appended") == true, "\(String(describing: extended))")
            }
            try original.prefix(original.count - 4096 - 7).write(to: database)
            let truncated = await #expect(throws: MedVaultError.self) {
                try await Vault.restore(from: dir.file("backup"), to: dir.file("vault"),
                                        password: try Password(BackupFixtures.password), options: VaultFixtures.options)
            }
            #expect(truncated?.code == .notADatabase || truncated?.code == .corrupted, "\(String(describing: truncated))")
            #expect(snapshot(dir.file("vault")) == before)
            #expect(BackupFixtures.names(in: dir.url) == ["backup", "vault"])
        }
    }

    @Test("A foreign backup (another vault's keyring with this database), a wrong password, and a folder copied from a live vault (a -wal or -journal, even empty) are refused; nothing changes")
    func foreignBackupIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let (created, _) = try await vaultAndBackup(dir)
            await created.vault.lock()
            let other = try await Vault.create(at: dir.file("other"), password: try Password(BackupFixtures.password),
                                               options: VaultFixtures.options)
            await other.vault.lock()
            let before = snapshot(dir.file("vault"))
            let backupKeyring = VaultLayout(folder: dir.file("backup")).keyring
            let original = try #require(StorageFixtures.bytes(backupKeyring))
            try #require(StorageFixtures.bytes(VaultLayout(folder: dir.file("other")).keyring)).write(to: backupKeyring)
            let foreign = await #expect(throws: MedVaultError.self) {
                try await Vault.restore(from: dir.file("backup"), to: dir.file("vault"),
                                        password: try Password(BackupFixtures.password), options: VaultFixtures.options)
            }
            #expect(foreign?.code == .notADatabase, "\(String(describing: foreign))")
            try original.write(to: backupKeyring)

            let wrong = await #expect(throws: MedVaultError.self) {
                try await Vault.restore(from: dir.file("backup"), to: dir.file("vault"),
                                        password: try Password("not the password"), options: VaultFixtures.options)
            }
            #expect(wrong?.code == .wrongPassword)

            // A write-ahead log or a rollback journal beside the database, even empty.
            for (name, bytes) in [("records.medvault-wal", Data(repeating: 7, count: 5000)),
                                  ("records.medvault-wal", Data()), ("records.medvault-journal", Data())] {
                try bytes.write(to: dir.file("backup/\(name)"))
                let live = await #expect(throws: MedVaultError.self, "restored beside a \(bytes.count)-byte \(name)") {
                    try await Vault.restore(from: dir.file("backup"), to: dir.file("vault"),
                                            password: try Password(BackupFixtures.password), options: VaultFixtures.options)
                }
                #expect(live?.code == .invalidArgument, "\(String(describing: live))")
                try FileManager.default.removeItem(at: dir.file("backup/\(name)"))
            }
            #expect(snapshot(dir.file("vault")) == before)
            #expect(BackupFixtures.names(in: dir.url) == ["backup", "other", "vault"])
        }
    }

    @Test("A backup written by a newer MedVault (a migration this build does not know) is refused with schemaTooNew; nothing changes")
    func newerSchemaIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let (created, _) = try await vaultAndBackup(dir)
            await created.vault.lock()
            let password = try Password(BackupFixtures.password)
            let key = try VaultFixtures.databaseKey(in: dir.file("backup"), password: password)
            let keyring = try KeyringFile.read(at: VaultLayout(folder: dir.file("backup")).keyring)
            var configuration = DatabaseConfiguration()
            configuration.cipherSettings = keyring.cipherSettings
            // Written in rollback-journal mode, as a backup is (no -wal left behind).
            let connection = try DatabaseConnection.open(path: VaultLayout(folder: dir.file("backup")).database.path, key: key,
                                                         role: .writer, configuration: configuration)
            try connection.executeScript("PRAGMA journal_mode = DELETE;")
            try connection.execute("INSERT INTO medvault_migrations(name) VALUES ('a migration from the future')")
            connection.close()
            let before = snapshot(dir.file("vault"))
            let error = await #expect(throws: MedVaultError.self) {
                try await Vault.restore(from: dir.file("backup"), to: dir.file("vault"), password: password,
                                        options: VaultFixtures.options)
            }
            #expect(error?.code == .schemaTooNew, "\(String(describing: error))")
            #expect(snapshot(dir.file("vault")) == before)
            #expect(BackupFixtures.names(in: dir.url) == ["backup", "vault"])
        }
    }

    @Test("FolderExchange swaps two folders in one step, or says it cannot and changes nothing")
    func folderExchange() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for name in ["a", "b"] {
            try FileManager.default.createDirectory(at: dir.file(name), withIntermediateDirectories: false)
            try Data(name.utf8).write(to: dir.file("\(name)/name"))
        }
        let swapped = FolderExchange.exchange(dir.file("a"), dir.file("b"))
        print("FolderExchange on this file system: \(swapped ? "atomic exchange" : "not supported, two renames")")
        #expect(StorageFixtures.bytes(dir.file("a/name")) == Data((swapped ? "b" : "a").utf8))
        #expect(StorageFixtures.bytes(dir.file("b/name")) == Data((swapped ? "a" : "b").utf8))
        #expect(!FolderExchange.exchange(dir.file("a"), dir.file("missing")), "an exchange with a missing path succeeded")
        #expect(StorageFixtures.bytes(dir.file("a/name")) == Data((swapped ? "b" : "a").utf8))
    }

    @Test("Without an atomic exchange, the two-rename fallback puts the new folder in place and returns the old one's new path")
    func renameAsideFallback() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for name in ["vault", "new"] {
            try FileManager.default.createDirectory(at: dir.file(name), withIntermediateDirectories: false)
            try Data(name.utf8).write(to: dir.file("\(name)/records.medvault"))
        }
        let aside = try RestoreTarget.renameAside(VaultLayout(folder: dir.file("vault")), replacement: dir.file("new"))
        #expect(StorageFixtures.bytes(dir.file("vault/records.medvault")) == Data("new".utf8))
        #expect(StorageFixtures.bytes(aside.appendingPathComponent("records.medvault")) == Data("vault".utf8))
        #expect(aside.lastPathComponent.hasPrefix(".vault.replaced-"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("new").path))
        let failed = #expect(throws: MedVaultError.self) {
            _ = try RestoreTarget.renameAside(VaultLayout(folder: dir.file("vault")), replacement: dir.file("missing"))
        }
        #expect(failed != nil)
        #expect(StorageFixtures.bytes(dir.file("vault/records.medvault")) == Data("new".utf8), "a failed fallback lost the vault")
    }

    @Test("Unsafe targets (a file, a link, a pipe, a folder of other files, the backup itself) and missing backups are refused with typed errors")
    func unsafeTargetsAreRefused() async throws {
        try await withTemporaryDirectory { dir in
            let (created, _) = try await vaultAndBackup(dir)
            await created.vault.lock()
            try Data("file".utf8).write(to: dir.file("file"))
            try FileManager.default.createDirectory(at: dir.file("photos"), withIntermediateDirectories: false)
            try Data("jpeg".utf8).write(to: dir.file("photos/a.jpg"))
            try FileManager.default.createSymbolicLink(atPath: dir.file("link").path, withDestinationPath: dir.file("vault").path)
            #expect(mkfifo(dir.file("fifo").path, 0o600) == 0)
            let before = BackupFixtures.names(in: dir.url)
            let cases: [(String, String, MedVaultError.Code)] = [
                ("backup", "file", .invalidArgument), ("backup", "link", .invalidArgument),
                ("backup", "fifo", .invalidArgument), ("backup", "photos", .invalidArgument),
                ("backup", "backup", .invalidArgument), ("nothing", "fresh", .fileNotFound),
                ("photos", "fresh", .fileNotFound), ("link", "fresh", .invalidArgument),
            ]
            for (backup, target, code) in cases {
                let error = await #expect(throws: MedVaultError.self, "restore \(backup) to \(target)") {
                    try await Vault.restore(from: dir.file(backup), to: dir.file(target),
                                            password: try Password(BackupFixtures.password), options: VaultFixtures.options)
                }
                #expect(error?.code == code, "restore \(backup) to \(target): \(String(describing: error))")
            }
            #expect(BackupFixtures.names(in: dir.url) == before)
            #expect(BackupFixtures.names(in: dir.file("photos")) == ["a.jpg"])
        }
    }
}
