import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `medvault backup`, `medvault restore` and `medvault import`.
@Suite("CLI backup, restore and import")
struct CLIBackupTests {
    let input = CLIHarness.password + "\n"

    private func makeVault(in directory: TemporaryDirectory) async throws -> (URL, UUID) {
        let folder = directory.file("clinic")
        _ = try await CLIHarness.initVault(folder)
        let id = try await CLIRecordFixtures.addPatient(folder, first: "José", last: "García Núñez", born: "1984-03-07")
        try await CLIRecordFixtures.addHistory(folder, patientID: id)
        return (folder, id)
    }

    @Test("backup then restore into a new folder: both print counts (no names), the restored vault holds the record")
    func backupAndRestore() async throws {
        try await withTemporaryDirectory { directory in
            let (folder, id) = try await makeVault(in: directory)
            let backup = directory.file("backup")
            let backedUp = try await CLIHarness.run(["backup", folder.path, backup.path, "--password-stdin"], input: input)
            #expect(backedUp.status == 0, "\(backedUp.standardError)")
            #expect(backedUp.standardOutput.contains("1 patients, 2 sessions"), "\(backedUp.standardOutput)")
            #expect(!backedUp.standardOutput.contains("José"))
            let again = try await CLIHarness.run(["backup", folder.path, backup.path, "--password-stdin"], input: input)
            #expect(again.status == 7, "a backup over an existing one: \(again.standardError)")

            let restoredFolder = directory.file("restored")
            let restored = try await CLIHarness.run(["restore", backup.path, restoredFolder.path, "--password-stdin"], input: input)
            #expect(restored.status == 0, "\(restored.standardError)")
            #expect(restored.standardOutput.hasPrefix("Restored"))
            let original = try await CLIRecordFixtures.withVault(folder) { vault in try await vault.exportRecord(of: id) }
            let copy = try await CLIRecordFixtures.withVault(restoredFolder) { vault in try await vault.exportRecord(of: id) }
            var same = copy
            same.exportedAt = original.exportedAt
            #expect(same == original)
        }
    }

    @Test("restore refuses a wrong password (3), a damaged backup (6) and a vault in use (9), changing nothing")
    func restoreFailures() async throws {
        try await withTemporaryDirectory { directory in
            let (folder, _) = try await makeVault(in: directory)
            let backup = directory.file("backup")
            #expect(try await CLIHarness.run(["backup", folder.path, backup.path, "--password-stdin"], input: input).status == 0)
            let unasked = try await CLIHarness.run(["restore", backup.path, folder.path, "--password-stdin"], input: input)
            #expect(unasked.status == 7, "replacing a vault without --replace: \(unasked.standardError)")
            #expect(unasked.standardError.contains("--replace"))
            let wrong = try await CLIHarness.run(["restore", backup.path, folder.path, "--replace", "--password-stdin"],
                                                 input: "nope\n")
            #expect(wrong.status == 3, "\(wrong.standardError)")

            let holder = try await Vault.open(at: folder, password: try Password(CLIHarness.password),
                                              options: VaultFixtures.options)
            let inUse = try await CLIHarness.run(["restore", backup.path, folder.path, "--replace", "--password-stdin"],
                                                 input: input)
            #expect(inUse.status == 9, "\(inUse.standardError)")
            #expect(try await holder.patients.count() == 1)
            await holder.lock()
            let replaced = try await CLIHarness.run(["restore", backup.path, folder.path, "--replace", "--password-stdin"],
                                                    input: input)
            #expect(replaced.status == 0, "\(replaced.standardError)")

            let database = VaultLayout(folder: backup).database
            var bytes = try #require(StorageFixtures.bytes(database))
            bytes[bytes.count - 100] ^= 0x40
            try bytes.write(to: database)
            let damaged = try await CLIHarness.run(["restore", backup.path, directory.file("new").path, "--password-stdin"],
                                                   input: input)
            #expect(damaged.status == 6, "\(damaged.standardError)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("new").path))
        }
    }

    @Test("import of an export into a new vault keeps the record; importing it again is refused (7) and changes nothing")
    func importExport() async throws {
        try await withTemporaryDirectory { directory in
            let (folder, id) = try await makeVault(in: directory)
            let file = directory.file("jose.json")
            let exported = try await CLIHarness.run(["export", folder.path, id.uuidString, "--output", file.path, "--password-stdin"],
                                                    input: input)
            try #require(exported.status == 0, "\(exported.standardError)")
            let target = directory.file("target")
            _ = try await CLIHarness.initVault(target)
            let imported = try await CLIHarness.run(["import", target.path, file.path, "--password-stdin"], input: input)
            #expect(imported.status == 0, "\(imported.standardError)")
            #expect(imported.standardOutput.contains("Imported 1 patient: 2 sessions"), "\(imported.standardOutput)")
            #expect(imported.standardError.contains("1 attachments were not imported"), "\(imported.standardError)")
            let twice = try await CLIHarness.run(["import", target.path, file.path, "--password-stdin"], input: input)
            #expect(twice.status == 7, "\(twice.standardError)")
            #expect(!twice.standardError.contains("José"))
            try Data("{\"not\": \"an export\"}".utf8).write(to: directory.file("bad.json"))
            let bad = try await CLIHarness.run(["import", target.path, directory.file("bad.json").path, "--password-stdin"],
                                               input: input)
            #expect(bad.status == 7, "\(bad.standardError)")
            let count = try await CLIRecordFixtures.withVault(target) { vault in try await vault.patients.count() }
            #expect(count == 1)

            // With --attachments the export carries their content and the import restores them.
            let withContent = directory.file("jose-adjuntos.json")
            let exportedWithContent = try await CLIHarness.run(
                ["export", folder.path, id.uuidString, "--attachments", "--output", withContent.path, "--password-stdin"],
                input: input)
            try #require(exportedWithContent.status == 0, "\(exportedWithContent.standardError)")
            let second = directory.file("second")
            _ = try await CLIHarness.initVault(second)
            let restored = try await CLIHarness.run(["import", second.path, withContent.path, "--password-stdin"], input: input)
            #expect(restored.status == 0, "\(restored.standardError)")
            #expect(restored.standardOutput.contains("1 attachments."), "\(restored.standardOutput)")
            #expect(!restored.standardError.contains("not imported"), "\(restored.standardError)")
            let original = try await CLIRecordFixtures.withVault(folder) { vault in
                try await vault.exportRecord(of: id, includingAttachmentContent: true).sessions.flatMap(\.attachmentContents)
            }
            let copy = try await CLIRecordFixtures.withVault(second) { vault in
                try await vault.exportRecord(of: id, includingAttachmentContent: true).sessions.flatMap(\.attachmentContents)
            }
            #expect(!original.isEmpty && copy == original)
        }
    }
}
