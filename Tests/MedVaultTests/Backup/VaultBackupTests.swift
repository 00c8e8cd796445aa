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

@Suite("Vault: online backup")
struct VaultBackupTests {
    @Test("A backup opens as a vault with the same password and recovery key, passes verify, holds every record field by field, and has no plaintext")
    func backupOpensWithSameSecrets() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await BackupFixtures.makeVault(at: dir.file("vault"))
            let vault = created.vault
            let expected = try await BackupFixtures.allPatients(vault)
            let phases = PhaseRecorder()
            let report = try await vault.backup(to: dir.file("backup")) { phases.record($0) }
            #expect(report.recordCounts["patient"] == 40)
            #expect(report.recordCounts["clinical_session"] == 40)
            #expect(report.schemaVersion == MedVaultSchema.migrator.latestVersion)
            #expect(report.vaultID == vault.vaultID)
            #expect(!report.hasNewDatabaseKey)
            #expect(phases.phases.first == .copying && phases.phases.last == .finished)
            #expect(phases.phases.contains(.verifying))
            #expect(BackupFixtures.names(in: dir.file("backup")) == ["records.medvault", "records.medvault.keyring"])
            #expect(BackupFixtures.names(in: dir.url) == ["backup", "vault"], "a temporary folder was left behind")
            await vault.lock()

            let copy = try await BackupFixtures.open(dir.file("backup"))
            #expect(try await BackupFixtures.allPatients(copy) == expected)
            #expect(try await copy.verify().problemsBesidesTestKDF == [])
            #expect(copy.vaultID == vault.vaultID)
            await copy.lock()
            let byRecoveryKey = try await Vault.open(at: dir.file("backup"), recoveryKey: created.recoveryKey,
                                                     options: VaultFixtures.options)
            #expect(try await byRecoveryKey.patients.count() == 39, "39 active patients")
            await byRecoveryKey.lock()
            BackupFixtures.expectNoPlaintext(in: dir.file("backup"))
        }
    }

    @Test("A backup under a new database key: another key than the vault's, the keyring copy wraps it, the same password opens it")
    func backupUnderNewDatabaseKey() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault")).vault
            let report = try await vault.backup(to: dir.file("backup"), options: Vault.BackupOptions(newDatabaseKey: true))
            #expect(report.hasNewDatabaseKey)
            await vault.lock()
            let password = try Password(BackupFixtures.password)
            let liveKey = try VaultFixtures.databaseKey(in: dir.file("vault"), password: password)
            let copyKey = try VaultFixtures.databaseKey(in: dir.file("backup"), password: password)
            #expect(liveKey != copyKey)
            let copy = try await BackupFixtures.open(dir.file("backup"))
            #expect(try await copy.info().databaseKeyGeneration == 2)
            #expect(try await copy.info().recordCounts["patient"] == 40)
            #expect(try await copy.verify().problemsBesidesTestKDF == [])
            await copy.lock()
            BackupFixtures.expectNoPlaintext(in: dir.file("backup"))
        }
    }

    @Test("An empty folder is a valid destination")
    func emptyFolderDestination() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 3).vault
            try FileManager.default.createDirectory(at: dir.file("backup"), withIntermediateDirectories: false)
            try await vault.backup(to: dir.file("backup"))
            await vault.lock()
            let copy = try await BackupFixtures.open(dir.file("backup"))
            #expect(try await copy.patients.count() == 2)
            await copy.lock()
        }
    }

    @Test("Destinations that exist (non-empty folder, file, symbolic link, named pipe), inside the vault, or under a missing folder are refused with a typed error, and nothing is written")
    func unsafeDestinationsAreRefused() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 3).vault
            try FileManager.default.createDirectory(at: dir.file("full"), withIntermediateDirectories: false)
            try Data("keep".utf8).write(to: dir.file("full/keep.txt"))
            try Data("file".utf8).write(to: dir.file("file"))
            try FileManager.default.createDirectory(at: dir.file("elsewhere"), withIntermediateDirectories: false)
            try FileManager.default.createSymbolicLink(atPath: dir.file("link").path, withDestinationPath: dir.file("elsewhere").path)
            #expect(mkfifo(dir.file("fifo").path, 0o600) == 0)
            let before = BackupFixtures.names(in: dir.url)
            let cases: [(String, MedVaultError.Code)] = [
                ("full", .duplicate), ("file", .invalidArgument), ("link", .invalidArgument),
                ("fifo", .invalidArgument), ("vault/inner", .invalidArgument), ("missing/backup", .fileNotFound),
            ]
            for (name, code) in cases {
                let error = await #expect(throws: MedVaultError.self, "backup to \(name)") {
                    try await vault.backup(to: dir.file(name))
                }
                #expect(error?.code == code, "backup to \(name): \(String(describing: error))")
            }
            #expect(BackupFixtures.names(in: dir.url) == before, "a refused backup wrote something")
            #expect(BackupFixtures.names(in: dir.file("full")) == ["keep.txt"])
            #expect(BackupFixtures.names(in: dir.file("elsewhere")) == [])
            #expect(try await vault.patients.count() == 2, "the vault stays usable")
            await vault.lock()
        }
    }

    @Test("A backup taken while 4 tasks keep writing opens as a vault, passes verify, and holds every record committed before it began")
    func backupWhileWriting() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 200).vault
            let writing = WriteFlag()
            let writers = (0..<4).map { writer in
                Task {
                    var written = 0
                    while writing.isOn {
                        try await BackupFixtures.addRecords(vault, patients: 5, start: 10_000 * (writer + 1) + written)
                        written += 5
                    }
                    return written
                }
            }
            // Let the writers commit for a moment, then collect what is committed.
            try await Task.sleep(for: .milliseconds(200))
            let committed = Set(try await BackupFixtures.allPatients(vault).map(\.id))
            try await vault.backup(to: dir.file("backup"))
            writing.turnOff()
            var written = 0
            for writer in writers { written += try await writer.value }
            #expect(written > 0, "the writers did not run during the backup")
            let total = try await BackupFixtures.allPatients(vault).count
            await vault.lock()

            let copy = try await BackupFixtures.open(dir.file("backup"))
            let restored = Set(try await BackupFixtures.allPatients(copy).map(\.id))
            #expect(committed.isSubset(of: restored), "\(committed.subtracting(restored).count) committed patients are missing")
            #expect(restored.count <= total)
            #expect(try await copy.verify().problemsBesidesTestKDF == [])
            await copy.lock()
        }
    }

    @Test("lock() during a backup stops it with locked and leaves nothing at the destination or beside it")
    func lockStopsBackup() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 300).vault
            let locking = LockOnce(vault)
            let error = await #expect(throws: MedVaultError.self, "a backup survived lock()") {
                try await vault.backup(to: dir.file("backup")) { progress in
                    if progress.phase == .copying { locking.fire() }
                }
            }
            #expect(error?.code == .locked)
            await locking.wait()
            #expect(BackupFixtures.names(in: dir.url) == ["vault"])
            let reopened = try await BackupFixtures.open(dir.file("vault"))
            #expect(try await reopened.patients.count() == 299)
            #expect(try await reopened.verify().problemsBesidesTestKDF == [])
            await reopened.lock()
        }
    }

    @Test("A backup of a locked vault fails with locked")
    func lockedVaultCannotBackUp() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 1).vault
            await vault.lock()
            let error = await #expect(throws: MedVaultError.self) { try await vault.backup(to: dir.file("backup")) }
            #expect(error?.code == .locked)
            #expect(BackupFixtures.names(in: dir.url) == ["vault"])
        }
    }

    @Test("A rotation after a backup leaves the backup opening with its own key")
    func rotationAfterBackup() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 5).vault
            try await vault.backup(to: dir.file("one"))
            try await vault.rotateDatabaseKey()
            try await vault.backup(to: dir.file("two"))
            await vault.lock()
            for name in ["one", "two"] {
                let copy = try await BackupFixtures.open(dir.file(name))
                #expect(try await copy.patients.count() == 4)
                #expect(try await copy.verify().problemsBesidesTestKDF == [])
                await copy.lock()
            }
        }
    }
}

/// Records the phases a progress callback saw.
final class PhaseRecorder: @unchecked Sendable {
    // Safety of @unchecked Sendable: `recorded` is read and written only under `lock`.
    private let lock = NSLock()
    private var recorded: [BackupProgress.Phase] = []

    func record(_ progress: BackupProgress) {
        lock.withLock { if recorded.last != progress.phase { recorded.append(progress.phase) } }
    }

    var phases: [BackupProgress.Phase] { lock.withLock { recorded } }
}

/// A flag the writer tasks poll.
final class WriteFlag: @unchecked Sendable {
    // Safety of @unchecked Sendable: `on` is read and written only under `lock`.
    private let lock = NSLock()
    private var on = true

    var isOn: Bool { lock.withLock { on } }
    func turnOff() { lock.withLock { on = false } }
}

/// Starts `vault.lock()` once, from a synchronous callback.
final class LockOnce: @unchecked Sendable {
    // Safety of @unchecked Sendable: `task` is read and written only under `lock`.
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private let vault: Vault

    init(_ vault: Vault) { self.vault = vault }

    func fire() {
        lock.withLock {
            guard task == nil else { return }
            let vault = self.vault
            task = Task { await vault.lock() }
        }
    }

    func wait() async {
        await lock.withLock { task }?.value
    }
}

@Suite("Vault: backup racing key operations")
struct BackupRaceTests {
    @Test("Backups racing rotations in the same process (5 rounds) all open with the password: the keyring copy always wraps the copy's key")
    func backupRacingRotation() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 100).vault
            for round in 0..<5 {
                async let rotation: Void = vault.rotateDatabaseKey()
                async let backup = vault.backup(to: dir.file("backup\(round)"))
                try await rotation
                _ = try await backup
            }
            #expect(try await vault.info().databaseKeyGeneration == 6)
            await vault.lock()
            for round in 0..<5 {
                let copy = try await BackupFixtures.open(dir.file("backup\(round)"))
                #expect(try await copy.patients.count() == 99)
                #expect(try await copy.verify().problemsBesidesTestKDF == [])
                await copy.lock()
            }
        }
    }

    @Test("A backup racing a password change in another process opens with the old or the new password, and passes verify")
    func backupRacingPasswordChangeElsewhere() async throws {
        try await withTemporaryDirectory { dir in
            let old = CLIHarness.password
            let new = CLIHarness.otherPassword
            let vault = try await Vault.create(at: dir.file("vault"), password: try Password(old), options: VaultFixtures.options).vault
            try await VaultFixtures.insertRawPatients(vault, count: 500)
            let passwd = try CLIHarness.start(["passwd", dir.file("vault").path, "--password-stdin"], input: "\(old)\n\(new)\n")
            try await vault.backup(to: dir.file("backup"))
            let changed = try await passwd.finish()
            #expect(changed.status == 0, "\(changed.standardError)")
            await vault.lock()
            let copy: Vault
            do {
                copy = try await Vault.open(at: dir.file("backup"), password: try Password(old), options: VaultFixtures.options)
            } catch let error as MedVaultError where error.code == .wrongPassword {
                copy = try await Vault.open(at: dir.file("backup"), password: try Password(new), options: VaultFixtures.options)
            }
            #expect(try await VaultFixtures.patientCount(copy) == 500)
            #expect(try await copy.verify().problemsBesidesTestKDF == [])
            await copy.lock()
        }
    }
}

@Suite("Vault: backup cancellation")
struct BackupCancellationTests {
    @Test("Cancelling the task during the export stops the backup with cancelled; nothing is left, the vault stays usable")
    func cancellationStopsBackup() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 300).vault
            let holder = TaskHolder()
            let destination = dir.file("backup")
            let task = Task {
                try await vault.backup(to: destination) { progress in
                    if progress.phase == .copying, progress.fractionCopied > 0 { holder.cancel() }
                }
            }
            holder.set(task)
            let result = await task.result
            #expect(throws: MedVaultError.self) { try result.get() }
            if case .failure(let error as MedVaultError) = result { #expect(error.code == .cancelled) }
            #expect(BackupFixtures.names(in: dir.url) == ["vault"])
            #expect(try await vault.patients.count() == 299)
            await vault.lock()
        }
    }
}

/// Cancels a task from a synchronous callback once the task is known.
final class TaskHolder: @unchecked Sendable {
    // Safety of @unchecked Sendable: `task` is read and written only under `lock`.
    private let lock = NSLock()
    private var task: Task<BackupReport, any Error>?

    func set(_ task: Task<BackupReport, any Error>) { lock.withLock { self.task = task } }
    func cancel() { lock.withLock { task }?.cancel() }
}
