import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// SIGKILL during a backup or a restore, in a real child process (`CrashProbe backup`
/// and `CrashProbe restore`).
@Suite("Vault: backup and restore killed with SIGKILL", .serialized)
struct BackupCrashTests {
    private func files(_ folder: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in BackupFixtures.names(in: folder) where !name.hasSuffix(".lock") {
            files[name] = StorageFixtures.bytes(folder.appendingPathComponent(name))
        }
        return files
    }

    /// Runs the probe and expects it to have killed itself.
    private func runProbe(_ arguments: [String], _ dir: TemporaryDirectory) async throws {
        let child = try ProbeChild(arguments, outputURL: dir.file("probe-\(UUID().uuidString).txt"))
        try await child.waitForExit(timeoutSeconds: 60)
        #expect(child.process.terminationReason == .uncaughtSignal && child.process.terminationStatus == SIGKILL,
                "the probe \(arguments) was not killed (status \(child.process.terminationStatus))")
    }

    /// No folder beside `dir`'s named entries opens as a vault.
    private func expectNoLeftoverOpens(_ dir: TemporaryDirectory, besides kept: Set<String>) async throws {
        for name in BackupFixtures.names(in: dir.url) where !kept.contains(name) && !name.hasPrefix("probe-") {
            await #expect(throws: MedVaultError.self, "the leftover \(name) opens as a vault") {
                let vault = try await BackupFixtures.open(dir.file(name))
                await vault.lock()
            }
        }
    }

    @Test("Killed while copying or verifying: the source opens with the same records and passes verify; nothing at the destination opens", arguments: ["copying", "verifying"])
    func killedDuringBackup(phase: String) async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 300).vault
            let patients = try await BackupFixtures.allPatients(vault)
            await vault.lock()
            try await runProbe(["backup", dir.file("vault").path, dir.file("backup").path, phase], dir)
            #expect(!FileManager.default.fileExists(atPath: dir.file("backup").path), "a half-written backup is at the destination")
            try await expectNoLeftoverOpens(dir, besides: ["vault"])
            let source = try await BackupFixtures.open(dir.file("vault"))
            #expect(try await BackupFixtures.allPatients(source) == patients)
            #expect(try await source.verify().problemsBesidesTestKDF == [])
            // A new backup to the same destination works.
            try await source.backup(to: dir.file("backup"))
            await source.lock()
            let copy = try await BackupFixtures.open(dir.file("backup"))
            #expect(try await BackupFixtures.allPatients(copy) == patients)
            await copy.lock()
        }
    }

    @Test("A backup taken while another process keeps creating patients holds every patient that process had reported committed before the backup began")
    func backupWhileAnotherProcessWrites() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 100).vault
            let writer = try ProbeChild(["add-patients", dir.file("vault").path], outputURL: dir.file("writer.txt"))
            try #require(try await writer.waitForLines(20, timeoutSeconds: 60), "the writer did not start")
            let committed = Set(writer.lines.compactMap(UUID.init(uuidString:)))
            try await vault.backup(to: dir.file("backup"))
            let during = writer.lines.count
            try await Task.sleep(for: .milliseconds(50))
            writer.sigkill()
            try await writer.waitForExit()
            #expect(writer.lines.count > during || during > committed.count, "the writer was blocked by the backup")
            await vault.lock()
            let copy = try await BackupFixtures.open(dir.file("backup"))
            let ids = Set(try await BackupFixtures.allPatients(copy).map(\.id))
            #expect(committed.isSubset(of: ids), "\(committed.subtracting(ids).count) committed patients are missing")
            #expect(try await copy.verify().problemsBesidesTestKDF == [])
            await copy.lock()
        }
    }

    @Test("Killed right after the rename: the backup is complete and opens")
    func killedAfterBackupFinished() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 50).vault
            let patients = try await BackupFixtures.allPatients(vault)
            await vault.lock()
            try await runProbe(["backup", dir.file("vault").path, dir.file("backup").path, "finished"], dir)
            let copy = try await BackupFixtures.open(dir.file("backup"))
            #expect(try await BackupFixtures.allPatients(copy) == patients)
            #expect(try await copy.verify().problemsBesidesTestKDF == [])
            await copy.lock()
        }
    }

    @Test("Killed during a restore over a vault: the vault is byte for byte unchanged and opens; a restore into a new folder leaves none", arguments: ["copying", "verifying"])
    func killedDuringRestore(phase: String) async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 300).vault
            try await vault.backup(to: dir.file("backup"))
            try await BackupFixtures.addRecords(vault, patients: 5, start: 1_000)
            let patients = try await BackupFixtures.allPatients(vault)
            await vault.lock()
            let before = files(dir.file("vault"))
            try await runProbe(["restore", dir.file("backup").path, dir.file("vault").path, phase], dir)
            #expect(files(dir.file("vault")) == before, "the target changed")
            try await runProbe(["restore", dir.file("backup").path, dir.file("fresh").path, phase], dir)
            #expect(!FileManager.default.fileExists(atPath: dir.file("fresh").path), "a half-restored vault is at the target")
            try await expectNoLeftoverOpens(dir, besides: ["vault", "backup"])
            let reopened = try await BackupFixtures.open(dir.file("vault"))
            #expect(try await BackupFixtures.allPatients(reopened) == patients)
            #expect(try await reopened.verify().problemsBesidesTestKDF == [])
            await reopened.lock()
        }
    }
}
